use mcp_rounds::tool;

/// Not a function.
#[tool]
struct Settings;

fn main() {}
