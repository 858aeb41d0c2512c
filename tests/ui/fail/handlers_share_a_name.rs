use mcp_rounds::{Server, handlers, tool};

mod v1 {
    use mcp_rounds::tool;

    /// Says hello.
    #[tool]
    pub fn greet(name: String) -> String {
        format!("Hello, {name}!")
    }
}

/// Says hello, again.
#[tool(name = "greet")]
fn greet_again(name: String) -> String {
    format!("Hello again, {name}!")
}

fn main() {
    let _ = Server::builder("s", "1").handlers(handlers![v1::greet, greet_again]).build();
}
