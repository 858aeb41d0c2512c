use mcp_rounds::resource;

/// `{id}` is in the template but not in the parameters.
#[resource("notes://{id}")]
fn note() -> String {
    String::new()
}

fn main() {}
