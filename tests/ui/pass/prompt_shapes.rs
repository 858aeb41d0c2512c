//! Every accepted shape of #[prompt].

use mcp_rounds::model::{GetPromptResult, PromptMessage};
use mcp_rounds::{Error, Principal, Server, State, handlers, prompt};

struct Style(String);

/// Required and optional arguments, extractors.
#[prompt(title = "Review")]
fn review(
    /// The note.
    uri: String,
    /// Focus.
    focus: Option<String>,
    who: Principal,
    State(style): State<Style>,
) -> Vec<PromptMessage> {
    let _ = (who, focus);
    vec![PromptMessage::user(format!("{} {uri}", style.0))]
}

/// Async, renamed, fallible.
#[prompt(name = "summarize", rename_all = "camelCase")]
async fn summarize(note_uri: String) -> Result<String, Error> {
    Ok(note_uri)
}

/// The whole result.
#[prompt]
fn full() -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::assistant("hi")])
}

fn main() {
    let _server = Server::builder("prompts", "1")
        .state(Style("Please review".into()))
        .handlers(handlers![review, summarize, full])
        .build()
        .unwrap();
}
