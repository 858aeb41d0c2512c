use mcp_rounds::Form;

struct Address {
    street: String,
}

#[derive(Form)]
struct Person {
    name: String,
    /// Form mode is flat: no nested objects.
    address: Address,
}

fn main() {}
