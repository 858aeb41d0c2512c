use mcp_rounds::tool;

/// `camel` is not a case.
#[tool(rename_all = "camel")]
fn rename(workspace_uri: String) -> String {
    workspace_uri
}

fn main() {}
