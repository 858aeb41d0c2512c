use mcp_rounds::tool;

/// Returns an opaque future instead of being async.
#[tool]
fn later() -> impl std::future::Future<Output = String> {
    async { String::new() }
}

fn main() {}
