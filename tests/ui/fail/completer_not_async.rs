use mcp_rounds::completion::CompletionRequest;
use mcp_rounds::prompt;

fn languages(request: CompletionRequest) -> Vec<String> {
    request.matching(["rust"])
}

/// Reviews code.
#[prompt]
fn review(#[arg(complete = languages)] language: String) -> String {
    language
}

fn main() {}
