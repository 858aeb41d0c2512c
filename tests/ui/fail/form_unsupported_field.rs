use mcp_rounds::Form;

#[derive(Form)]
struct Tags {
    /// Free-form lists cannot be asked in form mode.
    tags: Vec<String>,
}

fn main() {}
