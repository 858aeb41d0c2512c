use mcp_rounds::resource;

/// Query expansion is not supported.
#[resource("search://notes{?query}")]
fn search(query: String) -> String {
    query
}

fn main() {}
