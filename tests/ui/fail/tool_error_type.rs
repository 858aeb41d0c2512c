use mcp_rounds::tool;

/// io::Error is not a tool error; ToolError or mcp_rounds::Error are.
#[tool]
fn load(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

fn main() {}
