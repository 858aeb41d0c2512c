use mcp_rounds::prompt;

fn languages(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

/// Reviews code.
#[prompt]
fn review(#[arg(complete = languages)] language: String) -> String {
    language
}

fn main() {}
