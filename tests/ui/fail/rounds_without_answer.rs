use mcp_rounds::Rounds;

#[derive(Rounds)]
enum Flow {
    /// Carries data but asks nothing.
    Waiting { ticket: String },
}

fn main() {}
