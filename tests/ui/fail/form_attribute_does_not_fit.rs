use mcp_rounds::Form;

#[derive(Form)]
struct Order {
    /// `min_length` is for text, not numbers.
    #[form(min_length = 1)]
    quantity: u32,
}

fn main() {}
