//! Clients of revision 2025-11-25 (and 2025-06-18): the `initialize` handshake and the session
//! it opens.
//!
//! A legacy session is a translation in front of the same dispatch, not a second server. Each
//! of its requests is given the envelope the handshake negotiated and is served exactly as a
//! 2026-07-28 request is, through the same layers. A multi-round answer is not handed back:
//! its typed input requests go to the client as live requests, and the answers return through
//! the same round machinery (answer validation, the signed `requestState`, single-use
//! claims), so a tool cannot tell the eras apart and user code is written once. The session
//! itself answers only what has no 2026-07-28 counterpart: `initialize`, `ping`,
//! `logging/setLevel`, `resources/subscribe`/`unsubscribe`, and the change notifications those
//! subscriptions ask for (see [`changes`]).
//!
//! Sessions are kept apart from the stateless path: a request carrying the 2026-07-28 `_meta`
//! is never served by a session, and a session never widens what a principal may do (roots a
//! client reports are answers to a tool's question, never authorization).

mod changes;
mod peer;

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::in_flight::InFlight;
use crate::context::{Notifier, Principal, RequestContext};
use crate::dispatch::encode::Era;
use crate::dispatch::{Encoded, McpRequest, McpResponse, Origin, Reply, Stream};
use crate::envelope::read_session_meta;
use crate::error::{Error, ErrorCode, serde_message};
use crate::jsonrpc::{Request, encode_result};
use crate::middleware::telemetry;
use crate::model::notifications::CANCELLED;
use crate::model::{
    ClientCapabilities, Implementation, InputRequest, JsonObject, LoggingLevel, RequestId, RequestMeta, TraceContext,
};
use crate::server::Server;
use crate::telemetry::{Ending, Observed, RequestInfo, Scope, Target};
use crate::version::{LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS};
use peer::Peer;

/// The most rounds a legacy request plays out before giving up (a tool that never stops
/// asking would otherwise hold the client's request forever).
pub const MAX_LEGACY_ROUNDS: usize = 8;

/// Methods whose results may ask for input (and are played out as live requests here).
const ROUND_METHODS: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// What the handshake settled.
#[derive(Debug)]
struct Negotiated {
    version: &'static str,
    capabilities: ClientCapabilities,
    client_info: Option<Implementation>,
}

/// One legacy session: a stdio connection, or an HTTP `Mcp-Session-Id`.
#[derive(Debug)]
pub(crate) struct Session {
    server: Server,
    principal: Principal,
    negotiated: std::sync::OnceLock<Negotiated>,
    log_level: Mutex<Option<LoggingLevel>>,
    subscriptions: Mutex<HashSet<Arc<str>>>,
    peer: Peer,
    /// Where notifications outside any request go (stdout, or the session's GET stream).
    sink: Mutex<Option<Notifier>>,
    /// Requests in flight that `notifications/cancelled` may name (HTTP; a stdio connection
    /// keeps its own).
    pub(crate) in_flight: InFlight,
    closed: CancellationToken,
}

#[derive(Deserialize)]
struct CancelledParams {
    #[serde(rename = "requestId")]
    request_id: RequestId,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeParams {
    protocol_version: String,
    #[serde(default)]
    capabilities: Option<Box<RawValue>>,
    #[serde(default)]
    client_info: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct SetLevelParams {
    level: String,
}

#[derive(Deserialize)]
struct SubscribeParams {
    uri: String,
}

impl Session {
    /// A session for `principal`, not yet initialized. `sink` receives notifications that
    /// belong to no request (stdio has one from the start; HTTP gets one with its GET stream).
    pub(crate) fn new(server: &Server, principal: Principal, sink: Option<Notifier>) -> Arc<Self> {
        let session = Arc::new(Session {
            server: server.clone(),
            principal,
            negotiated: std::sync::OnceLock::new(),
            log_level: Mutex::new(None),
            subscriptions: Mutex::new(HashSet::new()),
            peer: Peer::default(),
            sink: Mutex::new(sink),
            in_flight: InFlight::default(),
            closed: CancellationToken::new(),
        });
        changes::watch(&session);
        session
    }

    /// The principal the session was opened by; nobody else may use it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The version the handshake settled on, once it has.
    pub(crate) fn version(&self) -> Option<&'static str> {
        self.negotiated.get().map(|n| n.version)
    }

    /// Where notifications outside requests go from now on (`None`: nowhere).
    pub(crate) fn set_sink(&self, sink: Option<Notifier>) {
        *self.sink.lock().expect("sink lock") = sink;
    }

    /// Attaches a notification stream, unless one is attached already.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn attach_sink(&self, sink: Notifier) -> bool {
        let mut slot = self.sink.lock().expect("sink lock");
        if slot.as_ref().is_some_and(|s| !s.is_closed()) {
            return false;
        }
        *slot = Some(sink);
        true
    }

    /// Whether a notifications stream is attached.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn has_sink(&self) -> bool {
        self.sink.lock().expect("sink lock").as_ref().is_some_and(|s| !s.is_closed())
    }

    /// Ends the session: requests waiting on the client fail, change notifications stop.
    pub(crate) fn close(&self) {
        self.closed.cancel();
        self.peer.close();
        self.set_sink(None);
    }

    /// Delivers a response from the client; `false` if it answers nothing we asked.
    pub(crate) fn answer(&self, bytes: &[u8]) -> bool {
        self.peer.answer(bytes)
    }

    /// A notification from the client.
    pub(crate) fn notification(&self, method: &str, params: Option<&RawValue>) {
        match method {
            CANCELLED => match serde_json::from_str::<CancelledParams>(params.map_or("null", RawValue::get)) {
                Ok(p) => self.in_flight.cancel(&p.request_id),
                Err(_) => tracing::debug!("notifications/cancelled without a usable requestId ignored"),
            },
            "notifications/initialized" | "notifications/roots/list_changed" => {}
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    /// Answers one request of the session. The stream's notifier is the request's own:
    /// progress, log messages and the requests a round sends to the client travel on it.
    pub(crate) fn handle(
        self: &Arc<Self>,
        request: Request,
        stream: Stream,
        origin: Origin,
    ) -> impl Future<Output = Encoded> + Send + use<> {
        let session = self.clone();
        let mut observed = session.observe(&request, &origin);
        let scope = Scope::of(observed.as_mut());
        let answering = async move {
            let id = request.id.clone();
            let answer = match session.answer_request(request, stream, observed.as_ref()).await {
                Ok(Own(result)) => {
                    if let Some(observed) = &mut observed {
                        observed.finish(Ending::Complete, true);
                    }
                    return Encoded { bytes: encode_result(&id, &result), error: None, retry_after: None, scope: None };
                }
                Ok(Forwarded(response)) => response,
                Err(error) => McpResponse::error(id, error),
            };
            if let Some(observed) = &mut observed {
                telemetry::finish(observed, answer.reply());
            }
            session.server.encode(answer, Era::Legacy)
        };
        scope.wrap(answering)
    }

    /// Opens the server span of a session request, when the server observes requests and
    /// someone would see it.
    fn observe(&self, request: &Request, origin: &Origin) -> Option<Observed> {
        if !self.server.observes() || !crate::telemetry::wanted() {
            return None;
        }
        /// What a span needs of the parameters, read before anything else runs.
        #[derive(Default, Deserialize)]
        struct Peek {
            #[serde(default)]
            name: Option<String>,
            #[serde(default)]
            uri: Option<String>,
            #[serde(default, rename = "_meta")]
            meta: Option<TraceContext>,
        }
        let peek: Peek = request.params.as_deref().and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or_default();
        let target = match &*request.method {
            "tools/call" | "prompts/get" => peek.name.as_deref(),
            "resources/read" => peek.uri.as_deref(),
            _ => None,
        };
        Observed::start(&RequestInfo {
            method: &request.method,
            id: &request.id,
            target: Target::of(&request.method, target),
            protocol_version: self.version(),
            session: origin.session.as_deref(),
            transport: origin.transport,
            trace: peek.meta.as_ref(),
            transport_trace: origin.trace.as_deref(),
        })
    }

    async fn answer_request(
        &self,
        request: Request,
        stream: Stream,
        observed: Option<&Observed>,
    ) -> Result<Answered, Error> {
        let Request { id, method, params } = request;
        if &*method == "initialize" {
            return self.initialize(params.as_deref()).map(Own);
        }
        let Some(negotiated) = self.negotiated.get() else {
            return Err(Error::invalid_request("The session is not initialized: send initialize first"));
        };
        let capabilities = &self.server.registry().capabilities;
        match &*method {
            "ping" => Ok(Own(json!({}))),
            "logging/setLevel" => {
                let p: SetLevelParams = parse(params.as_deref())?;
                let level = LoggingLevel::parse(&p.level).ok_or_else(|| {
                    Error::invalid_field(
                        "level",
                        "level must be one of debug, info, notice, warning, error, critical, alert, emergency",
                    )
                })?;
                *self.log_level.lock().expect("log level lock") = Some(level);
                Ok(Own(json!({})))
            }
            "resources/subscribe" | "resources/unsubscribe" if capabilities.resources.is_some() => {
                let p: SubscribeParams = parse(params.as_deref())?;
                let uri = crate::uri::normalize(&p.uri)
                    .ok_or_else(|| Error::invalid_field("uri", format!("Not a valid URI: {}", p.uri)))?;
                if &*method == "resources/unsubscribe" {
                    self.subscriptions.lock().expect("subscriptions lock").remove(uri.as_str());
                } else {
                    self.subscribe(id, uri, negotiated, stream.cancellation);
                }
                Ok(Own(json!({})))
            }
            "server/discover" | "subscriptions/listen" => Err(Error::method_not_found(&method).with_data(json!({
                "method": &*method,
                "reason": format!("a 2026-07-28 method; send it with _meta outside the {} session", negotiated.version),
            }))),
            _ => self.forward(id, method, params, negotiated, stream, observed).await.map(Forwarded),
        }
    }

    fn initialize(&self, params: Option<&RawValue>) -> Result<Value, Error> {
        let p: InitializeParams = parse(params)?;
        let raw_capabilities = p.capabilities.as_deref().map_or("{}", RawValue::get);
        let capabilities: ClientCapabilities = crate::strict::from_str(raw_capabilities).map_err(|e| {
            Error::invalid_field("capabilities", format!("Malformed capabilities: {}", serde_message(&e)))
        })?;
        let client_info = match &p.client_info {
            Some(info) => Some(crate::strict::from_str::<Implementation>(info.get()).map_err(|_| {
                Error::invalid_field("clientInfo", "clientInfo must be an object with string name and version")
            })?),
            None => None,
        };
        // The client's version when this server speaks it, else the newest this server does.
        let version = LEGACY_PROTOCOL_VERSIONS
            .iter()
            .find(|v| **v == p.protocol_version)
            .copied()
            .unwrap_or(LEGACY_PROTOCOL_VERSIONS[0]);
        if self.negotiated.set(Negotiated { version, capabilities, client_info }).is_err() {
            return Err(Error::invalid_request("The session is already initialized"));
        }
        let registry = self.server.registry();
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": registry.capabilities,
            "serverInfo": &*registry.info,
        });
        if let Some(instructions) = &registry.instructions {
            result["instructions"] = json!(instructions);
        }
        Ok(result)
    }

    /// Subscribes to `uri`, if the server's policy lets this principal; a refused URI is not
    /// subscribed, and the answer does not say whether it exists.
    fn subscribe(&self, id: RequestId, uri: String, negotiated: &Negotiated, cancellation: CancellationToken) {
        let meta = RequestMeta::new(LATEST_PROTOCOL_VERSION, negotiated.capabilities.clone());
        let registry = self.server.registry();
        let context = RequestContext::new(id, meta, self.principal.clone(), cancellation, registry.shared.clone());
        if (registry.subscriptions)(&context, &uri) {
            self.subscriptions.lock().expect("subscriptions lock").insert(uri.into());
        } else {
            tracing::debug!("subscription refused by the server's policy");
        }
    }

    /// Serves the request on the stateless path, playing out its rounds with the client.
    async fn forward(
        &self,
        id: RequestId,
        method: Box<str>,
        params: Option<Box<RawValue>>,
        negotiated: &Negotiated,
        stream: Stream,
        observed: Option<&Observed>,
    ) -> Result<McpResponse, Error> {
        let envelope = RequestMeta {
            client_info: negotiated.client_info.clone(),
            log_level: *self.log_level.lock().expect("log level lock"),
            ..RequestMeta::new(LATEST_PROTOCOL_VERSION, negotiated.capabilities.clone())
        };
        let meta = read_session_meta(params.as_deref(), envelope).map(Arc::new);
        let rounds = ROUND_METHODS.contains(&&*method);
        let Stream { cancellation, notifier, shutdown } = stream;
        let mut answers: Option<(JsonObject, Option<String>)> = None;
        for _ in 0..MAX_LEGACY_ROUNDS {
            let stream =
                Stream { cancellation: cancellation.clone(), notifier: notifier.clone(), shutdown: shutdown.clone() };
            let mut request = McpRequest::with_meta(
                id.clone(),
                method.clone(),
                params.clone(),
                meta.clone(),
                self.principal.clone(),
                stream,
            );
            if let Some((responses, state)) = answers.take() {
                request.params.answer(responses, state);
            }
            let trace = observed.map(|observed| observed.trace.clone()).unwrap_or_default();
            let response = self.server.call_within(request, &trace).await;
            let Reply::InputRequired(asked) = &response.reply else { return Ok(response) };
            if !rounds {
                return Ok(response);
            }
            if let Some(observed) = observed {
                observed.round_asked();
            }
            let responses = self
                .ask_client(asked.input_requests.iter().flatten(), notifier.as_ref(), &cancellation, &shutdown)
                .await?;
            answers = Some((responses, asked.request_state.clone()));
        }
        Err(Error::new(
            ErrorCode::InternalError,
            format!("The request asked for input more than {MAX_LEGACY_ROUNDS} times; giving up"),
        ))
    }

    /// Sends each request a round asks to the client, in order, and collects the answers
    /// under their keys.
    async fn ask_client(
        &self,
        requests: impl Iterator<Item = (&String, &InputRequest)>,
        notifier: Option<&Notifier>,
        cancellation: &CancellationToken,
        shutdown: &CancellationToken,
    ) -> Result<JsonObject, Error> {
        let mut responses = JsonObject::new();
        let mut requests = requests.peekable();
        if requests.peek().is_none() {
            // Only a requestState (the server shed load): retry at once with it.
            return Ok(responses);
        }
        let Some(notifier) = notifier else {
            return Err(Error::invalid_request(
                "This request needs input from the client, and its connection cannot carry requests to the \
                 client: accept text/event-stream on the POST",
            ));
        };
        for (key, request) in requests {
            let (method, params) = match request {
                InputRequest::Elicit { params } => ("elicitation/create", serde_json::value::to_raw_value(params)),
                InputRequest::CreateMessage { params } => {
                    ("sampling/createMessage", serde_json::value::to_raw_value(params))
                }
                InputRequest::ListRoots { params: Some(params) } => {
                    ("roots/list", serde_json::value::to_raw_value(params))
                }
                InputRequest::ListRoots { params: None } => ("roots/list", serde_json::value::to_raw_value(&json!({}))),
            };
            let params = params.map_err(|e| Error::internal_from(&e))?;
            let answer = tokio::select! {
                biased;
                () = self.closed.cancelled() => return Err(Error::invalid_request("The session was closed")),
                // Input ended (or the server is stopping): no answer can come any more, and the
                // request must not hold the shutdown up.
                () = shutdown.cancelled() => {
                    return Err(Error::invalid_request(format!(
                        "The client's input ended before it answered {method}"
                    )));
                }
                answer = self.peer.request(notifier, method, &params, cancellation) => answer?,
            };
            // What the client answered goes back as it is; the round checks it.
            let answer: Value = serde_json::from_str(answer.get()).map_err(|e| Error::internal_from(&e))?;
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

/// What a session request was answered with: a result of the session's own, or what dispatch
/// answered.
#[allow(clippy::large_enum_variant)] // moved once, to be encoded
enum Answered {
    Own(Value),
    Forwarded(McpResponse),
}
use Answered::{Forwarded, Own};

fn parse<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, Error> {
    crate::strict::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| Error::invalid_params(format!("Invalid params: {}", serde_message(&e))))
}
