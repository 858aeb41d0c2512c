use mcp_rounds::resource;

/// A template variable is text; Vec<u8> cannot be parsed from it.
#[resource("blobs://{id}")]
fn blob(id: Vec<u8>) -> Vec<u8> {
    id
}

fn main() {}
