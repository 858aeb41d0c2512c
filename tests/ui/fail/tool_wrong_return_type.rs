use mcp_rounds::tool;

/// Returns bytes, which is not a tool result.
#[tool]
fn bytes() -> Vec<u8> {
    vec![1, 2, 3]
}

fn main() {}
