use mcp_rounds::{State, tool};

struct Store;

/// Only strings, integers and booleans fit in a header.
#[tool]
fn resize(
    #[arg(header = "Scale")] scale: f64,
    #[arg(header = "Tags")] tags: Vec<String>,
    #[arg(header = "Store")] State(store): State<Store>,
) -> String {
    let _ = store;
    format!("{scale} {tags:?}")
}

fn main() {}
