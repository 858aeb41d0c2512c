use mcp_rounds::tool;

/// `readonly` is spelled `read_only`.
#[tool(readonly)]
fn look() -> String {
    String::new()
}

fn main() {}
