use mcp_rounds::tool;

/// Const functions are not handlers.
#[tool]
const fn answer() -> &'static str {
    "42"
}

fn main() {}
