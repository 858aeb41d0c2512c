//! Multi-round tools as typed state machines.
//!
//! A tool that needs something from the client (a form, a URL visit, a model answer, the
//! roots) describes its rounds as an enum with `#[derive(Rounds)]`: each variant is one round,
//! its plain fields are the data that must survive to the next round (signed into
//! `requestState`), and its `#[answer]` fields are the answers it receives. The tool takes a
//! [`Round<R>`] parameter, which is [`Round::Start`] on the first call and
//! [`Round::Resumed`] with the round and its typed, validated answers on a retry, and returns
//! either a result or the next round (`Ask<R>`, built by the generated `ask_<variant>`).
//!
//! Everything between is the framework's: capability gating (an ask the client did not
//! declare is -32021, never embedded), signing and verifying the state (HMAC-SHA256, bound to
//! principal, method, tool and arguments, expiring, single use where it matters), validating
//! answers against exactly what was asked, and asking again when answers are missing.

mod answers;
mod claim;
mod idempotency;
mod preanswered;
mod session;
mod settles;

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use answers::{
    Elicitation, FromModelText, Roots, RootsRequest, Sampled, SamplingRequest, UrlElicitation, UrlRequest,
};
pub use claim::{Claim, ClaimGuard};
pub use idempotency::IdempotencyKey;
pub use preanswered::Preanswered;
pub use session::{OutcomeContext, RoundDriver};
pub use settles::Settles;

use crate::error::Error;
use crate::model::{CallToolResult, InputRequest, InputRequests, JsonObject};

/// Where a tool with rounds is: the first call, or a retry in a given round with its answers.
#[derive(Debug)]
pub enum Round<R> {
    /// The first call: no state yet.
    Start,
    /// A retry: the round the state names, with its data and typed answers.
    Resumed(R),
}

/// The rounds of a multi-round tool. Derive it with `#[derive(Rounds)]`.
pub trait Rounds: Sized + Send + 'static {
    /// Rebuilds the round named `round` from its signed data and the client's answers.
    fn resume(round: &str, data: JsonObject, answers: &mut AnswerSet<'_>) -> Result<Self, Error>;
}

/// Data a round carries to the next call, inside the signed state.
#[diagnostic::on_unimplemented(
    message = "round data cannot be `{Self}`",
    label = "carried in the signed requestState, so it must serialize",
    note = "round fields that are not #[answer] need serde::Serialize and serde::Deserialize"
)]
#[doc(hidden)]
pub trait RoundData: Sized {
    /// Carries this value to the next round (generated code).
    #[doc(hidden)]
    fn carry_into<R: Rounds>(&self, ask: Ask<R>, name: &'static str) -> Ask<R>;

    /// Takes this value back from the round data (generated code).
    #[doc(hidden)]
    fn carried_from(data: &mut JsonObject, name: &str) -> Result<Self, Error>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> RoundData for T {
    fn carry_into<R: Rounds>(&self, ask: Ask<R>, name: &'static str) -> Ask<R> {
        ask.carry(name, self)
    }

    fn carried_from(data: &mut JsonObject, name: &str) -> Result<Self, Error> {
        carried(data, name)
    }
}

/// An answer a round receives: the decoding of one `inputResponses` entry.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an answer a round can receive",
    label = "#[answer] fields receive what the round asks",
    note = "answers are Elicitation<F> (a form F), UrlElicitation, Sampled<T> (a model's answer) or Roots"
)]
pub trait Answer: Sized + Send + 'static {
    /// What is sent to get this answer.
    type Request: IntoInputRequest;

    /// Decodes the client's response to `sent`, checking it against exactly what was sent.
    fn decode(key: &str, response: &Value, sent: &InputRequest) -> Result<Self, Error>;

    /// Whether the user dismissed the question without deciding (a cancel keeps the state
    /// usable until it expires).
    fn is_cancel(&self) -> bool {
        false
    }

    /// Takes this answer from a retry's answers (generated code).
    #[doc(hidden)]
    fn take_from(answers: &mut AnswerSet<'_>, key: &str) -> Result<Self, Error> {
        answers.take::<Self>(key)
    }
}

/// A request that becomes one entry of `inputRequests`.
pub trait IntoInputRequest {
    /// The embedded request.
    fn into_input_request(self) -> Result<InputRequest, String>;
}

/// The next round of a tool: the round, its data and what it asks. Made by the `ask_<variant>`
/// functions `#[derive(Rounds)]` generates.
pub struct Ask<R> {
    pub(crate) round: &'static str,
    pub(crate) data: Result<JsonObject, String>,
    pub(crate) requests: Vec<(&'static str, Result<InputRequest, String>)>,
    pub(crate) single_use: Option<bool>,
    _rounds: PhantomData<fn() -> R>,
}

impl<R> std::fmt::Debug for Ask<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ask").field("round", &self.round).finish_non_exhaustive()
    }
}

impl<R: Rounds> Ask<R> {
    /// Starts the ask for `round` (generated code).
    #[doc(hidden)]
    pub fn new(round: &'static str, single_use: Option<bool>) -> Self {
        Ask { round, data: Ok(JsonObject::new()), requests: Vec::new(), single_use, _rounds: PhantomData }
    }

    /// Carries a value to the next round (generated code).
    #[doc(hidden)]
    pub fn carry<T: Serialize>(mut self, name: &'static str, value: &T) -> Self {
        if let Ok(data) = &mut self.data {
            match serde_json::to_value(value) {
                Ok(value) => {
                    data.insert(name.to_owned(), value);
                }
                Err(e) => self.data = Err(format!("round data `{name}` does not serialize: {e}")),
            }
        }
        self
    }

    /// Asks for one answer under `key` (generated code).
    #[doc(hidden)]
    pub fn request(mut self, key: &'static str, request: impl IntoInputRequest) -> Self {
        self.requests.push((key, request.into_input_request()));
        self
    }
}

/// What a multi-round tool returns: a result, or the next round.
#[derive(Debug)]
pub enum Step<R, T = CallToolResult> {
    /// Finished.
    Done(T),
    /// Ask the client, then continue in the next round.
    Ask(Ask<R>),
}

impl<R, T> From<Ask<R>> for Step<R, T> {
    fn from(ask: Ask<R>) -> Self {
        Step::Ask(ask)
    }
}

/// The answers of one retry, checked against the requests the state says were sent.
#[doc(hidden)]
pub struct AnswerSet<'a> {
    responses: Option<&'a JsonObject>,
    sent: &'a InputRequests,
    cancelled: bool,
}

impl std::fmt::Debug for AnswerSet<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerSet").field("keys", &self.sent.keys().collect::<Vec<_>>()).finish()
    }
}

impl<'a> AnswerSet<'a> {
    pub(crate) fn new(responses: Option<&'a JsonObject>, sent: &'a InputRequests) -> Self {
        AnswerSet { responses, sent, cancelled: false }
    }

    /// The answer under `key` (generated code).
    pub fn take<A: Answer>(&mut self, key: &str) -> Result<A, Error> {
        let Some(sent) = self.sent.get(key) else {
            tracing::debug!(key, "a round expects an answer that its state did not ask for");
            return Err(crate::request_state::refused());
        };
        let Some(response) = self.responses.and_then(|r| r.get(key)) else {
            // Checked for every key before any is decoded; see `missing`.
            return Err(Error::invalid_field(&format!("inputResponses.{key}"), "Missing input response"));
        };
        let answer = A::decode(key, response, sent)?;
        self.cancelled |= answer.is_cancel();
        Ok(answer)
    }

    /// The keys that were asked and not answered.
    pub(crate) fn missing(&self) -> Vec<&str> {
        self.sent
            .keys()
            .filter(|k| self.responses.and_then(|r| r.get(k.as_str())).is_none_or(Value::is_null))
            .map(String::as_str)
            .collect()
    }

    pub(crate) fn cancelled(&self) -> bool {
        self.cancelled
    }
}

/// Takes a carried value back out of the round data (generated code).
#[doc(hidden)]
pub fn carried<T: DeserializeOwned>(data: &mut JsonObject, name: &str) -> Result<T, Error> {
    let value = data.remove(name).unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|e| {
        // Signed by this server, so a mismatch means the round's fields changed since.
        tracing::debug!(field = name, error = %e, "round data does not fit the round any more");
        crate::request_state::refused()
    })
}

/// A round name the state carries that this server's rounds do not have (generated code).
#[doc(hidden)]
pub fn unknown_round(round: &str) -> Error {
    tracing::debug!(round, "state names a round that does not exist");
    crate::request_state::refused()
}
