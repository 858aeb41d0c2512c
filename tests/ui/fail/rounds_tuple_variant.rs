use mcp_rounds::Rounds;
use mcp_rounds::rounds::UrlElicitation;

#[derive(Rounds)]
enum Flow {
    Visit(UrlElicitation),
}

fn main() {}
