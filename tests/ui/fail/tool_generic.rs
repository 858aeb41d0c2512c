use mcp_rounds::tool;

/// Generic functions cannot be called with JSON.
#[tool]
fn show<T: std::fmt::Display>(value: T) -> String {
    value.to_string()
}

fn main() {}
