use mcp_rounds::tool;

/// Contradictory annotations.
#[tool(read_only, destructive)]
fn wipe() -> String {
    String::new()
}

fn main() {}
