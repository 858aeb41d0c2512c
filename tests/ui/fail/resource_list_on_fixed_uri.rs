use mcp_rounds::model::Resource;
use mcp_rounds::{RequestContext, resource};

async fn list(_ctx: RequestContext) -> Vec<Resource> {
    Vec::new()
}

/// A fixed URI lists itself.
#[resource("config://app", list = list)]
fn config() -> String {
    String::new()
}

fn main() {}
