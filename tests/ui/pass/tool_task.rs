//! Task tools: optional and required, async and plain (a plain one runs on a thread of its own).

use mcp_rounds::tasks::TaskScope;
use mcp_rounds::{Server, handlers, tool};

/// Exports everything.
#[tool(read_only, task)]
async fn export(scope: TaskScope) -> String {
    scope.detach().await;
    "exported".to_owned()
}

/// Rebuilds the index; only as a task.
#[tool(task = "required")]
fn reindex() -> String {
    "reindexed".to_owned()
}

/// Not a task after all.
#[tool(task = false)]
fn quick() -> String {
    "quick".to_owned()
}

fn main() {
    let server = Server::builder("s", "1").handlers(handlers![export, reindex, quick]).build().unwrap();
    assert!(server.capabilities().extensions.as_ref().unwrap().contains_key("io.modelcontextprotocol/tasks"));
}
