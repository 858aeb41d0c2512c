use mcp_rounds::tool;

struct Calculator;

impl Calculator {
    /// Methods are not tools.
    #[tool]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }
}

fn main() {
    let _ = Calculator;
}
