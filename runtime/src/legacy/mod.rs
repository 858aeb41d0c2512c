//! Clients of revision 2025-11-25 (and 2025-06-18): the `initialize` handshake and the session
//! it opens.
//!
//! A legacy session is a translation in front of the same router, not a second server. Each
//! of its requests is given the `_meta` envelope the handshake negotiated and is served exactly
//! as a 2026-07-28 request is. A multi-round result is not handed back: its embedded requests
//! go to the client as live requests, and the answers return through the same round machinery
//! (answer validation, the signed `requestState`, single-use claims), so a tool cannot tell
//! the eras apart and user code is written once. The session itself answers only what has no
//! 2026-07-28 counterpart: `initialize`, `ping`, `logging/setLevel`,
//! `resources/subscribe`/`unsubscribe`, and the change notifications those subscriptions ask
//! for, taken from the same [`Changes`](crate::Changes) that `subscriptions/listen` reads.
//!
//! Sessions are kept apart from the stateless path: a request carrying the 2026-07-28 `_meta`
//! is never served by a session, and a session never widens what a principal may do (roots a
//! client reports are answers to a tool's question, never authorization).

mod peer;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex, Weak};

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::changes::{ChangeEvent, Signal};
use crate::context::{Notifier, Principal, RequestContext};
use crate::error::{Error, ErrorCode, serde_message};
use crate::jsonrpc::{ErrorObject, Request, RequestId, encode_error, encode_notification, encode_result};
use crate::model::notifications::CANCELLED;
use crate::model::subscriptions::{PROMPTS_LIST_CHANGED, RESOURCE_UPDATED, RESOURCES_LIST_CHANGED, TOOLS_LIST_CHANGED};
use crate::model::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, ClientCapabilities, Implementation, LOG_LEVEL_KEY, LoggingLevel,
    PROTOCOL_VERSION_KEY, RequestMeta, SERVER_INFO_KEY,
};
use crate::server::{Call, Response, Server};
use crate::version::{LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS};

pub(crate) use peer::Peer;

/// The most rounds a legacy request plays out before giving up (a tool that never stops
/// asking would otherwise hold the client's request forever).
pub const MAX_LEGACY_ROUNDS: usize = 8;

/// Methods whose results may ask for input (and are played out as live requests here).
const ROUND_METHODS: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// Requests a round may embed, and so the only ones sent to the client.
const INPUT_METHODS: &[&str] = &["elicitation/create", "sampling/createMessage", "roots/list"];

/// Result members of 2026-07-28 that 2025 results do not have.
const MODERN_RESULT_MEMBERS: &[&str] = &["resultType", "ttlMs", "cacheScope"];

/// A JSON object whose members stay raw: requests and results are translated by their
/// top-level members only, without decoding what they hold.
type RawObject = IndexMap<String, Box<RawValue>>;

/// What the handshake settled.
#[derive(Debug)]
struct Negotiated {
    version: &'static str,
    capabilities: ClientCapabilities,
    raw_capabilities: Box<RawValue>,
    client_info: Option<Box<RawValue>>,
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
    /// Requests in flight that `notifications/cancelled` may name (HTTP; stdio keeps its own).
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    closed: CancellationToken,
}

/// A request of the session in flight; it stops being cancellable by id when dropped.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct InFlight {
    session: Arc<Session>,
    id: RequestId,
    /// Cancelled by `notifications/cancelled` naming the request.
    pub(crate) token: CancellationToken,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.session.in_flight.lock().expect("in-flight lock").remove(&self.id);
    }
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

/// Whether a request carries the 2026-07-28 envelope (and so belongs to the stateless path).
pub(crate) fn is_modern(params: Option<&RawValue>) -> bool {
    #[derive(Deserialize)]
    struct Outer<'a> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Meta<'a> {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
        version: Option<&'a RawValue>,
    }
    let Some(params) = params else { return false };
    let Ok(Outer { meta: Some(meta) }) = serde_json::from_str::<Outer<'_>>(params.get()) else { return false };
    serde_json::from_str::<Meta<'_>>(meta.get()).is_ok_and(|m| m.version.is_some_and(|v| v.get() != "null"))
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
            in_flight: Mutex::new(HashMap::new()),
            closed: CancellationToken::new(),
        });
        session.watch_changes();
        session
    }

    /// The principal the session was opened by; nobody else may use it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The version the handshake settled on, once it has.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn version(&self) -> Option<&'static str> {
        self.negotiated.get().map(|n| n.version)
    }

    /// Where notifications outside requests go from now on (`None`: nowhere).
    pub(crate) fn set_sink(&self, sink: Option<Notifier>) {
        *self.sink.lock().expect("sink lock") = sink;
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

    /// Registers request `id` so that `notifications/cancelled` can reach it; `None` when a
    /// request with that id is already in flight.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn begin(self: &Arc<Self>, id: &RequestId) -> Option<InFlight> {
        let mut in_flight = self.in_flight.lock().expect("in-flight lock");
        if in_flight.contains_key(id) {
            return None;
        }
        let token = CancellationToken::new();
        in_flight.insert(id.clone(), token.clone());
        Some(InFlight { session: self.clone(), id: id.clone(), token })
    }

    /// A notification from the client.
    pub(crate) fn notification(&self, method: &str, params: Option<&RawValue>) {
        match method {
            CANCELLED => match serde_json::from_str::<CancelledParams>(params.map_or("null", RawValue::get)) {
                Ok(p) => {
                    if let Some(token) = self.in_flight.lock().expect("in-flight lock").get(&p.request_id) {
                        token.cancel();
                    }
                }
                Err(_) => tracing::debug!("notifications/cancelled without a usable requestId ignored"),
            },
            "notifications/initialized" | "notifications/roots/list_changed" => {}
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    /// Answers one request of the session. `notifier` is the request's own stream: progress,
    /// log messages and the requests a round sends to the client travel on it.
    pub(crate) fn handle(
        self: &Arc<Self>,
        request: Request,
        cancellation: CancellationToken,
        notifier: Option<Notifier>,
        shutdown: CancellationToken,
    ) -> impl Future<Output = Response> + Send + 'static {
        let session = self.clone();
        async move {
            let id = request.id.clone();
            let method = request.method.clone();
            let outcome = session.answer_request(request, cancellation, notifier, shutdown).await;
            match outcome {
                Ok(result) => Response { bytes: encode_result(&id, &result), error: None },
                Err(error) => {
                    let error = legacy_error(&method, error);
                    tracing::debug!(code = error.code().code(), "legacy request failed");
                    Response { bytes: encode_error(Some(&id), &error), error: Some(error.code()) }
                }
            }
        }
    }

    async fn answer_request(
        &self,
        request: Request,
        cancellation: CancellationToken,
        notifier: Option<Notifier>,
        shutdown: CancellationToken,
    ) -> Result<Box<RawValue>, Error> {
        let Request { id, method, params } = request;
        let params = params.as_deref();
        if &*method == "initialize" {
            return self.initialize(params).map(|result| raw(&result));
        }
        let Some(negotiated) = self.negotiated.get() else {
            return Err(Error::invalid_request("The session is not initialized: send initialize first"));
        };
        let inner = &self.server.inner;
        match &*method {
            "ping" => Ok(empty()),
            "logging/setLevel" => {
                let p: SetLevelParams = parse(params)?;
                let level = LoggingLevel::parse(&p.level).ok_or_else(|| {
                    Error::invalid_field(
                        "level",
                        "level must be one of debug, info, notice, warning, error, critical, alert, emergency",
                    )
                })?;
                *self.log_level.lock().expect("log level lock") = Some(level);
                Ok(empty())
            }
            "resources/subscribe" | "resources/unsubscribe" if inner.capabilities.resources.is_some() => {
                let p: SubscribeParams = parse(params)?;
                let uri = crate::uri::normalize(&p.uri)
                    .ok_or_else(|| Error::invalid_field("uri", format!("Not a valid URI: {}", p.uri)))?;
                let mut subscriptions = self.subscriptions.lock().expect("subscriptions lock");
                if &*method == "resources/unsubscribe" {
                    subscriptions.remove(uri.as_str());
                } else {
                    let meta = RequestMeta::new(LATEST_PROTOCOL_VERSION, negotiated.capabilities.clone());
                    let context =
                        RequestContext::new(id, meta, self.principal.clone(), cancellation, inner.shared.clone());
                    // As on listen streams: a refused URI is not subscribed, and the answer does
                    // not say whether it exists.
                    if (inner.subscriptions)(&context, &uri) {
                        subscriptions.insert(uri.into());
                    } else {
                        tracing::debug!("subscription refused by the server's policy");
                    }
                }
                Ok(empty())
            }
            "server/discover" | "subscriptions/listen" => Err(Error::method_not_found(&method).with_data(json!({
                "method": &*method,
                "reason": format!("a 2026-07-28 method; send it with _meta outside the {} session", negotiated.version),
            }))),
            _ => {
                let mut modern = self.modern_params(params, negotiated)?;
                let rounds = ROUND_METHODS.contains(&&*method);
                for _ in 0..MAX_LEGACY_ROUNDS {
                    let mut result =
                        self.forward(&id, &method, &modern, &cancellation, notifier.clone(), &shutdown).await?;
                    let asks = result.get("resultType").is_some_and(|t| t.get() == "\"input_required\"");
                    if !rounds || !asks {
                        return Ok(as_legacy_result(result));
                    }
                    let responses = self.ask_client(&result, notifier.as_ref(), &cancellation).await?;
                    modern.insert("inputResponses".into(), raw(&responses));
                    match result.shift_remove("requestState") {
                        Some(state) => modern.insert("requestState".into(), state),
                        None => modern.shift_remove("requestState"),
                    };
                }
                Err(Error::new(
                    ErrorCode::InternalError,
                    format!("The request asked for input more than {MAX_LEGACY_ROUNDS} times; giving up"),
                ))
            }
        }
    }

    fn initialize(&self, params: Option<&RawValue>) -> Result<Value, Error> {
        let p: InitializeParams = parse(params)?;
        let raw_capabilities = p.capabilities.unwrap_or_else(|| RawValue::from_string("{}".into()).expect("{}"));
        let capabilities: ClientCapabilities = serde_json::from_str(raw_capabilities.get()).map_err(|e| {
            Error::invalid_field("capabilities", format!("Malformed capabilities: {}", serde_message(&e)))
        })?;
        if let Some(info) = &p.client_info {
            serde_json::from_str::<Implementation>(info.get()).map_err(|_| {
                Error::invalid_field("clientInfo", "clientInfo must be an object with string name and version")
            })?;
        }
        // The client's version when this server speaks it, else the newest this server does.
        let version = LEGACY_PROTOCOL_VERSIONS
            .iter()
            .find(|v| **v == p.protocol_version)
            .copied()
            .unwrap_or(LEGACY_PROTOCOL_VERSIONS[0]);
        let negotiated = Negotiated { version, capabilities, raw_capabilities, client_info: p.client_info };
        if self.negotiated.set(negotiated).is_err() {
            return Err(Error::invalid_request("The session is already initialized"));
        }
        let inner = &self.server.inner;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": inner.capabilities,
            "serverInfo": &*inner.info,
        });
        if let Some(instructions) = &inner.instructions {
            result["instructions"] = json!(instructions);
        }
        Ok(result)
    }

    /// The request's params with the envelope a 2026-07-28 request would carry.
    fn modern_params(&self, params: Option<&RawValue>, negotiated: &Negotiated) -> Result<RawObject, Error> {
        let mut params: RawObject = match params {
            None => RawObject::new(),
            Some(raw) => serde_json::from_str(raw.get())
                .map_err(|_| Error::invalid_field("params", "params must be a JSON object"))?,
        };
        // Only `_meta` is decoded: the client's own entries (a progress token, trace context)
        // stay, and the envelope's are the session's.
        let mut meta: RawObject =
            params.shift_remove("_meta").and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();
        meta.insert(PROTOCOL_VERSION_KEY.into(), raw(&LATEST_PROTOCOL_VERSION));
        meta.insert(CLIENT_CAPABILITIES_KEY.into(), negotiated.raw_capabilities.clone());
        match &negotiated.client_info {
            Some(info) => meta.insert(CLIENT_INFO_KEY.into(), info.clone()),
            None => meta.shift_remove(CLIENT_INFO_KEY),
        };
        match *self.log_level.lock().expect("log level lock") {
            Some(level) => meta.insert(LOG_LEVEL_KEY.into(), raw(&level.as_str())),
            None => meta.shift_remove(LOG_LEVEL_KEY),
        };
        params.insert("_meta".into(), raw(&meta));
        Ok(params)
    }

    /// Serves the translated request on the stateless path.
    async fn forward(
        &self,
        id: &RequestId,
        method: &str,
        params: &RawObject,
        cancellation: &CancellationToken,
        notifier: Option<Notifier>,
        shutdown: &CancellationToken,
    ) -> Result<RawObject, Error> {
        let request = Request { id: id.clone(), method: method.into(), params: Some(raw(params)) };
        let call = Call {
            cancellation: cancellation.clone(),
            notifier,
            shutdown: shutdown.clone(),
            ..Call::new(request, self.principal.clone())
        };
        let response = self.server.handle_call(call).await;

        #[derive(Deserialize)]
        struct Envelope {
            #[serde(default)]
            result: Option<RawObject>,
            #[serde(default)]
            error: Option<ErrorObject>,
        }
        let envelope: Envelope = serde_json::from_slice(&response.bytes).map_err(|e| Error::internal_from(&e))?;
        match (envelope.result, envelope.error) {
            (_, Some(error)) => Err(from_object(error)),
            (Some(result), None) => Ok(result),
            (None, None) => Err(Error::internal()),
        }
    }

    /// Sends each embedded request of `result` to the client, in order, and collects the answers
    /// under their keys.
    async fn ask_client(
        &self,
        result: &RawObject,
        notifier: Option<&Notifier>,
        cancellation: &CancellationToken,
    ) -> Result<RawObject, Error> {
        let mut responses = RawObject::new();
        let Some(requests) = result.get("inputRequests") else {
            // Only a requestState (the server shed load): retry at once with it.
            return Ok(responses);
        };
        let requests: IndexMap<String, Value> =
            serde_json::from_str(requests.get()).map_err(|e| Error::internal_from(&e))?;
        let Some(notifier) = notifier else {
            return Err(Error::invalid_request(
                "This request needs input from the client, and its connection cannot carry requests to the \
                 client: accept text/event-stream on the POST",
            ));
        };
        for (key, embedded) in &requests {
            let method = embedded.get("method").and_then(Value::as_str).unwrap_or_default();
            if !INPUT_METHODS.contains(&method) {
                tracing::error!(method, "a round embedded a request that cannot be sent to a client");
                return Err(Error::internal());
            }
            let params = embedded.get("params").cloned().unwrap_or_else(|| json!({}));
            let params = serde_json::value::to_raw_value(&params).map_err(|e| Error::internal_from(&e))?;
            let answer = tokio::select! {
                biased;
                () = self.closed.cancelled() => return Err(Error::invalid_request("The session was closed")),
                answer = self.peer.request(notifier, method, &params, cancellation) => answer?,
            };
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }

    /// Forwards announced changes the session asked for to its sink, until it closes.
    fn watch_changes(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let mut events = self.server.inner.shared.changes.subscribe();
        let session: Weak<Session> = Arc::downgrade(self);
        let closed = self.closed.clone();
        runtime.spawn(async move {
            loop {
                let signal = tokio::select! {
                    biased;
                    () = closed.cancelled() => return,
                    signal = events.recv() => signal,
                };
                let Some(session) = session.upgrade() else { return };
                let messages = match signal {
                    Ok(Signal::Event(event, _)) => session.notifications_for(&event),
                    // Events may have been missed: everything the client could have heard about
                    // is announced, so it re-reads.
                    Ok(Signal::Resync) | Err(RecvError::Lagged(_)) => session.everything_changed(),
                    Err(RecvError::Closed) => return,
                };
                let sink = session.sink.lock().expect("sink lock").clone();
                if let Some(sink) = sink {
                    for message in messages {
                        // A client that stopped reading loses notifications, never blocks others.
                        sink.try_send(message);
                    }
                }
            }
        });
    }

    fn notifications_for(&self, event: &ChangeEvent) -> Vec<Vec<u8>> {
        let capabilities = &self.server.inner.capabilities;
        let empty = Map::new();
        match event {
            ChangeEvent::ToolsListChanged if capabilities.tools.is_some() => {
                vec![encode_notification(TOOLS_LIST_CHANGED, &empty)]
            }
            ChangeEvent::PromptsListChanged if capabilities.prompts.is_some() => {
                vec![encode_notification(PROMPTS_LIST_CHANGED, &empty)]
            }
            ChangeEvent::ResourcesListChanged if capabilities.resources.is_some() => {
                vec![encode_notification(RESOURCES_LIST_CHANGED, &empty)]
            }
            ChangeEvent::ResourceUpdated(uri) => {
                let subscribed = self.subscriptions.lock().expect("subscriptions lock");
                if subscribed.iter().any(|s| crate::listen::covers(s, uri)) {
                    vec![encode_notification(RESOURCE_UPDATED, &json!({ "uri": &**uri }))]
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        }
    }

    fn everything_changed(&self) -> Vec<Vec<u8>> {
        let mut messages: Vec<Vec<u8>> =
            [ChangeEvent::ToolsListChanged, ChangeEvent::PromptsListChanged, ChangeEvent::ResourcesListChanged]
                .iter()
                .flat_map(|event| self.notifications_for(event))
                .collect();
        let subscribed = self.subscriptions.lock().expect("subscriptions lock").clone();
        messages.extend(subscribed.iter().map(|uri| encode_notification(RESOURCE_UPDATED, &json!({ "uri": &**uri }))));
        messages
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

fn parse<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, Error> {
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| Error::invalid_params(format!("Invalid params: {}", serde_message(&e))))
}

fn raw<T: serde::Serialize>(value: &T) -> Box<RawValue> {
    crate::server::render(value)
}

fn empty() -> Box<RawValue> {
    RawValue::from_string("{}".to_owned()).expect("{} is JSON")
}

/// A result as 2025-11-25 has it: without the members 2026-07-28 added, and without the
/// `serverInfo` stamp in `_meta`, which that revision does not define.
fn as_legacy_result(mut result: RawObject) -> Box<RawValue> {
    for member in MODERN_RESULT_MEMBERS {
        result.shift_remove(*member);
    }
    if let Some(meta) = result.get("_meta")
        && let Ok(mut meta) = serde_json::from_str::<RawObject>(meta.get())
        && meta.shift_remove(SERVER_INFO_KEY).is_some()
    {
        if meta.is_empty() {
            result.shift_remove("_meta");
        } else {
            result.insert("_meta".into(), raw(&meta));
        }
    }
    raw(&result)
}

fn from_object(error: ErrorObject) -> Error {
    let code = i32::try_from(error.code).ok().and_then(ErrorCode::from_code).unwrap_or(ErrorCode::InternalError);
    let error_out = Error::new(code, error.message);
    match error.data {
        Some(data) => error_out.with_data(data),
        None => error_out,
    }
}

/// The 2025 code where the eras differ: a missing resource was -32002 before 2026-07-28.
fn legacy_error(method: &str, error: Error) -> Error {
    let missing_resource = method == "resources/read"
        && error.code() == ErrorCode::InvalidParams
        && error.data().is_some_and(|d| d.get("uri").is_some() && d.as_object().is_some_and(|o| o.len() == 1));
    if missing_resource {
        let data = error.data().cloned().unwrap_or_default();
        return Error::new(ErrorCode::ResourceNotFound, error.message().to_owned()).with_data(data);
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.into()).unwrap()
    }

    #[test]
    fn only_the_2026_envelope_counts_as_modern() {
        assert!(is_modern(Some(&raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#))));
        assert!(!is_modern(Some(&raw(r#"{"_meta":{"progressToken":1}}"#))));
        assert!(!is_modern(Some(&raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}"#))));
        assert!(!is_modern(Some(&raw(r#"{"name":"x"}"#))));
        assert!(!is_modern(Some(&raw("[1]"))));
        assert!(!is_modern(None));
    }

    #[test]
    fn a_missing_resource_gets_the_2025_code_and_other_errors_stay() {
        let mapped = legacy_error("resources/read", Error::resource_not_found("test://x"));
        assert_eq!(mapped.code().code(), -32002);
        assert_eq!(mapped.data().unwrap()["uri"], "test://x");
        let unknown_tool = Error::invalid_params("Unknown tool: x").with_data(json!({ "name": "x" }));
        assert_eq!(legacy_error("tools/call", unknown_tool.clone()), unknown_tool);
        let bad_uri = Error::invalid_field("uri", "Not a valid URI");
        assert_eq!(legacy_error("resources/read", bad_uri.clone()).code(), ErrorCode::InvalidParams);
    }
}
