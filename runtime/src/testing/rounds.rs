//! How the test client answers `input_required` rounds: the registered answers, the
//! capabilities they declare, and the retry loop.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::TestClient;
use crate::jsonrpc::ErrorObject;
use crate::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams,
    ElicitResult, ElicitationCapability, InputRequest, InputRequests, JsonObject, ListRootsResult, MayRequireInput,
    OneOrMany, Outcome, Role, Root, SamplingCapability, SamplingContent, TextContent,
};

/// Rounds the test client answers for one call before it fails the test: enough for any
/// real flow, few enough that a handler that never stops asking fails fast instead of hanging.
pub const MAX_ROUNDS: usize = 8;

type ElicitFn = dyn Fn(&ElicitRequestParams) -> ElicitResult + Send + Sync;
type SampleFn = dyn Fn(&CreateMessageRequestParams) -> CreateMessageResult + Send + Sync;

/// What the client answers, by kind of embedded request.
#[derive(Default)]
pub(super) struct Answers {
    elicitation: Option<Box<ElicitFn>>,
    sampling: Option<Box<SampleFn>>,
    roots: Option<Vec<Root>>,
}

impl fmt::Debug for Answers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Answers")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots)
            .finish()
    }
}

impl TestClient {
    /// Answers every `elicitation/create` (form or URL) with `answer`, and declares
    /// `elicitation: {form: {}, url: {}}` unless [`TestClient::with_capabilities`] is used.
    ///
    /// Build the answer with [`accept`], [`decline`] or [`cancel`]; match on the params to
    /// answer forms and URLs, or several forms, differently. See the [module](crate::testing) example.
    pub fn with_elicitation(
        mut self,
        answer: impl Fn(&ElicitRequestParams) -> ElicitResult + Send + Sync + 'static,
    ) -> Self {
        self.answers.elicitation = Some(Box::new(answer));
        self
    }

    /// Answers every `sampling/createMessage` with `answer` (the client's model), and declares
    /// `sampling: {}` unless [`TestClient::with_capabilities`] is used. [`model_reply`] builds
    /// a plain text reply.
    ///
    /// Sampling with tools needs `sampling: {tools: {}}`: declare it with
    /// [`TestClient::with_capabilities`].
    pub fn with_sampling(
        mut self,
        answer: impl Fn(&CreateMessageRequestParams) -> CreateMessageResult + Send + Sync + 'static,
    ) -> Self {
        self.answers.sampling = Some(Box::new(answer));
        self
    }

    /// Answers every `roots/list` with `roots`, and declares `roots: {}` unless
    /// [`TestClient::with_capabilities`] is used.
    pub fn with_roots(mut self, roots: impl IntoIterator<Item = Root>) -> Self {
        self.answers.roots = Some(roots.into_iter().collect());
        self
    }

    /// The explicit capabilities, or else what the registered answers can handle.
    pub(super) fn declared_capabilities(&self) -> ClientCapabilities {
        if let Some(explicit) = &self.capabilities {
            return explicit.clone();
        }
        // A handler sees both modes in `ElicitRequestParams`, so it is taken to handle both.
        let both = ElicitationCapability { form: Some(JsonObject::new()), url: Some(JsonObject::new()) };
        ClientCapabilities {
            elicitation: self.answers.elicitation.is_some().then_some(both),
            sampling: self.answers.sampling.is_some().then(SamplingCapability::default),
            roots: self.answers.roots.is_some().then(JsonObject::new),
            ..ClientCapabilities::default()
        }
    }

    fn can_answer(&self, request: &InputRequest) -> bool {
        match request {
            InputRequest::Elicit { .. } => self.answers.elicitation.is_some(),
            InputRequest::CreateMessage { .. } => self.answers.sampling.is_some(),
            InputRequest::ListRoots { .. } => self.answers.roots.is_some(),
        }
    }

    fn answer(&self, request: &InputRequest) -> Option<Value> {
        let answer = match request {
            InputRequest::Elicit { params } => serde_json::to_value(self.answers.elicitation.as_ref()?(params)),
            InputRequest::CreateMessage { params } => serde_json::to_value(self.answers.sampling.as_ref()?(params)),
            InputRequest::ListRoots { .. } => {
                let roots = self.answers.roots.clone()?;
                serde_json::to_value(ListRootsResult { roots, meta: None })
            }
        };
        Some(answer.expect("an answer serializes"))
    }

    /// The registered answers to a whole round, or `None` if one of its requests has none.
    pub(super) fn answer_all(&self, asked: &InputRequests) -> Option<JsonObject> {
        // No handler runs for a round the client cannot finish, so counters in them stay exact.
        if !asked.values().all(|request| self.can_answer(request)) {
            return None;
        }
        asked.iter().map(|(key, request)| Some((key.clone(), self.answer(request)?))).collect()
    }

    /// Sends `params` to `method`, then answers each `input_required` with `answer` and retries
    /// with the answers and the echoed state, until the result is complete or `answer` gives
    /// up (`None`: that outcome is returned).
    pub(super) async fn play<T, A>(
        &self,
        method: &str,
        what: &str,
        params: Value,
        mut answer: A,
    ) -> Result<Outcome<T>, ErrorObject>
    where
        T: MayRequireInput + DeserializeOwned,
        A: FnMut(&InputRequests) -> Option<JsonObject>,
    {
        let nothing = InputRequests::new();
        let mut outcome = self.request::<Outcome<T>>(method, params.clone()).await?;
        for round in 0.. {
            let Outcome::InputRequired(asked) = &outcome else { break };
            let requests = asked.input_requests.as_ref().unwrap_or(&nothing);
            if round == MAX_ROUNDS {
                panic!(
                    "{what} was still asking for input after {MAX_ROUNDS} answered rounds (now asking: {}); \
                     a handler must complete within {MAX_ROUNDS} rounds under TestClient",
                    summary(requests)
                );
            }
            let Some(responses) = answer(requests) else { break };
            let mut retry = params.clone();
            retry["inputResponses"] = Value::Object(responses);
            if let Some(state) = &asked.request_state {
                retry["requestState"] = Value::String(state.clone());
            }
            outcome = self.request(method, retry).await?;
        }
        Ok(outcome)
    }

    /// The complete result, or a panic naming the first request this client cannot answer.
    pub(super) fn complete<T: MayRequireInput>(&self, what: &str, outcome: Outcome<T>) -> T {
        let asked = match outcome {
            Outcome::Complete(result) => return result,
            Outcome::InputRequired(asked) => asked,
        };
        match asked.input_requests.iter().flatten().find(|(_, request)| !self.can_answer(request)) {
            Some((key, request)) => panic!(
                "{what} asked for `{}` under key {key:?}, and this TestClient has no answer for it: \
                 register one with TestClient::{}",
                method_of(request),
                registration_of(request)
            ),
            None => panic!("{what} asked for input the TestClient did not answer: {asked:?}"),
        }
    }
}

fn method_of(request: &InputRequest) -> &'static str {
    request.method().name()
}

fn registration_of(request: &InputRequest) -> &'static str {
    match request {
        InputRequest::Elicit { .. } => "with_elicitation",
        InputRequest::CreateMessage { .. } => "with_sampling",
        InputRequest::ListRoots { .. } => "with_roots",
    }
}

fn summary(requests: &InputRequests) -> String {
    let each: Vec<String> = requests.iter().map(|(key, request)| format!("{key:?} {}", method_of(request))).collect();
    if each.is_empty() { "nothing".to_owned() } else { each.join(", ") }
}

/// The user submitted the form with `content`, a JSON object of its fields. `Value::Null`
/// accepts without content, the answer to a URL request.
///
/// # Panics
///
/// If `content` is neither an object nor null: the test is wrong.
pub fn accept(content: Value) -> ElicitResult {
    let content = match content {
        Value::Object(fields) => Some(fields),
        Value::Null => None,
        other => panic!("accept takes a JSON object of the form's fields (or null for a URL request), not {other}"),
    };
    ElicitResult { action: ElicitAction::Accept, content }
}

/// The user explicitly said no.
pub fn decline() -> ElicitResult {
    ElicitResult { action: ElicitAction::Decline, content: None }
}

/// The user dismissed the request without deciding.
pub fn cancel() -> ElicitResult {
    ElicitResult { action: ElicitAction::Cancel, content: None }
}

/// The client's model answered `text` (model `test-model`, stop reason `endTurn`).
pub fn model_reply(text: impl Into<String>) -> CreateMessageResult {
    CreateMessageResult {
        role: Role::Assistant,
        content: OneOrMany::One(SamplingContent::Text(TextContent::new(text))),
        model: "test-model".to_owned(),
        stop_reason: Some("endTurn".to_owned()),
        meta: None,
    }
}
