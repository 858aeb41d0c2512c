use mcp_rounds::tool;

/// `renam` is not a key of #[arg].
#[tool]
fn label(#[arg(renam = "x")] text: String) -> String {
    text
}

fn main() {}
