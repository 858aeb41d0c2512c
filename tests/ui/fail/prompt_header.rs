use mcp_rounds::prompt;

/// Prompt arguments never travel in headers.
#[prompt]
fn review(#[arg(header = "Language")] language: String) -> String {
    format!("Review this {language} code")
}

fn main() {}
