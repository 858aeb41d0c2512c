use mcp_rounds::tool;

/// Header names ignore case, so these two would be the same header.
#[tool]
fn copy_object(#[arg(header = "Region")] from: String, #[arg(header = "REGION")] to: String) -> String {
    from + &to
}

fn main() {}
