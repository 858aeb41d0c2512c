//! Streamable HTTP: one JSON-RPC message per POST to one endpoint.
//!
//! In order, before any MCP processing: the `Host` and `Origin` are checked (DNS rebinding), the caller
//! is authenticated (401 with `WWW-Authenticate`), and the body is read up to a limit (413).
//! Then a notification is accepted with 202 and an empty body, and a request is answered with
//! `application/json`, or with `text/event-stream` as soon as it has something to stream
//! before its answer (progress, log messages, a listen stream's events). Error statuses follow
//! the revision: 400 for -32700, -32600, -32602, -32020, -32021 and -32022, 404 for -32601;
//! the framework's own -31429 is 429 and -31503 (a store down) 503, each with `Retry-After`, and -31403 (a missing OAuth scope) is
//! 403 with an `insufficient_scope` challenge, in either revision. Closing the stream cancels
//! the request.
//!
//! An authenticator that makes the endpoint an OAuth protected resource (see
//! [`Authenticator::protected_resource`] and, with the `oauth` feature,
//! [`oauth`](crate::transport::oauth)) has its metadata served, unauthenticated, at
//! `/.well-known/oauth-protected-resource` and that path followed by the endpoint's, and every
//! challenge names it.
//!
//! Clients of revision 2025-11-25 are served on the same endpoint: an `initialize` without the
//! 2026-07-28 envelope opens a session, whose id travels in `Mcp-Session-Id`; that session's
//! requests, notifications and responses are POSTed with it, a GET with it opens the
//! session's notification stream, and a DELETE ends it. Session errors travel with status 200,
//! as that revision has them.

mod auth;
mod hosts;
mod protected;
mod respond;
mod serve;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::StreamExt as _;
use futures_util::stream;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::connection::{DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE};
pub use crate::model::TraceContext;
use crate::telemetry::Transport;
pub use auth::{AuthRequest, Authenticator, BearerTokens, ProtectedResource, Unauthorized};

use crate::connection::{Arrival, EndpointConnection, Received, Refused, Status};
use crate::context::{Notifier, Principal};
use crate::error::Error;
use crate::headers::StandardHeaders;
use crate::server::Server;
use auth::Anonymous;
use hosts::{Hosts, is_local_origin};
use protected::Challenges;
use respond::{
    NeedsScope, SESSION_ID, error_response, event_stream_response, json_response, message_event, status_code,
};
pub use serve::DEFAULT_DRAIN;

/// Default limit on one request body: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Notifications waiting to be streamed to one client before the request waits for room.
const STREAM_BUFFER: usize = 64;

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
    public_url: Option<String>,
    authenticator: Arc<dyn Authenticator>,
    allowed_origins: Vec<String>,
    allowed_hosts: Option<Vec<String>>,
    max_body_bytes: usize,
    keep_alive: Duration,
    session_idle: Duration,
    max_sessions: usize,
    drain: Duration,
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
            public_url: None,
            authenticator: Arc::new(authenticator),
            allowed_origins: Vec::new(),
            allowed_hosts: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            keep_alive: Duration::from_secs(15),
            session_idle: DEFAULT_SESSION_IDLE,
            max_sessions: DEFAULT_MAX_SESSIONS,
            drain: DEFAULT_DRAIN,
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

    /// The endpoint's URL as clients reach it, e.g. `https://notes.example.com/mcp` behind a
    /// proxy. It is the resource OAuth access tokens must be for (unless the authenticator
    /// names its audience) and what its metadata says. Without it, [`bind`](Self::bind)
    /// takes `http://<bound address><path>`.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
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

    /// How long a stopping endpoint, no longer accepting connections, keeps answering requests
    /// on those it has before closing the idle ones (default 1 s; sooner once none is open):
    /// a request a load balancer sent on a kept-alive connection as the shutdown began is
    /// answered, not cut. Listen streams end with their result at once.
    pub fn drain(mut self, period: Duration) -> Self {
        self.drain = period;
        self
    }

    /// The axum router serving `server` at the endpoint (and an OAuth protected resource's
    /// metadata), to mount in a larger application. `shutdown`, when cancelled, ends listen
    /// streams with a result.
    ///
    /// # Panics
    ///
    /// When the authenticator makes the endpoint an OAuth protected resource whose URL is
    /// unknown: set [`public_url`](Self::public_url) (or the authenticator's audience).
    pub fn router(&self, server: &Server, shutdown: CancellationToken) -> Router {
        let hosts = match &self.allowed_hosts {
            Some(extra) => Hosts::Local(extra.clone()),
            None => Hosts::Any,
        };
        self.router_for(server, shutdown, hosts, self.public_url.clone()).unwrap_or_else(|problem| panic!("{problem}"))
    }

    fn router_for(
        &self,
        server: &Server,
        shutdown: CancellationToken,
        hosts: Hosts,
        public_url: Option<String>,
    ) -> Result<Router, String> {
        let challenges = Challenges::new(self.authenticator.protected_resource(), public_url.as_deref(), &self.path)?;
        let resource = challenges.resource().map(str::to_owned).or(public_url);
        let connection = EndpointConnection::endpoint(server, self.session_idle, self.max_sessions, shutdown.clone());
        let metadata_paths = challenges.metadata_paths(&self.path);
        let app = Arc::new(App { connection, http: self.clone(), shutdown, hosts, challenges, resource });
        let mut router = Router::new().route(&self.path, post(handle).get(handle_get).delete(handle_delete));
        for path in metadata_paths {
            router = router.route(&path, get(handle_metadata));
        }
        Ok(router.with_state(app))
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
        let public_url =
            self.http.public_url.clone().unwrap_or_else(|| format!("http://{}{}", self.local_addr(), self.http.path));
        let router = self
            .http
            .router_for(server, stop.clone(), hosts, Some(public_url))
            .map_err(|problem| io::Error::new(io::ErrorKind::InvalidInput, problem))?;
        let (stopping, drain) = (stop.clone(), self.http.drain);
        let shutdown = async move {
            shutdown.await;
            stopping.cancel();
        };
        serve::serve(self.listener, router, shutdown, drain).await;
        Ok(())
    }
}

struct App {
    connection: EndpointConnection,
    http: Http,
    shutdown: CancellationToken,
    hosts: Hosts,
    challenges: Challenges,
    /// The endpoint's URL as clients name it, when known.
    resource: Option<String>,
}

fn header_string(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// The W3C trace context of the HTTP request, when it has a `traceparent`: the parent of the
/// request's span when its `_meta` names none.
fn trace_context(headers: &HeaderMap) -> Option<Box<TraceContext>> {
    let traceparent = header_string(headers, "traceparent")?;
    Some(Box::new(TraceContext {
        traceparent: Some(traceparent),
        tracestate: header_string(headers, "tracestate"),
        baggage: header_string(headers, "baggage"),
    }))
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
    if let Some(refused) = host_refusal(app, uri, headers) {
        return Err(refused);
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !is_local_origin(origin) && !app.http.allowed_origins.iter().any(|o| o == origin) {
            tracing::warn!("request from a disallowed Origin refused");
            let error = Error::invalid_request("Origin not allowed");
            return Err(error_response(StatusCode::FORBIDDEN, None, &error));
        }
    }
    let request = AuthRequest::new(headers, app.resource.as_deref());
    let authenticator = &app.http.authenticator;
    let authenticated = match authenticator.authenticate_now(&request) {
        Some(authenticated) => authenticated,
        None => authenticator.authenticate(&request).await,
    };
    match authenticated {
        Ok(principal) => Ok(principal),
        Err(refusal) => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::UNAUTHORIZED;
            response.headers_mut().insert(header::WWW_AUTHENTICATE, app.challenges.unauthorized(&refusal));
            Err(response)
        }
    }
}

/// The `Host` check against DNS rebinding: the response refusing the request, if it fails.
fn host_refusal(app: &App, uri: &axum::http::Uri, headers: &HeaderMap) -> Option<Response> {
    // HTTP/2 carries the host as the URI's authority rather than a header.
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).or(uri.authority().map(|a| a.as_str()));
    if app.hosts.allows(host) {
        return None;
    }
    tracing::warn!("request for a host this server does not answer to refused");
    Some(error_response(StatusCode::FORBIDDEN, None, &Error::invalid_request("Host not allowed")))
}

/// GET of the protected resource's metadata (RFC 9728): public, so no authentication.
async fn handle_metadata(State(app): State<Arc<App>>, uri: axum::http::Uri, headers: HeaderMap) -> Response {
    if let Some(refused) = host_refusal(&app, &uri, &headers) {
        return refused;
    }
    let Some(document) = app.challenges.document() else { return StatusCode::NOT_FOUND.into_response() };
    let mut response = json_response(StatusCode::OK, document.to_vec());
    // Browser-based clients read it from another origin; it is public.
    response.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}

/// POST: one JSON-RPC message. The request is taken whole: extracting its headers would copy
/// them.
async fn handle(State(app): State<Arc<App>>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let (uri, headers) = (&parts.uri, &parts.headers);
    let principal = match admit(&app, uri, headers).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    if let Some(refused) = not_json(headers) {
        return refused;
    }
    let limit = app.http.max_body_bytes;
    let bytes: Bytes = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let error = Error::invalid_request(format!("Request body too large: the limit is {limit} bytes"))
                .with_data(serde_json::json!({ "maxMessageBytes": limit }));
            return error_response(StatusCode::PAYLOAD_TOO_LARGE, None, &error);
        }
    };
    let session = header_string(headers, SESSION_ID);
    let standard = StandardHeaders {
        protocol_version: header_string(headers, "mcp-protocol-version"),
        method: header_string(headers, "mcp-method"),
        name: header_string(headers, "mcp-name"),
        params: param_headers(headers),
    };
    // Made only when the client reads event streams: it may notify before the answer.
    let (notifier, notes) = if accepts_event_stream(headers) {
        let (notifier, notes) = Notifier::deferred(STREAM_BUFFER);
        (Some(notifier), Some(notes))
    } else {
        (None, None)
    };
    let arrival = Arrival {
        principal,
        session: session.as_deref(),
        headers: Some(standard),
        notifier,
        transport: Transport::Tcp,
        trace: trace_context(headers),
    };
    match app.connection.receive(&bytes, arrival) {
        Received::Run(running) => {
            let mut response = match respond::answer(running, notes, app.http.keep_alive) {
                Ok(response) => response,
                Err(waiting) => waiting.await,
            };
            if let Some(NeedsScope(scope)) = response.extensions_mut().remove::<NeedsScope>() {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, app.challenges.insufficient_scope(&scope));
            }
            response
        }
        Received::Refused(refused) => refused_response(refused),
        Received::Accepted => StatusCode::ACCEPTED.into_response(),
    }
}

/// The 415 for a body that does not say it is JSON (a form, text, no type at all): refused
/// before it is read, rather than run because its bytes happen to parse.
fn not_json(headers: &HeaderMap) -> Option<Response> {
    let sent = headers.get(header::CONTENT_TYPE);
    let media_type = sent.and_then(|value| value.as_bytes().split(|b| *b == b';').next()).map(<[u8]>::trim_ascii);
    if media_type.is_some_and(|media_type| media_type.eq_ignore_ascii_case(b"application/json")) {
        return None;
    }
    let sent = sent.map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
    let error = Error::invalid_request("Unsupported Content-Type: send the JSON-RPC message as application/json")
        .with_data(serde_json::json!({ "contentType": sent }));
    Some(error_response(StatusCode::UNSUPPORTED_MEDIA_TYPE, None, &error))
}

/// A message the connection refused, with the status it gave.
fn refused_response(refused: Refused) -> Response {
    if refused.status == Status::NotAllowed {
        let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
        return response;
    }
    json_response(status_code(refused.status), refused.bytes)
}

/// What came with a GET or DELETE: who sent it, and the session it names.
fn arrival<'a>(principal: Principal, headers: &'a HeaderMap) -> Arrival<'a> {
    let session = headers.get(SESSION_ID).and_then(|value| value.to_str().ok());
    Arrival { principal, session, transport: Transport::Tcp, ..Arrival::default() }
}

/// GET opens a legacy session's stream of notifications outside requests (list changes,
/// resource updates); the connection decides whether there is one to open.
async fn handle_get(State(app): State<Arc<App>>, uri: axum::http::Uri, headers: HeaderMap) -> Response {
    let principal = match admit(&app, &uri, &headers).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    let arrival = arrival(principal, &headers);
    let receiver = match app.connection.open_stream(&arrival, accepts_event_stream(&headers), STREAM_BUFFER) {
        Ok(receiver) => receiver,
        Err(refused) => return refused_response(refused),
    };
    let events = stream::unfold(receiver, |mut receiver| async move { receiver.recv().await.map(|b| (b, receiver)) })
        .map(|bytes| Ok::<_, std::convert::Infallible>(message_event(&bytes)))
        .take_until(app.shutdown.clone().cancelled_owned());
    event_stream_response(events, app.http.keep_alive)
}

/// DELETE ends a legacy session; the connection decides whether there is one to end.
async fn handle_delete(State(app): State<Arc<App>>, uri: axum::http::Uri, headers: HeaderMap) -> Response {
    let principal = match admit(&app, &uri, &headers).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    match app.connection.end_session(&arrival(principal, &headers)) {
        Ok(()) => StatusCode::OK.into_response(),
        Err(refused) => refused_response(refused),
    }
}
