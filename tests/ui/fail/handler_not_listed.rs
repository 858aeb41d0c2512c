// trybuild allows dead_code in every case; a user's build does not need this line (see
// `a_handler_left_out_of_handlers_fails_the_build` in tests/compile.rs).
#![warn(dead_code)]

use mcp_rounds::{Server, handlers, tool, view};

/// Says hello: listed.
#[tool]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Says goodbye: forgotten.
#[tool]
fn farewell(name: String) -> String {
    format!("Goodbye, {name}!")
}

mod admin {
    use mcp_rounds::tool;

    /// Empties the bin: forgotten too.
    #[tool]
    pub(crate) fn purge() -> String {
        String::new()
    }
}

/// Kept for later, knowingly unserved.
#[allow(dead_code)]
#[tool]
fn later() -> String {
    String::new()
}

/// A board nobody serves: forgotten as well.
#[view("ui://s/board", html = "<!doctype html><p>board</p>")]
struct Board;

fn main() {
    let _ = Server::builder("s", "1").handlers(handlers![greet]).build();
}
