use mcp_rounds::tool;

/// Borrowed parameters cannot outlive the request.
#[tool]
fn shout(text: &str) -> String {
    text.to_uppercase()
}

fn main() {}
