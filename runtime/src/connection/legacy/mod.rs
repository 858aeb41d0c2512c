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
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::in_flight::InFlight;
use crate::context::{Notifier, Principal, RequestContext};
use crate::dispatch::{Front, Layers, McpRequest, McpResponse, Origin, Reply, Stream};
use crate::envelope::read_session_meta;
use crate::error::{Error, ErrorCode, serde_message};
use crate::future::BoxFuture;
use crate::jsonrpc::Request;
use crate::method::{Capability, Method};
use crate::model::{
    ClientCapabilities, EmptyResult, Implementation, InitializeResult, InputRequest, JsonObject, LoggingLevel,
    RequestId, RequestMeta, SetLevelRequestParams, SubscribeRequestParams,
};
use crate::server::Server;
use crate::version::{LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS};
use peer::Peer;

/// The most rounds a legacy request plays out before giving up (a tool that never stops
/// asking would otherwise hold the client's request forever).
pub const MAX_LEGACY_ROUNDS: usize = 8;

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

/// `initialize`'s parameters as the session reads them: leniently (a client that leaves out
/// its capabilities or its name still gets a session), each part's problem said on its own.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Handshake {
    protocol_version: String,
    #[serde(default)]
    capabilities: Option<Box<RawValue>>,
    #[serde(default)]
    client_info: Option<Box<RawValue>>,
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
        match Method::from_name(method) {
            Some(Method::NotificationsCancelled) => self.in_flight.cancel_notified(params),
            Some(Method::NotificationsInitialized | Method::NotificationsRootsListChanged) => {}
            _ => tracing::debug!(method, "notification ignored"),
        }
    }

    /// One request of the session, as the server's layers will see it: its envelope is the
    /// one the handshake settled (the request's own `_meta` adds only its progress token and
    /// trace context), and the session answers it. The stream's notifier is the request's own:
    /// progress, log messages and the requests a round sends to the client travel on it.
    pub(crate) fn request(self: &Arc<Self>, request: Request, stream: Stream, mut origin: Origin) -> McpRequest {
        let envelope = match self.negotiated.get() {
            Some(negotiated) => RequestMeta {
                client_info: negotiated.client_info.clone(),
                log_level: *self.log_level.lock().expect("log level lock"),
                ..RequestMeta::new(LATEST_PROTOCOL_VERSION, negotiated.capabilities.clone())
            },
            // `initialize`, or a request before it (refused): only the trace context counts.
            None => RequestMeta::new(LATEST_PROTOCOL_VERSION, ClientCapabilities::default()),
        };
        let meta = read_session_meta(request.params.as_deref(), envelope).map(Arc::new);
        origin.version = self.version();
        let front: Arc<dyn Front> = self.clone();
        McpRequest::in_session(request, meta, self.principal.clone(), stream, origin, front)
    }

    /// The session's own answer to `request`: to the methods only its revision has, and to
    /// the ones it has no place for; `None` for the rest, which the server's layers answer.
    fn own_answer(&self, request: &McpRequest) -> Option<Result<Reply, Error>> {
        let params = request.raw_params();
        if request.known == Some(Method::Initialize) {
            return Some(self.initialize(params).map(|result| Box::new(result).into()));
        }
        let Some(negotiated) = self.negotiated.get() else {
            return Some(Err(Error::invalid_request("The session is not initialized: send initialize first")));
        };
        self.own_method(request, params, negotiated)
    }

    fn own_method(
        &self,
        request: &McpRequest,
        params: Option<&RawValue>,
        negotiated: &Negotiated,
    ) -> Option<Result<Reply, Error>> {
        let resources = self.server.registry().offers(Capability::Resources);
        let answer = match request.known? {
            Method::Ping => Ok(EmptyResult::default().into()),
            Method::LoggingSetLevel => parse::<SetLevelRequestParams>(params)
                .map_err(|_| {
                    Error::invalid_field(
                        "level",
                        "level must be one of debug, info, notice, warning, error, critical, alert, emergency",
                    )
                })
                .map(|p| {
                    *self.log_level.lock().expect("log level lock") = Some(p.level);
                    EmptyResult::default().into()
                }),
            method @ (Method::ResourcesSubscribe | Method::ResourcesUnsubscribe) if resources => {
                self.subscription(method, request, params, negotiated).map(|()| EmptyResult::default().into())
            }
            // The methods of the stateless revision alone have no place in a session.
            method if !method.revisions().legacy() && method.capability().is_none() => {
                Err(Error::method_not_found(method.name()).with_data(serde_json::json!({
                    "method": method.name(),
                    "reason": format!(
                        "a 2026-07-28 method; send it with _meta outside the {} session",
                        negotiated.version
                    ),
                })))
            }
            _ => return None,
        };
        Some(answer)
    }

    /// `resources/subscribe` or `resources/unsubscribe`.
    fn subscription(
        &self,
        method: Method,
        request: &McpRequest,
        params: Option<&RawValue>,
        negotiated: &Negotiated,
    ) -> Result<(), Error> {
        let p: SubscribeRequestParams = parse(params)?;
        let uri = crate::uri::normalize(&p.uri)
            .ok_or_else(|| Error::invalid_field("uri", format!("Not a valid URI: {}", p.uri)))?;
        if method == Method::ResourcesUnsubscribe {
            self.subscriptions.lock().expect("subscriptions lock").remove(uri.as_str());
        } else {
            self.subscribe(request.id.clone(), uri, negotiated, request.stream.cancellation.clone());
        }
        Ok(())
    }

    fn initialize(&self, params: Option<&RawValue>) -> Result<InitializeResult, Error> {
        let p: Handshake = parse(params)?;
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
        let mut result = InitializeResult::new(version, registry.capabilities.clone(), (*registry.info).clone());
        result.instructions.clone_from(&registry.instructions);
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

    /// Serves the request through the server's layers as a 2026-07-28 request is served,
    /// playing its rounds out with the client: each round's input requests go to the client
    /// as requests of their own, and the request is served again with the answers.
    async fn forward(&self, request: McpRequest, layers: Layers) -> McpResponse {
        let rounds = request.known.is_some_and(Method::may_require_input);
        let mut round = request.again();
        let mut asked_before = 0;
        for _ in 0..MAX_LEGACY_ROUNDS {
            let mut response = layers.answer(round).await;
            response.rounds_asked = asked_before;
            let Reply::InputRequired(asked) = &response.reply else { return response };
            if !rounds {
                return response;
            }
            asked_before += 1;
            round = request.again();
            let stream = &request.stream;
            let asking = self.ask_client(
                asked.input_requests.iter().flatten(),
                stream.notifier.as_ref(),
                &stream.cancellation,
                &stream.shutdown,
            );
            match asking.await {
                Ok(responses) => round.params.answer(responses, asked.request_state.clone()),
                Err(error) => {
                    let mut response = McpResponse::error(request.id.clone(), error);
                    response.rounds_asked = asked_before;
                    return response;
                }
            }
        }
        let mut response = McpResponse::error(
            request.id.clone(),
            Error::new(
                ErrorCode::InternalError,
                format!("The request asked for input more than {MAX_LEGACY_ROUNDS} times; giving up"),
            ),
        );
        response.rounds_asked = asked_before;
        response
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
            let method = request.method();
            let params = match request {
                InputRequest::Elicit { params } => serde_json::value::to_raw_value(params),
                InputRequest::CreateMessage { params } => serde_json::value::to_raw_value(params),
                InputRequest::ListRoots { params: Some(params) } => serde_json::value::to_raw_value(params),
                InputRequest::ListRoots { params: None } => serde_json::value::to_raw_value(&JsonObject::new()),
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

impl Front for Session {
    fn answer(self: Arc<Self>, request: McpRequest, layers: Layers) -> BoxFuture<'static, McpResponse> {
        match self.own_answer(&request) {
            Some(answer) => {
                let response = match answer {
                    Ok(reply) => McpResponse::new(request.id, reply),
                    Err(error) => McpResponse::error(request.id, error),
                };
                Box::pin(std::future::ready(response))
            }
            None => Box::pin(async move { self.forward(request, layers).await }),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

fn parse<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, Error> {
    crate::strict::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| Error::invalid_params(format!("Invalid params: {}", serde_message(&e))))
}
