//! A server that names no crate but mcp-rounds compiles: generated code reaches serde,
//! schemars and tokio through the runtime.

use mcp_rounds::{Server, handlers, prompt, resource, tool};

/// Echoes.
#[tool]
async fn echo(text: String, times: Option<u32>) -> String {
    text.repeat(times.unwrap_or(1) as usize)
}

/// A thing.
#[resource("things://{id}")]
fn thing(id: String) -> String {
    id
}

/// Ask.
#[prompt]
fn ask(question: String) -> String {
    question
}

fn main() {
    let _server = Server::builder("minimal", "1").handlers(handlers![echo, thing, ask]).build().unwrap();
}
