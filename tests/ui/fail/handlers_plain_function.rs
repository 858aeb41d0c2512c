use mcp_rounds::{Server, handlers};

fn not_annotated() -> String {
    String::new()
}

fn main() {
    let _ = Server::builder("s", "1").handlers(handlers![not_annotated]).build();
}
