use mcp_rounds::tool;

/// Spaces are not allowed in tool names.
#[tool(name = "get weather")]
fn weather() -> String {
    String::new()
}

fn main() {}
