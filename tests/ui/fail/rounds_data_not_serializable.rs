use mcp_rounds::Rounds;
use mcp_rounds::rounds::UrlElicitation;

#[derive(Rounds)]
enum Flow {
    Visit {
        /// A file handle cannot travel in the signed state.
        file: std::fs::File,
        #[answer]
        opened: UrlElicitation,
    },
}

fn main() {}
