use mcp_rounds::resource;

/// No URI at all.
#[resource(mime_type = "text/plain")]
fn readme() -> String {
    String::new()
}

fn main() {}
