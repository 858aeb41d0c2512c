use mcp_rounds::Form;

#[derive(Form)]
struct Contact {
    #[form(format = "phone")]
    phone: String,
}

fn main() {}
