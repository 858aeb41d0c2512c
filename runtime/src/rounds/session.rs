//! One call of a multi-round tool: resuming from a verified state, asking the next round,
//! and settling single use.

use std::sync::Arc;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::settles::{Settles, spent};
use super::{AnswerSet, Ask, Round, Rounds};
use crate::context::RequestContext;
use crate::error::{Error, Rejection};
use crate::future::Quick;
use crate::method::Method;
use crate::model::{
    ClientCapabilities, ElicitRequestParams, InputRequest, InputRequests, InputRequiredResult, JsonObject, Outcome,
};
use crate::replay::PendingClaim;
use crate::request_state::{Binding, arguments_digest, refused, sign, verify};
use crate::telemetry::{self, Nested, StateRejection, state_rejected};

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
    /// Which exchange asked it (1: the first call), so that the next one knows its number.
    #[serde(rename = "n", default)]
    exchange: u32,
}

/// The claim of the current call, shared with a [`Claim`](super::Claim) parameter.
pub(crate) type ClaimSlot = Arc<tokio::sync::Mutex<Option<Box<dyn PendingClaim>>>>;

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

/// The round machinery of one `tools/call`, `prompts/get` or `resources/read`: the echoed
/// state and answers, what the state is bound to, and the single-use claim.
///
/// A single-use state is claimed durably before the handler runs, so that whatever the store
/// does afterwards no retry can repeat an effect; a handler that failed gives it back. A
/// handler that takes a [`Claim`](super::Claim) or an [`IdempotencyKey`](super::IdempotencyKey)
/// holds the claim open instead, to commit with its effect: with the first the effect rolls
/// back with a claim that did not commit, with the second a retry finds its own key.
pub struct RoundDriver {
    context: RequestContext,
    input_responses: Option<JsonObject>,
    request_state: Option<String>,
    method: Method,
    target: Arc<str>,
    destructive: bool,
    digest: Option<[u8; 32]>,
    session: Option<RoundSession>,
    pending: ClaimSlot,
    /// The handler's effect commits with the claim (it takes `Claim` or `IdempotencyKey`).
    hold: bool,
    /// The claim was committed before the handler ran, and is released if it fails.
    committed: bool,
    /// Which exchange of the request this call is (1: the first call), once the state says.
    exchange: u32,
}

impl std::fmt::Debug for RoundDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoundDriver")
            .field("method", &self.method)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// What turning a handler's return value into its result may need: signing the next round.
pub struct OutcomeContext<'a> {
    driver: &'a RoundDriver,
}

impl<'a> OutcomeContext<'a> {
    pub(crate) fn new(driver: &'a RoundDriver) -> Self {
        OutcomeContext { driver }
    }

    /// Gates, signs and renders the next round.
    pub(crate) fn ask<R: Rounds>(&self, ask: Ask<R>) -> Result<InputRequiredResult, Error> {
        let driver = self.driver;
        let internal = |what: String| {
            tracing::error!(target_name = %driver.target, round = ask.round, "{what}");
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
        let missing = driver.context.client_capabilities().missing(&required);
        if !missing.is_empty() {
            return Err(Error::missing_capability(missing));
        }
        let config = driver.context.rounds();
        let keys = config.keys.as_ref().ok_or_else(|| internal("no state keys are configured".into()))?;
        let binding = driver.binding()?;
        let single_use = ask.single_use.unwrap_or(driver.destructive);
        let stored = StoredRound { data, requests, single_use, exchange: driver.exchange };
        let payload = serde_json::to_vec(&stored).map_err(|e| internal(e.to_string()))?;
        let (token, _) = sign(keys, &binding, ask.round, &payload, config.ttl)?;
        Ok(InputRequiredResult {
            input_requests: Some(stored.requests),
            request_state: Some(token),
            ..Default::default()
        })
    }
}

impl RoundDriver {
    /// The machinery for one request. `uses_rounds` digests the arguments now, before
    /// handlers take them apart, since the state binds them as sent.
    pub(crate) fn new(
        context: RequestContext,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
        method: Method,
        target: Arc<str>,
        destructive: bool,
        arguments: Option<&serde_json::Value>,
    ) -> Self {
        RoundDriver {
            context,
            input_responses,
            request_state,
            method,
            target,
            destructive,
            digest: arguments.map(arguments_digest),
            session: None,
            pending: ClaimSlot::default(),
            hold: false,
            committed: false,
            exchange: 1,
        }
    }

    /// The request being served.
    pub fn context(&self) -> &RequestContext {
        &self.context
    }

    /// The tool name, prompt name or URI.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// `tools/call`, `prompts/get` or `resources/read`.
    pub fn method(&self) -> &'static str {
        self.method.name()
    }

    /// The echoed `requestState`, unverified.
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// The answers of a retry, undecoded and unverified.
    pub fn input_responses(&self) -> Option<&JsonObject> {
        self.input_responses.as_ref()
    }

    /// What converting the handler's return value may need.
    pub fn outcome_context(&self) -> OutcomeContext<'_> {
        OutcomeContext::new(self)
    }

    /// What a state for this request is bound to.
    pub(crate) fn binding(&self) -> Result<Binding, Error> {
        let arguments_digest = self.digest.ok_or_else(|| {
            tracing::error!(target_name = %self.target, "a round was asked by a handler not marked as using rounds");
            Error::internal()
        })?;
        Ok(Binding {
            principal: self.context.principal().name().unwrap_or_default().to_owned(),
            method: self.method.name().to_owned(),
            target: self.target.to_string(),
            arguments_digest,
        })
    }

    /// Where the single-use claim is held while the handler runs.
    pub(crate) fn claim_slot(&self) -> ClaimSlot {
        self.pending.clone()
    }

    /// Keeps the single-use claim open while the handler runs, to commit with its effect: for
    /// a handler whose effect cannot happen twice however often the state is presented.
    pub(crate) fn hold_claim(&mut self) {
        self.hold = true;
    }

    /// The nonce of the echoed state if it verifies, without decoding its round.
    pub(crate) fn verified_nonce(&self) -> Option<[u8; 16]> {
        let token = self.request_state.as_deref()?;
        let keys = self.context.rounds().keys.as_ref()?;
        let binding = self.binding().ok()?;
        verify(keys, token, &binding, SystemTime::now()).ok().map(|claims| claims.nonce)
    }

    /// Resumes the round a state names, or starts.
    pub(crate) fn resume<R: Rounds>(&mut self) -> Result<Round<R>, Rejection> {
        let Some(token) = self.request_state.clone() else {
            telemetry::record_round(self.context.trace(), 1, None);
            return Ok(Round::Start);
        };
        let config = self.context.rounds();
        let Some(keys) = config.keys.as_ref() else {
            tracing::error!(target_name = %self.target, "a requestState arrived but no state keys are configured");
            return Err(Rejection::Protocol(Error::internal()));
        };
        let binding = self.binding().map_err(Rejection::Protocol)?;
        let checking = Nested::state("verify", None);
        let checked: Result<_, Rejection> = checking.in_scope(|| {
            let refuse = |reason: StateRejection| {
                checking.outcome(reason.as_str());
                state_rejected(reason);
                Rejection::Protocol(refused())
            };
            let claims = verify(keys, &token, &binding, SystemTime::now())
                .map_err(|reason| refuse(StateRejection::Verify(reason)))?;
            let stored: StoredRound =
                serde_json::from_slice(&claims.data).map_err(|_| refuse(StateRejection::Undecodable))?;
            checking.outcome("valid");
            Ok((claims, stored))
        });
        drop(checking);
        let (claims, stored) = checked?;
        self.exchange = stored.exchange.saturating_add(1);
        telemetry::record_round(self.context.trace(), self.exchange, Some(&claims.round));
        let mut answers = AnswerSet::new(self.input_responses.as_ref(), &stored.requests);
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
        self.session = Some(RoundSession {
            nonce: claims.nonce,
            expires_at: claims.expires_at,
            single_use: stored.single_use,
            cancelled: answers.cancelled(),
        });
        Ok(Round::Resumed(round))
    }

    /// For a single-use round: claims the state before the handler runs, refusing a replay.
    /// The claim is committed now, unless the handler holds it to commit with its effect (see
    /// [`RoundDriver`]); either way [`settle`](Self::settle) ends it. A store that fails here
    /// answers -31503: nothing began. Ready at once for every other call.
    pub fn begin_single_use(&mut self) -> Quick<'_, Result<(), Error>> {
        match self.session.as_ref().filter(|s| s.single_use).cloned() {
            None => Quick::ready(Ok(())),
            Some(session) => Quick::waiting(self.claim(session)),
        }
    }

    async fn claim(&mut self, session: RoundSession) -> Result<(), Error> {
        let store = self.context.rounds().store.clone();
        let claiming = Nested::state("claim", store.system());
        let pending = match claiming.wrap(store.begin(session.nonce, session.expires_at)).await {
            Ok(Some(pending)) => {
                claiming.outcome("claimed");
                pending
            }
            Ok(None) => {
                claiming.outcome(StateRejection::Replayed.as_str());
                state_rejected(StateRejection::Replayed);
                return Err(refused());
            }
            Err(e) => return Err(e.refusal()),
        };
        drop(claiming);
        if self.hold {
            *self.pending.lock().await = Some(pending);
            return Ok(());
        }
        let settling = Nested::state("settle", store.system());
        settling.wrap(pending.commit()).await.map_err(|e| e.refusal())?;
        self.committed = true;
        Ok(())
    }

    /// Settles a single-use claim from the handler's result: a completed round (a result that
    /// is not a failure, or a next round) uses the state up; a failure, an error or a cancel
    /// leaves it usable until it expires. A claim the handler held commits now (-31503 if it
    /// cannot: its effect rolled back with it, or is keyed on the state). A claim committed
    /// before the handler is released; if the store cannot be written, the state is spent and
    /// the answer says to start the call again. Ready at once when the call claimed nothing
    /// (only a single-use round claims).
    pub fn settle<T: Settles + crate::model::MayRequireInput + Send + 'static>(
        &mut self,
        outcome: Result<Outcome<T>, Error>,
    ) -> Quick<'_, Result<Outcome<T>, Error>> {
        if self.session.as_ref().is_some_and(|s| s.single_use) {
            Quick::waiting(self.settle_claim(outcome))
        } else {
            Quick::ready(outcome)
        }
    }

    async fn settle_claim<T: Settles + crate::model::MayRequireInput>(
        &mut self,
        outcome: Result<Outcome<T>, Error>,
    ) -> Result<Outcome<T>, Error> {
        let cancelled = self.session.as_ref().is_some_and(|s| s.cancelled);
        let consume = match &outcome {
            Ok(Outcome::InputRequired(_)) => true,
            Ok(Outcome::Complete(result)) => !result.failed() && !cancelled,
            Err(_) => false,
        };
        if std::mem::take(&mut self.committed) {
            return if consume { outcome } else { self.release(outcome).await };
        }
        let Some(pending) = self.pending.lock().await.take() else { return outcome };
        if consume {
            let settling = Nested::state("settle", self.context.rounds().store.system());
            settling.wrap(pending.commit()).await.map_err(|e| e.refusal())?;
        }
        outcome
    }

    /// Gives back the state of a handler that did not use it. If the store cannot be written
    /// the state stays used, and the client must hear so: a retry would be refused.
    async fn release<T: Settles + crate::model::MayRequireInput>(
        &self,
        outcome: Result<Outcome<T>, Error>,
    ) -> Result<Outcome<T>, Error> {
        let Some(session) = self.session.as_ref() else { return outcome };
        let store = &self.context.rounds().store;
        let releasing = Nested::state("release", store.system());
        let Err(e) = releasing.wrap(store.release(session.nonce)).await else {
            releasing.outcome("released");
            return outcome;
        };
        releasing.outcome("spent");
        tracing::warn!(
            target_name = %self.target,
            error = %e,
            "a single-use state could not be given back after its call did not use it: it is spent"
        );
        let (failed, failure) = match &outcome {
            Err(error) => (true, Some(error.message().to_owned())),
            Ok(Outcome::Complete(result)) => (result.failed(), result.failure_text()),
            Ok(Outcome::InputRequired(_)) => (false, None),
        };
        Err(spent(!failed, failure))
    }

    /// The answers a first call brought without a state; none on a retry with one.
    pub(crate) fn preanswered(&mut self) -> super::Preanswered {
        match self.request_state {
            Some(_) => super::Preanswered::default(),
            None => super::Preanswered::new(self.input_responses.take()),
        }
    }

    /// Answers a rejected parameter as `answer` says, unless it would ask the same questions
    /// again of a state already used. Ready at once when nothing needs checking.
    pub(crate) fn reject<T: crate::model::MayRequireInput + Send + 'static>(
        &mut self,
        rejection: Rejection,
        answer: fn(Rejection) -> Result<Outcome<T>, Error>,
    ) -> Quick<'_, Result<Outcome<T>, Error>> {
        let Rejection::Reask { nonce: Some(nonce), .. } = rejection else {
            return Quick::ready(answer(rejection));
        };
        Quick::waiting(async move {
            self.may_reask(nonce).await?;
            answer(rejection)
        })
    }

    /// Whether asking the same questions again of the single-use state `nonce` is allowed: not
    /// when it was already used.
    async fn may_reask(&mut self, nonce: [u8; 16]) -> Result<(), Error> {
        let store = &self.context.rounds().store;
        let checking = Nested::state("check", store.system());
        let used = checking.wrap(store.is_claimed(nonce)).await.map_err(|e| e.refusal())?;
        if used {
            state_rejected(StateRejection::Replayed);
            return Err(refused());
        }
        Ok(())
    }
}
