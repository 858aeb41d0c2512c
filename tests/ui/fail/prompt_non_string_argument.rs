use mcp_rounds::prompt;

/// Prompt arguments are strings.
#[prompt]
fn count_to(limit: u32) -> String {
    format!("Count to {limit}")
}

fn main() {}
