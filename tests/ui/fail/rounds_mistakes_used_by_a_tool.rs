// Rounds with mistakes, used by tools as usual: each mistake is one error, at the mistake,
// and the tools using the rounds compile as if the rounds were right.
use mcp_rounds::form::FormRequest;
use mcp_rounds::rounds::{Elicitation, Round, Step};
use mcp_rounds::{Form, Rounds, tool};

#[derive(Form)]
struct Confirm {
    /// Go on?
    confirm: bool,
}

/// A tuple variant among good ones.
#[derive(Rounds)]
enum Mixed {
    Ask {
        #[answer]
        confirm: Elicitation<Confirm>,
    },
    Again(u32),
}

/// A struct where an enum goes.
#[derive(Rounds)]
struct NotAnEnum {
    #[answer]
    confirm: Elicitation<Confirm>,
}

/// A misspelt #[answer]: the compiler's own error, and nothing more.
#[derive(Rounds)]
enum Misspelt {
    Ask {
        #[answr]
        confirm: Elicitation<Confirm>,
    },
}

/// Uses the first.
#[tool]
fn mixed(round: Round<Mixed>) -> Step<Mixed, String> {
    match round {
        Round::Start => Mixed::ask_ask(FormRequest::new("Go on?")).into(),
        Round::Resumed(_) => Step::Done("done".into()),
    }
}

/// Uses the second.
#[tool]
fn not_an_enum(round: Round<NotAnEnum>) -> String {
    let _ = round;
    String::new()
}

/// Uses the third.
#[tool]
fn misspelt(round: Round<Misspelt>) -> Step<Misspelt, String> {
    match round {
        Round::Start => Misspelt::ask_ask(FormRequest::new("Go on?")).into(),
        Round::Resumed(_) => Step::Done("done".into()),
    }
}

fn main() {}
