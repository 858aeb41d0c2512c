use mcp_rounds::completion::CompletionRequest;
use mcp_rounds::{Principal, prompt};

async fn names(request: CompletionRequest) -> Vec<String> {
    request.matching(["ada"])
}

/// Greets the caller.
#[prompt]
fn greet(#[arg(complete = names)] who: Principal) -> String {
    format!("{who:?}")
}

fn main() {}
