use mcp_rounds::resource;

/// A number is not resource contents.
#[resource("counter://value")]
fn counter() -> u64 {
    7
}

fn main() {}
