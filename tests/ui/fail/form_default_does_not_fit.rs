use mcp_rounds::Form;

#[derive(Form)]
struct Settings {
    /// A text default on a boolean.
    #[form(default = "yes")]
    enabled: bool,
}

fn main() {}
