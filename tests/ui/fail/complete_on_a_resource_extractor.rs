use mcp_rounds::completion::CompletionRequest;
use mcp_rounds::{RequestContext, resource};

async fn ids(request: CompletionRequest) -> Vec<String> {
    request.matching(["1", "2"])
}

/// A note.
#[resource("notes://{id}")]
fn note(id: String, #[arg(complete = ids)] context: RequestContext) -> String {
    let _ = context;
    id
}

fn main() {}
