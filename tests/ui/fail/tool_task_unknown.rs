use mcp_rounds::tool;

/// Runs for a while.
#[tool(task = "sometimes")]
async fn export() -> String {
    String::new()
}

fn main() {}
