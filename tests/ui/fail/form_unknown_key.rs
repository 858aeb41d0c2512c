use mcp_rounds::Form;

#[derive(Form)]
struct Contact {
    #[form(minlength = 2)]
    name: String,
}

fn main() {}
