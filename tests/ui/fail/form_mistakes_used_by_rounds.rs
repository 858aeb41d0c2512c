// A form with mistakes, used by rounds and a tool as usual: each mistake is one error.
use mcp_rounds::form::{Choice, FormRequest};
use mcp_rounds::rounds::{Elicitation, Round, Step};
use mcp_rounds::{Form, Rounds, tool};

#[derive(Form)]
struct Pick {
    /// Which one.
    note: Choice,
    /// When.
    #[form(format = "time")]
    when: String,
}

#[derive(Rounds)]
enum Flow {
    Ask {
        #[answer]
        pick: Elicitation<Pick>,
    },
}

/// Uses the form's fields, as a tool offering choices does.
#[tool]
fn choose(round: Round<Flow>) -> Step<Flow, String> {
    match round {
        Round::Start => {
            let form = FormRequest::new("Which?").choices(Pick::FIELDS.note, [("a", "A")]);
            Flow::ask_ask(form).into()
        }
        Round::Resumed(_) => Step::Done("done".into()),
    }
}

fn main() {}
