use mcp_rounds::FormChoice;

#[derive(FormChoice)]
enum Size {
    Small,
    Custom(u32),
}

fn main() {}
