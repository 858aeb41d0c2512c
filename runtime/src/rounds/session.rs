//! One call of a multi-round tool: resuming from a verified state, asking the next round,
//! and settling single use.

use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::{AnswerSet, Ask, Round, Rounds};
use crate::error::Error;
use crate::model::{
    CallToolResult, ClientCapabilities, ElicitRequestParams, InputRequest, InputRequests, InputRequiredResult,
    JsonObject, Outcome,
};
use crate::request_state::{refused, sign, verify};
use crate::schema::InputSchema;
use crate::tool::{Rejection, ToolInvocation, ToolParam};

/// What the signed state keeps besides the binding: the round's data, the requests that were
/// sent (to validate answers against exactly them, and to ask again when answers are
/// missing), and whether the round is single use.
#[derive(Serialize, Deserialize)]
struct StoredRound {
    #[serde(rename = "d")]
    data: JsonObject,
    #[serde(rename = "q")]
    requests: InputRequests,
    #[serde(rename = "s")]
    single_use: bool,
}

/// The verified state of the current call.
#[derive(Debug, Clone)]
pub(crate) struct RoundSession {
    pub(crate) nonce: [u8; 16],
    pub(crate) expires_at: SystemTime,
    pub(crate) single_use: bool,
    pub(crate) cancelled: bool,
}

/// The client capabilities an embedded request needs.
pub(crate) fn required_capabilities(request: &InputRequest) -> ClientCapabilities {
    use crate::model::{ElicitationCapability, SamplingCapability};
    let mut required = ClientCapabilities::default();
    match request {
        InputRequest::Elicit { params: ElicitRequestParams::Form(_) } => {
            required.elicitation = Some(ElicitationCapability::form());
        }
        InputRequest::Elicit { params: ElicitRequestParams::Url(_) } => {
            required.elicitation = Some(ElicitationCapability::url());
        }
        InputRequest::CreateMessage { params } => {
            let tools = params.tools.is_some() || params.tool_choice.is_some();
            required.sampling = Some(SamplingCapability { tools: tools.then(JsonObject::new), context: None });
        }
        InputRequest::ListRoots { .. } => required.roots = Some(JsonObject::new()),
    }
    required
}

fn merge(into: &mut ClientCapabilities, more: ClientCapabilities) {
    if let Some(e) = more.elicitation {
        let target = into.elicitation.get_or_insert_with(Default::default);
        target.form = target.form.take().or(e.form);
        target.url = target.url.take().or(e.url);
    }
    if let Some(s) = more.sampling {
        let target = into.sampling.get_or_insert_with(Default::default);
        target.tools = target.tools.take().or(s.tools);
        target.context = target.context.take().or(s.context);
    }
    if more.roots.is_some() {
        into.roots = more.roots;
    }
}

/// What turning a tool's return value into its result may need: signing the next round.
pub struct OutcomeContext<'a> {
    invocation: &'a ToolInvocation,
}

impl<'a> OutcomeContext<'a> {
    pub(crate) fn new(invocation: &'a ToolInvocation) -> Self {
        OutcomeContext { invocation }
    }

    /// Gates, signs and renders the next round.
    pub(crate) fn ask<R: Rounds>(&self, ask: Ask<R>) -> Result<InputRequiredResult, Error> {
        let internal = |what: String| {
            tracing::error!(tool = self.invocation.tool_name(), round = ask.round, "{what}");
            Error::internal()
        };
        let data = ask.data.clone().map_err(internal)?;
        let mut requests = InputRequests::new();
        let mut required = ClientCapabilities::default();
        for (key, request) in ask.requests {
            let request = request.map_err(|e| internal(format!("request `{key}`: {e}")))?;
            merge(&mut required, required_capabilities(&request));
            requests.insert(key.to_owned(), request);
        }
        // Nothing the client did not declare for this very request is ever embedded.
        let missing = self.invocation.context().client_capabilities().missing(&required);
        if !missing.is_empty() {
            return Err(Error::missing_capability(missing));
        }
        let config = self.invocation.context().rounds();
        let keys = config.keys.as_ref().ok_or_else(|| internal("no state keys are configured".into()))?;
        let binding = self.invocation.binding()?;
        let single_use = ask.single_use.unwrap_or(self.invocation.destructive());
        let stored = StoredRound { data, requests, single_use };
        let payload = serde_json::to_vec(&stored).map_err(|e| internal(e.to_string()))?;
        let (token, _) = sign(keys, &binding, ask.round, &payload, config.ttl)?;
        Ok(InputRequiredResult {
            input_requests: Some(stored.requests),
            request_state: Some(token),
            ..Default::default()
        })
    }
}

impl ToolInvocation {
    /// Resumes the round a state names, or starts.
    pub(crate) fn resume<R: Rounds>(&mut self) -> Result<Round<R>, Rejection> {
        let Some(token) = self.request_state().map(str::to_owned) else { return Ok(Round::Start) };
        let config = self.context().rounds();
        let Some(keys) = config.keys.as_ref() else {
            tracing::error!(tool = self.tool_name(), "a requestState arrived but no state keys are configured");
            return Err(Rejection::Protocol(Error::internal()));
        };
        let binding = self.binding().map_err(Rejection::Protocol)?;
        let claims = verify(keys, &token, &binding, SystemTime::now()).map_err(|reason| {
            tracing::debug!(tool = self.tool_name(), ?reason, "requestState refused");
            Rejection::Protocol(refused())
        })?;
        let stored: StoredRound = serde_json::from_slice(&claims.data).map_err(|_| Rejection::Protocol(refused()))?;
        let responses = self.input_responses();
        let mut answers = AnswerSet::new(responses, &stored.requests);
        if !answers.missing().is_empty() {
            // Ask again, with the same state: the retry lacked answers, which is not an error.
            return Err(Rejection::Reask {
                result: Box::new(InputRequiredResult {
                    input_requests: Some(stored.requests.clone()),
                    request_state: Some(token),
                    ..Default::default()
                }),
                nonce: stored.single_use.then_some(claims.nonce),
            });
        }
        let round = R::resume(&claims.round, stored.data.clone(), &mut answers).map_err(Rejection::Protocol)?;
        let cancelled = answers.cancelled();
        self.set_session(RoundSession {
            nonce: claims.nonce,
            expires_at: claims.expires_at,
            single_use: stored.single_use,
            cancelled,
        });
        Ok(Round::Resumed(round))
    }

    /// For a single-use round: takes the nonce before the tool runs, refusing a replay. The
    /// claim is held while the tool runs and settled by [`settle`](Self::settle).
    pub async fn begin_single_use(&mut self) -> Result<(), Error> {
        let Some(session) = self.session().filter(|s| s.single_use).cloned() else { return Ok(()) };
        let store = self.context().rounds().store.clone();
        match store.begin(session.nonce, session.expires_at).await {
            Ok(Some(pending)) => {
                self.set_pending(pending);
                Ok(())
            }
            Ok(None) => {
                tracing::debug!(tool = self.tool_name(), "single-use requestState presented again");
                Err(refused())
            }
            Err(e) => Err(Error::internal_from(&e)),
        }
    }

    /// Settles a single-use claim from the tool's result: a completed round (a result that is
    /// not an error, or a next round) consumes the state; a failure, an error or a cancel
    /// leaves it usable until it expires.
    pub async fn settle(
        &mut self,
        outcome: Result<Outcome<CallToolResult>, Error>,
    ) -> Result<Outcome<CallToolResult>, Error> {
        let Some(pending) = self.take_pending() else { return outcome };
        let cancelled = self.session().is_some_and(|s| s.cancelled);
        let consume = match &outcome {
            Ok(Outcome::InputRequired(_)) => true,
            Ok(Outcome::Complete(result)) => !result.is_error() && !cancelled,
            Err(_) => false,
        };
        if consume {
            pending.commit().await.map_err(|e| Error::internal_from(&e))?;
        }
        outcome
    }

    /// Answers a rejected parameter: a tool error, a protocol error, or the same questions
    /// again (unless the state was already used).
    pub async fn reject(&mut self, rejection: Rejection) -> Result<Outcome<CallToolResult>, Error> {
        if let Rejection::Reask { nonce: Some(nonce), .. } = &rejection {
            let used = self.context().rounds().store.is_claimed(*nonce).await.map_err(|e| Error::internal_from(&e))?;
            if used {
                return Err(refused());
            }
        }
        rejection.into_outcome()
    }
}

impl<R: Rounds> ToolParam for Round<R> {
    const USES_ROUNDS: bool = true;

    fn describe(_: &mut InputSchema, _: &str, _: Option<&str>) {}

    fn extract(invocation: &mut ToolInvocation, _: &str) -> Result<Self, Rejection> {
        invocation.resume::<R>()
    }
}
