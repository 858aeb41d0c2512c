use mcp_rounds::Form;

#[derive(Form)]
enum Answer {
    Yes,
    No,
}

fn main() {}
