//! A server crate that depends on mcp-rounds alone, under another name: no serde, schemars or
//! serde_json of its own (the runtime's re-exports serve), and every macro told the name.

use rounds::form::FormRequest;
use rounds::rounds::{Elicitation, Round, Step};
use rounds::schemars::JsonSchema;
use rounds::serde::Serialize;
use rounds::{BuildError, Form, Json, Rounds, Server, handlers, prompt, resource, tool};

/// Repeats text.
#[tool(read_only, crate = "rounds")]
pub async fn echo(text: String, times: Option<u32>) -> String {
    text.repeat(times.unwrap_or(1) as usize)
}

/// A thing by id.
#[resource("things://{id}", mime_type = "text/plain", crate = "rounds")]
pub fn thing(id: u64) -> Option<String> {
    (id < 10).then(|| format!("thing {id}"))
}

/// Ask a question.
#[prompt(crate = "rounds")]
pub fn ask(question: String, tone: Option<String>) -> String {
    format!("{question} ({})", tone.unwrap_or_else(|| "plain".into()))
}

/// A sum, as structured output.
#[derive(Serialize, JsonSchema)]
#[serde(crate = "rounds::serde")]
#[schemars(crate = "rounds::schemars")]
pub struct Sum {
    /// The sum.
    pub sum: i64,
}

/// Adds two numbers.
#[tool(crate = "rounds")]
pub fn add(a: i64, b: i64) -> Json<Sum> {
    Json(Sum { sum: a + b })
}

/// The confirmation form.
#[derive(Form)]
#[form(crate = "rounds")]
pub struct Confirm {
    /// Go on?
    pub confirm: bool,
}

/// The one round of `careful_echo`.
#[derive(Rounds)]
#[rounds(crate = "rounds")]
pub enum Careful {
    /// Asks for confirmation.
    Ask {
        /// The answer.
        #[answer]
        confirm: Elicitation<Confirm>,
    },
}

/// Echoes once confirmed.
#[tool(crate = "rounds")]
pub fn careful_echo(text: String, round: Round<Careful>) -> Step<Careful, String> {
    match round {
        Round::Start => Careful::ask_ask(FormRequest::new("Echo it?")).into(),
        Round::Resumed(Careful::Ask { confirm: Elicitation::Accept(Confirm { confirm: true }) }) => Step::Done(text),
        Round::Resumed(_) => Step::Done(String::new()),
    }
}

/// The server.
pub fn server() -> Result<Server, BuildError> {
    Server::builder("only-mcp-rounds", "0.1.0")
        .state_keys(rounds::request_state::KeyRing::development())
        .handlers(handlers![echo, thing, ask, add, careful_echo])
        .build()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_server_builds() {
        super::server().unwrap();
    }
}
