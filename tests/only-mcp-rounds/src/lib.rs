//! A server crate that depends on mcp-rounds alone.

use mcp_rounds::{BuildError, Server, handlers, prompt, resource, tool};

/// Repeats text.
#[tool(read_only)]
pub async fn echo(text: String, times: Option<u32>) -> String {
    text.repeat(times.unwrap_or(1) as usize)
}

/// A thing by id.
#[resource("things://{id}", mime_type = "text/plain")]
pub fn thing(id: u64) -> Option<String> {
    (id < 10).then(|| format!("thing {id}"))
}

/// Ask a question.
#[prompt]
pub fn ask(question: String, tone: Option<String>) -> String {
    format!("{question} ({})", tone.unwrap_or_else(|| "plain".into()))
}

/// The server.
pub fn server() -> Result<Server, BuildError> {
    Server::builder("only-mcp-rounds", "0.1.0").handlers(handlers![echo, thing, ask]).build()
}
