use mcp_rounds::resource;

/// The brace is never closed.
#[resource("notes://{id")]
fn note(id: String) -> String {
    id
}

fn main() {}
