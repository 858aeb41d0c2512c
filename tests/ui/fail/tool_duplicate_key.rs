use mcp_rounds::tool;

/// A key given twice.
#[tool(name = "a", name = "b")]
fn twice() -> String {
    String::new()
}

fn main() {}
