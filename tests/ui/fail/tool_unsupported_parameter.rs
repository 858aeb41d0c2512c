use mcp_rounds::tool;

/// Takes a file handle, which no client can send.
#[tool]
fn read(file: std::fs::File) -> String {
    let _ = file;
    String::new()
}

fn main() {}
