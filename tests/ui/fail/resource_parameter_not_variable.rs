use mcp_rounds::resource;

/// `project` is a parameter but not a template variable.
#[resource("notes://{id}")]
fn note(id: String, project: String) -> String {
    id + &project
}

fn main() {}
