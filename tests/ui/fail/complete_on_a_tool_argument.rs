use mcp_rounds::completion::CompletionRequest;
use mcp_rounds::tool;

async fn cities(request: CompletionRequest) -> Vec<String> {
    request.matching(["Paris", "Perth"])
}

/// Weather for a city.
#[tool(read_only)]
fn weather(#[arg(complete = cities)] city: String) -> String {
    city
}

fn main() {}
