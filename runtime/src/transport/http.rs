//! Streamable HTTP: one JSON-RPC message per POST to one endpoint.
//!
//! In order, before any MCP processing: the `Host` and `Origin` are checked (DNS rebinding), the caller
//! is authenticated (401 with `WWW-Authenticate`), and the body is read up to a limit (413).
//! Then a notification is accepted with 202 and an empty body, and a request is answered with
//! `application/json`, or with `text/event-stream` as soon as it has something to stream
//! before its answer (progress, log messages, a listen stream's events). Error statuses follow
//! the revision: 400 for -32700, -32600, -32602, -32020, -32021 and -32022, 404 for -32601.
//! Closing the stream cancels the request.
//!
//! Clients of revision 2025-11-25 are served on the same endpoint: an `initialize` without the
//! 2026-07-28 envelope opens a session, whose id travels in `Mcp-Session-Id`; that session's
//! requests, notifications and responses are POSTed with it, a GET with it opens the
//! session's notification stream, and a DELETE ends it. Session errors travel with status 200,
//! as that revision has them.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::StreamExt as _;
use futures_util::stream::{self, Stream};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::context::{Notifier, Principal};
use crate::error::{Error, ErrorCode};
use crate::headers::StandardHeaders;
use crate::jsonrpc::{self, Incoming, Request};
use crate::legacy::{self, Session};
use crate::server::{Call, Server};
use crate::version::{LEGACY_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS};

use super::sessions::Sessions;
pub use super::sessions::{DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE};
use crate::future::BoxFuture;

/// Default limit on one request body: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Notifications waiting to be streamed to one client before the request waits for room.
const STREAM_BUFFER: usize = 64;

/// Why a request was not authenticated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unauthorized {
    /// The RFC 6750 error code, when credentials were sent but are not valid
    /// (`invalid_token`); `None` when none were sent.
    pub error: Option<&'static str>,
}

/// Turns a request's headers into the principal it acts for.
pub trait Authenticator: Send + Sync + 'static {
    /// The principal, or why there is none.
    fn authenticate<'a>(&'a self, headers: &'a HeaderMap) -> BoxFuture<'a, Result<Principal, Unauthorized>>;
}

/// Bearer tokens, each standing for one principal. Tokens are compared in constant time
/// (through their SHA-256, so their lengths do not leak either).
#[derive(Clone, Default)]
pub struct BearerTokens {
    tokens: Vec<([u8; 32], Principal)>,
}

impl std::fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the tokens.
        f.debug_struct("BearerTokens").field("principals", &self.tokens.len()).finish()
    }
}

impl BearerTokens {
    /// No tokens yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `Authorization: Bearer <token>` authenticates as `principal`.
    pub fn token(mut self, token: impl AsRef<str>, principal: impl Into<Arc<str>>) -> Self {
        self.tokens.push((Sha256::digest(token.as_ref().as_bytes()).into(), Principal::new(principal)));
        self
    }
}

impl Authenticator for BearerTokens {
    fn authenticate<'a>(&'a self, headers: &'a HeaderMap) -> BoxFuture<'a, Result<Principal, Unauthorized>> {
        Box::pin(async move {
            let presented = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
                .map(str::trim);
            let Some(presented) = presented else { return Err(Unauthorized { error: None }) };
            let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
            let mut found = None;
            // Every entry is compared, so the time taken does not say which one matched.
            for (candidate, principal) in &self.tokens {
                if bool::from(candidate.ct_eq(&digest)) {
                    found = Some(principal.clone());
                }
            }
            found.ok_or(Unauthorized { error: Some("invalid_token") })
        })
    }
}

/// No authentication: every request is anonymous. For local development only, and only by
/// choosing it explicitly with [`Http::without_authentication`].
#[derive(Clone, Copy, Debug, Default)]
struct Anonymous;

impl Authenticator for Anonymous {
    fn authenticate<'a>(&'a self, _: &'a HeaderMap) -> BoxFuture<'a, Result<Principal, Unauthorized>> {
        Box::pin(async { Ok(Principal::anonymous()) })
    }
}

/// Serves a [`Server`] over Streamable HTTP.
///
/// ```no_run
/// use mcp_rounds::Server;
/// use mcp_rounds::transport::http::{BearerTokens, Http};
///
/// # async fn run(server: Server) -> std::io::Result<()> {
/// let http = Http::new(BearerTokens::new().token("s3cret-token", "alice"));
/// let bound = http.bind("127.0.0.1:8787").await?;
/// eprintln!("listening on http://{}/mcp", bound.local_addr());
/// bound.serve(&server, async { let _ = tokio::signal::ctrl_c().await; }).await
/// # }
/// ```
#[derive(Clone)]
pub struct Http {
    path: String,
    authenticator: Arc<dyn Authenticator>,
    allowed_origins: Vec<String>,
    allowed_hosts: Option<Vec<String>>,
    max_body_bytes: usize,
    keep_alive: Duration,
    session_idle: Duration,
    max_sessions: usize,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http").field("path", &self.path).field("allowed_origins", &self.allowed_origins).finish()
    }
}

impl Http {
    /// An endpoint at `/mcp` whose callers are authenticated by `authenticator`.
    pub fn new(authenticator: impl Authenticator) -> Self {
        Http {
            path: "/mcp".into(),
            authenticator: Arc::new(authenticator),
            allowed_origins: Vec::new(),
            allowed_hosts: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            keep_alive: Duration::from_secs(15),
            session_idle: DEFAULT_SESSION_IDLE,
            max_sessions: DEFAULT_MAX_SESSIONS,
        }
    }

    /// An endpoint without authentication: every caller is anonymous. Only for local
    /// development.
    pub fn without_authentication() -> Self {
        Http::new(Anonymous)
    }

    /// The endpoint's path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Browser origins allowed besides local ones (`http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*`), e.g. `https://app.example.com`. Requests without an `Origin` are not
    /// from a browser page and are not affected.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins.extend(origins.into_iter().map(Into::into));
        self
    }

    /// The host names the server answers to, besides the local ones (`localhost`,
    /// `127.0.0.1`, `[::1]`), e.g. `mcp.example.com`; any port. A request whose `Host` is not
    /// one of them gets 403, which defeats DNS rebinding against a server on this machine.
    ///
    /// Without this, [`bind`](Self::bind) to a loopback address answers to local names only
    /// and a bind to any other address answers to every name; [`router`](Self::router) answers
    /// to every name.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let list = self.allowed_hosts.get_or_insert_with(Vec::new);
        list.extend(hosts.into_iter().map(|h| h.into().to_ascii_lowercase()));
        self
    }

    /// The largest request body accepted (default 4 MiB); larger ones get 413.
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.max_body_bytes = limit;
        self
    }

    /// How often an idle stream gets an SSE comment to keep proxies from closing it.
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval;
        self
    }

    /// How long a legacy (2025-11-25) session may go unused before it is closed (default 30
    /// minutes); a session whose notification stream is open stays.
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// How many legacy sessions may be open at once (default 10 000); at the limit, the least
    /// recently used one is closed to make room.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// The axum router serving `server` at the endpoint, to mount in a larger application.
    /// `shutdown`, when cancelled, ends listen streams with a result.
    pub fn router(&self, server: &Server, shutdown: CancellationToken) -> Router {
        let hosts = match &self.allowed_hosts {
            Some(extra) => Hosts::Local(extra.clone()),
            None => Hosts::Any,
        };
        self.router_for(server, shutdown, hosts)
    }

    fn router_for(&self, server: &Server, shutdown: CancellationToken, hosts: Hosts) -> Router {
        let sessions = Sessions::new(self.session_idle, self.max_sessions);
        let app = Arc::new(App { server: server.clone(), http: self.clone(), shutdown, hosts, sessions });
        Router::new().route(&self.path, post(handle).get(handle_get).delete(handle_delete)).with_state(app)
    }

    /// Binds the listening socket.
    pub async fn bind(&self, address: impl tokio::net::ToSocketAddrs) -> io::Result<BoundHttp> {
        let listener = TcpListener::bind(address).await?;
        Ok(BoundHttp { http: self.clone(), listener })
    }
}

/// An [`Http`] endpoint with its socket bound.
#[derive(Debug)]
pub struct BoundHttp {
    http: Http,
    listener: TcpListener,
}

impl BoundHttp {
    /// The address it accepts connections on (the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// Serves until `shutdown` completes; then listen streams end with a result, requests in
    /// flight finish, and this returns.
    pub async fn serve(self, server: &Server, shutdown: impl Future<Output = ()> + Send + 'static) -> io::Result<()> {
        let stop = CancellationToken::new();
        let hosts = match (&self.http.allowed_hosts, self.local_addr().ip().is_loopback()) {
            (Some(extra), _) => Hosts::Local(extra.clone()),
            (None, true) => Hosts::Local(Vec::new()),
            (None, false) => Hosts::Any,
        };
        let router = self.http.router_for(server, stop.clone(), hosts);
        let stopping = stop.clone();
        axum::serve(self.listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                stopping.cancel();
            })
            .await
    }
}

struct App {
    server: Server,
    http: Http,
    shutdown: CancellationToken,
    hosts: Hosts,
    sessions: Sessions,
}

impl Drop for App {
    fn drop(&mut self) {
        self.sessions.close_all();
    }
}

/// Which `Host` headers are answered.
enum Hosts {
    Any,
    /// The local names and these.
    Local(Vec<String>),
}

impl Hosts {
    fn allows(&self, host: Option<&str>) -> bool {
        match self {
            Hosts::Any => true,
            Hosts::Local(extra) => host.map(host_name).is_some_and(|name| {
                let name = name.to_ascii_lowercase();
                is_local_name(&name) || extra.contains(&name)
            }),
        }
    }
}

/// The name of `host[:port]`, keeping the brackets of an IPv6 literal.
fn host_name(authority: &str) -> &str {
    match authority.strip_prefix('[') {
        Some(v6) => v6.find(']').map_or(authority, |end| &authority[..end + 2]),
        None => authority.split(':').next().unwrap_or_default(),
    }
}

fn is_local_name(name: &str) -> bool {
    matches!(name, "localhost" | "127.0.0.1" | "[::1]")
}

fn is_local_origin(origin: &str) -> bool {
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else {
        return false;
    };
    is_local_name(&host_name(rest).to_ascii_lowercase())
}

fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::MethodNotFound => StatusCode::NOT_FOUND,
        ErrorCode::InternalError => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn error_response(status: StatusCode, id: Option<&crate::RequestId>, error: &Error) -> Response {
    json_response(status, jsonrpc::encode_error(id, error))
}

fn header_string(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// Every `Mcp-Param-{Name}` header as (`{name}`, value); names arrive lower-cased. A value
/// that is not visible ASCII is kept lossily: the check refuses it as malformed.
fn param_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|(name, value)| {
            let param = name.as_str().strip_prefix("mcp-param-")?;
            Some((param.to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        })
        .collect()
}

fn accepts_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream") || v.contains("*/*"))
}

/// The checks every request passes before anything else: the `Host` and `Origin` (DNS
/// rebinding), then authentication. The principal, or the response that refuses it.
async fn admit(app: &App, uri: &axum::http::Uri, headers: &HeaderMap) -> Result<Principal, Response> {
    // HTTP/2 carries the host as the URI's authority rather than a header.
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).or(uri.authority().map(|a| a.as_str()));
    if !app.hosts.allows(host) {
        tracing::warn!("request for a host this server does not answer to refused");
        let error = Error::invalid_request("Host not allowed");
        return Err(error_response(StatusCode::FORBIDDEN, None, &error));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !is_local_origin(origin) && !app.http.allowed_origins.iter().any(|o| o == origin) {
            tracing::warn!("request from a disallowed Origin refused");
            let error = Error::invalid_request("Origin not allowed");
            return Err(error_response(StatusCode::FORBIDDEN, None, &error));
        }
    }
    match app.http.authenticator.authenticate(headers).await {
        Ok(principal) => Ok(principal),
        Err(Unauthorized { error }) => {
            let challenge = match error {
                Some(error) => format!("Bearer realm=\"mcp\", error=\"{error}\""),
                None => "Bearer realm=\"mcp\"".to_owned(),
            };
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::UNAUTHORIZED;
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
            }
            Err(response)
        }
    }
}

async fn handle(State(app): State<Arc<App>>, uri: axum::http::Uri, headers: HeaderMap, body: Body) -> Response {
    let principal = match admit(&app, &uri, &headers).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };

    let limit = app.http.max_body_bytes;
    let bytes: Bytes = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let error = Error::invalid_request(format!("Request body too large: the limit is {limit} bytes"))
                .with_data(serde_json::json!({ "maxMessageBytes": limit }));
            return error_response(StatusCode::PAYLOAD_TOO_LARGE, None, &error);
        }
    };

    if let Some(session_id) = header_string(&headers, SESSION_ID) {
        return session_post(&app, &session_id, principal, &headers, &bytes).await;
    }

    let request = match jsonrpc::decode(&bytes) {
        Incoming::Request(request) if &*request.method == "initialize" && opens_session(&app, &request, &headers) => {
            return initialize(&app, principal, request).await;
        }
        Incoming::Request(request) => request,
        Incoming::Notification(notification) => {
            // Cancellation over HTTP is closing the stream; other notifications need nothing.
            tracing::debug!(method = %notification.method, "notification accepted");
            return StatusCode::ACCEPTED.into_response();
        }
        Incoming::Response => {
            let error = Error::invalid_request("Clients do not send responses in protocol 2026-07-28");
            return error_response(StatusCode::BAD_REQUEST, None, &error);
        }
        Incoming::Invalid { id, error } => return error_response(StatusCode::BAD_REQUEST, id.as_ref(), &error),
    };

    let standard = StandardHeaders {
        protocol_version: header_string(&headers, "mcp-protocol-version"),
        method: header_string(&headers, "mcp-method"),
        name: header_string(&headers, "mcp-name"),
        params: param_headers(&headers),
    };
    let cancellation = CancellationToken::new();
    let (notes_tx, notes_rx) = mpsc::channel(STREAM_BUFFER);
    let streaming = accepts_event_stream(&headers);
    let call = Call {
        cancellation: cancellation.clone(),
        headers: Some(standard),
        notifier: streaming.then(|| Notifier::new(notes_tx)),
        shutdown: app.shutdown.clone(),
        ..Call::new(request, principal)
    };
    let work = app.server.handle_call(call);
    answer(work, notes_rx, cancellation, Era::Modern, app.http.keep_alive).await
}

/// Which revision's rules a response follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    /// 2026-07-28: error statuses per code.
    Modern,
    /// A 2025-11-25 session: JSON-RPC errors travel with 200.
    Legacy,
}

impl Era {
    fn status(self, error: Option<ErrorCode>) -> StatusCode {
        match (self, error) {
            (_, None) | (Era::Legacy, Some(_)) => StatusCode::OK,
            (Era::Modern, Some(code)) => status_of(code),
        }
    }
}

/// The header that carries a legacy session's id.
const SESSION_ID: &str = "mcp-session-id";

/// Whether an `initialize` opens a legacy session: unless the server refuses them, or the
/// request says it is of 2026-07-28 (in its `_meta` or its version header), where
/// `initialize` does not exist.
fn opens_session(app: &App, request: &Request, headers: &HeaderMap) -> bool {
    let modern_header = header_string(headers, "mcp-protocol-version")
        .is_some_and(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v.as_str()));
    app.server.inner.legacy_sessions && !modern_header && !legacy::is_modern(request.params.as_deref())
}

/// Runs the handshake; a session is kept (and its id sent) only when it succeeds.
async fn initialize(app: &App, principal: Principal, request: Request) -> Response {
    let session = Session::new(&app.server, principal, None);
    let response = session.handle(request, CancellationToken::new(), None, app.shutdown.clone()).await;
    let ok = response.error.is_none();
    let mut reply = json_response(StatusCode::OK, response.bytes);
    if ok {
        let id = app.sessions.insert(session);
        if let Ok(value) = HeaderValue::from_str(&id) {
            reply.headers_mut().insert(SESSION_ID, value);
        }
    }
    reply
}

/// A POST of a legacy session: a request, a notification, or the client's answer to one of
/// the server's requests.
async fn session_post(app: &App, id: &str, principal: Principal, headers: &HeaderMap, bytes: &[u8]) -> Response {
    let Some(session) = app.sessions.get(id, &principal) else {
        return session_not_found();
    };
    // The version header, when sent, is the one the handshake settled on.
    if let Some(version) = header_string(headers, "mcp-protocol-version")
        && session.version().is_some_and(|negotiated| negotiated != version)
    {
        let error = Error::invalid_request(format!(
            "MCP-Protocol-Version {version:?} is not this session's; it negotiated {} (sessions speak {})",
            session.version().unwrap_or_default(),
            LEGACY_PROTOCOL_VERSIONS.join(", ")
        ));
        return error_response(StatusCode::BAD_REQUEST, None, &error);
    }
    match jsonrpc::decode(bytes) {
        Incoming::Request(request) => {
            if legacy::is_modern(request.params.as_deref()) {
                let error = Error::invalid_request(
                    "A request with the 2026-07-28 _meta is stateless: send it without Mcp-Session-Id",
                );
                return error_response(StatusCode::BAD_REQUEST, Some(&request.id), &error);
            }
            let Some(in_flight) = session.begin(&request.id) else {
                let error = Error::invalid_request("Request id is already in use by a request in flight");
                return json_response(StatusCode::OK, jsonrpc::encode_error(Some(&request.id), &error));
            };
            let cancellation = in_flight.token.clone();
            let (notes_tx, notes_rx) = mpsc::channel(STREAM_BUFFER);
            let notifier = accepts_event_stream(headers).then(|| Notifier::new(notes_tx));
            let work = session.handle(request, cancellation.clone(), notifier, app.shutdown.clone());
            // The id stays cancellable for as long as the request runs.
            let work = async move {
                let response = work.await;
                drop(in_flight);
                response
            };
            answer(work, notes_rx, cancellation, Era::Legacy, app.http.keep_alive).await
        }
        Incoming::Notification(notification) => {
            session.notification(&notification.method, notification.params.as_deref());
            StatusCode::ACCEPTED.into_response()
        }
        Incoming::Response => {
            if !session.answer(bytes) {
                tracing::debug!("a response that answers nothing this session asked was ignored");
            }
            StatusCode::ACCEPTED.into_response()
        }
        Incoming::Invalid { id, error } => error_response(StatusCode::BAD_REQUEST, id.as_ref(), &error),
    }
}

fn session_not_found() -> Response {
    // The 2025 transport's signal to start over with a new initialize.
    let error = Error::invalid_request("Session not found: it ended or never existed; initialize again");
    error_response(StatusCode::NOT_FOUND, None, &error)
}

/// GET opens a legacy session's stream of notifications outside requests (list changes,
/// resource updates). 2026-07-28 has no GET: 405.
async fn handle_get(State(app): State<Arc<App>>, uri: axum::http::Uri, headers: HeaderMap) -> Response {
    let (principal, id) = match admit_to_session(&app, &uri, &headers).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let Some(session) = app.sessions.get(&id, &principal) else {
        return session_not_found();
    };
    if !accepts_event_stream(&headers) {
        let error = Error::invalid_request("The notification stream is text/event-stream: accept it");
        return error_response(StatusCode::NOT_ACCEPTABLE, None, &error);
    }
    if session.has_sink() {
        let error = Error::invalid_request("This session already has a notification stream open");
        return error_response(StatusCode::CONFLICT, None, &error);
    }
    let (sender, receiver) = mpsc::channel::<Vec<u8>>(STREAM_BUFFER);
    session.set_sink(Some(Notifier::new(sender)));
    let events = tokio_stream_of(receiver)
        .map(|bytes| {
            Ok::<_, std::convert::Infallible>(Event::default().event("message").data(String::from_utf8_lossy(&bytes)))
        })
        .take_until(app.shutdown.clone().cancelled_owned());
    let mut response = Sse::new(events).keep_alive(KeepAlive::new().interval(app.http.keep_alive)).into_response();
    response.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The caller of a GET or DELETE and the session it is about; without a session id the
/// method does not exist here (405).
async fn admit_to_session(
    app: &App,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
) -> Result<(Principal, String), Response> {
    let principal = admit(app, uri, headers).await?;
    let id = header_string(headers, SESSION_ID).ok_or_else(|| {
        let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
        response
    })?;
    Ok((principal, id))
}

fn tokio_stream_of(receiver: mpsc::Receiver<Vec<u8>>) -> impl Stream<Item = Vec<u8>> + Send {
    stream::unfold(receiver, |mut receiver| async move { receiver.recv().await.map(|bytes| (bytes, receiver)) })
}

/// DELETE ends a legacy session.
async fn handle_delete(State(app): State<Arc<App>>, uri: axum::http::Uri, headers: HeaderMap) -> Response {
    let (principal, id) = match admit_to_session(&app, &uri, &headers).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    if app.sessions.remove(&id, &principal) { StatusCode::OK.into_response() } else { session_not_found() }
}

/// Runs `work` and answers: with JSON when it finishes without anything to stream first, else
/// with an event stream of its notifications and then its answer.
async fn answer(
    work: impl Future<Output = crate::server::Response> + Send + 'static,
    mut notes_rx: mpsc::Receiver<Vec<u8>>,
    cancellation: CancellationToken,
    era: Era,
    keep_alive: Duration,
) -> Response {
    let mut work = Box::pin(work);
    // Most requests need no waiting: answer those right here, without a task of their own.
    let first_poll = std::future::poll_fn(|cx| std::task::Poll::Ready(work.as_mut().poll(cx))).await;
    if let std::task::Poll::Ready(response) = first_poll {
        match notes_rx.try_recv() {
            Err(_) => return json_response(era.status(response.error), response.bytes),
            // It notified before answering: the notifications go first, on an event stream.
            Ok(first) => {
                let (done_tx, done_rx) = oneshot::channel();
                let _ = done_tx.send(response);
                return stream_response(first, notes_rx, done_rx, cancellation.drop_guard(), keep_alive);
            }
        }
    }
    let (done_tx, done_rx) = oneshot::channel();
    let watch = cancellation.clone();
    tokio::spawn(async move {
        tokio::select! {
            biased;
            () = watch.cancelled() => {}
            response = work => {
                let _ = done_tx.send(response);
            }
        }
    });
    respond(notes_rx, done_rx, cancellation.drop_guard(), era, keep_alive).await
}

/// Answers with JSON when the request finishes before it has anything to stream, and with an
/// event stream from its first notification on otherwise.
async fn respond(
    mut notes: mpsc::Receiver<Vec<u8>>,
    done: oneshot::Receiver<crate::server::Response>,
    guard: tokio_util::sync::DropGuard,
    era: Era,
    keep_alive: Duration,
) -> Response {
    let mut done = done;
    let first = tokio::select! {
        biased;
        first = notes.recv() => first,
        response = &mut done => {
            return match response {
                Ok(response) => json_response(era.status(response.error), response.bytes),
                Err(_) => error_response(StatusCode::INTERNAL_SERVER_ERROR, None, &Error::internal()),
            };
        }
    };
    let Some(first) = first else {
        // The handler dropped its notifier without finishing: wait for the answer.
        return match done.await {
            Ok(response) => json_response(era.status(response.error), response.bytes),
            Err(_) => error_response(StatusCode::INTERNAL_SERVER_ERROR, None, &Error::internal()),
        };
    };
    stream_response(first, notes, done, guard, keep_alive)
}

/// An event stream: `first`, then the request's further notifications, then its answer.
fn stream_response(
    first: Vec<u8>,
    notes: mpsc::Receiver<Vec<u8>>,
    done: oneshot::Receiver<crate::server::Response>,
    guard: tokio_util::sync::DropGuard,
    keep_alive: Duration,
) -> Response {
    let events = event_stream(first, notes, done, guard);
    let mut response = Sse::new(events).keep_alive(KeepAlive::new().interval(keep_alive)).into_response();
    response.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

struct Streaming {
    notes: mpsc::Receiver<Vec<u8>>,
    done: Option<oneshot::Receiver<crate::server::Response>>,
    pending: std::collections::VecDeque<Vec<u8>>,
    // Lives as long as the stream: a client that closes it cancels the request.
    _guard: tokio_util::sync::DropGuard,
}

fn event_stream(
    first: Vec<u8>,
    notes: mpsc::Receiver<Vec<u8>>,
    done: oneshot::Receiver<crate::server::Response>,
    guard: tokio_util::sync::DropGuard,
) -> impl Stream<Item = Result<Event, std::convert::Infallible>> + Send {
    let state = Streaming { notes, done: Some(done), pending: [first].into(), _guard: guard };
    stream::unfold(state, |mut state| async move {
        loop {
            if let Some(bytes) = state.pending.pop_front() {
                let event = Event::default().event("message").data(String::from_utf8_lossy(&bytes));
                return Some((Ok(event), state));
            }
            let done = state.done.as_mut()?;
            tokio::select! {
                // Notifications sent before the answer go out before it.
                biased;
                note = state.notes.recv() => match note {
                    Some(bytes) => state.pending.push_back(bytes),
                    None => {
                        if let Ok(response) = done.await {
                            state.pending.push_back(response.bytes);
                        }
                        state.done = None;
                    }
                },
                response = &mut *done => {
                    while let Ok(bytes) = state.notes.try_recv() {
                        state.pending.push_back(bytes);
                    }
                    if let Ok(response) = response {
                        state.pending.push_back(response.bytes);
                    }
                    state.done = None;
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_drop_the_port_and_keep_ipv6_brackets() {
        assert_eq!(host_name("localhost:8080"), "localhost");
        assert_eq!(host_name("[::1]:8080"), "[::1]");
        assert_eq!(host_name("[::1]"), "[::1]");
        assert_eq!(host_name("example.com"), "example.com");
    }

    #[test]
    fn local_hosts_and_configured_ones_are_answered() {
        let hosts = Hosts::Local(vec!["mcp.example.com".into()]);
        for ok in ["localhost", "127.0.0.1:1", "[::1]:9", "MCP.example.com:443", "mcp.example.com"] {
            assert!(hosts.allows(Some(ok)), "{ok}");
        }
        for refused in ["evil.example.com", "example.com", "localhost.evil", "[::2]", ""] {
            assert!(!hosts.allows(Some(refused)), "{refused}");
        }
        assert!(!hosts.allows(None));
        assert!(Hosts::Any.allows(Some("anything.example")));
    }

    #[test]
    fn local_origins_are_recognised_by_host_not_prefix() {
        assert!(is_local_origin("http://localhost:3000"));
        assert!(is_local_origin("https://[::1]"));
        assert!(!is_local_origin("http://localhost.evil.example"));
        assert!(!is_local_origin("http://127.0.0.1.nip.io"));
        assert!(!is_local_origin("null"));
    }
}
