use mcp_rounds::tool;

/// Two parameters end up with the same name.
#[tool]
fn pair(first: String, #[arg(rename = "first")] second: String) -> String {
    first + &second
}

fn main() {}
