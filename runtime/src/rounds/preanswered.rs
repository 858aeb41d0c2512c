//! Answers that arrive before any question: a client that knows what a tool asks may send
//! `inputResponses` on its first call, with no `requestState`.

use crate::error::Error;
use crate::model::JsonObject;

use super::{Answer, IntoInputRequest};

/// Answers a client sent up front, without a `requestState`.
///
/// Nothing signed vouches for them, so they are only what the client claims: take one by the
/// key and the request the tool would have sent, and it is decoded and checked against that
/// request exactly as a signed round's answer is. A missing answer is `None` (ask for it the
/// usual way); a malformed one is -32602. On a retry that carries a state the answers belong to
/// that state's round, and this is empty.
///
/// ```
/// use mcp_rounds::form::FormRequest;
/// use mcp_rounds::rounds::{Elicitation, Preanswered};
/// use mcp_rounds::{Form, Round, Rounds, Step, tool};
///
/// #[derive(Form)]
/// struct Name {
///     name: String,
/// }
///
/// #[derive(Rounds)]
/// enum Greeting {
///     AskName {
///         #[answer]
///         name: Elicitation<Name>,
///     },
/// }
///
/// /// Greets the user, asking their name unless the client already answered.
/// #[tool(read_only)]
/// fn greet(round: Round<Greeting>, mut early: Preanswered) -> Result<Step<Greeting, String>, mcp_rounds::Error> {
///     let answer = match round {
///         Round::Resumed(Greeting::AskName { name }) => name,
///         Round::Start => match early.take("name", FormRequest::new("What is your name?"))? {
///             Some(answer) => answer,
///             None => return Ok(Greeting::ask_ask_name(FormRequest::new("What is your name?")).into()),
///         },
///     };
///     Ok(Step::Done(match answer {
///         Elicitation::Accept(Name { name }) => format!("Hello, {name}!"),
///         _ => "Hello, stranger!".to_owned(),
///     }))
/// }
/// ```
#[derive(Debug, Default)]
pub struct Preanswered {
    responses: JsonObject,
}

impl Preanswered {
    pub(crate) fn new(responses: Option<JsonObject>) -> Self {
        Preanswered { responses: responses.unwrap_or_default() }
    }

    /// The answer under `key`, decoded against `request` (what the tool would have asked).
    pub fn take<A: Answer>(&mut self, key: &str, request: A::Request) -> Result<Option<A>, Error> {
        let Some(response) = self.responses.shift_remove(key).filter(|v| !v.is_null()) else { return Ok(None) };
        let sent = request.into_input_request().map_err(|problem| {
            tracing::error!(key, %problem, "the request an early answer is checked against cannot be built");
            Error::internal()
        })?;
        A::decode(key, &response, &sent).map(Some)
    }

    /// No answers arrived up front.
    pub fn is_empty(&self) -> bool {
        self.responses.is_empty()
    }
}
