use mcp_rounds::Rounds;

#[derive(Rounds)]
enum Flow {
    Ask {
        /// A String is not something a client answers.
        #[answer]
        reply: String,
    },
}

fn main() {}
