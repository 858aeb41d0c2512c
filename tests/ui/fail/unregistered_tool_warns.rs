#![deny(dead_code)]

use mcp_rounds::{Server, tool};

/// Annotated but never registered.
#[tool]
fn forgotten() -> String {
    String::new()
}

fn main() {
    let _ = Server::builder("s", "1").build();
}
