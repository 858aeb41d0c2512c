//! Streamable HTTP: each message its own POST, each answer a JSON body or a server-sent event
//! stream. A 2025-11-25 session's id travels in `Mcp-Session-Id`, and its broken streams are
//! resumed with `Last-Event-ID` after the server's `retry:`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;

use super::sse::{Position, read_events};
use super::{ClientTransport, Inbox, Outbound, OutboundKind, TransportError};
use crate::client::Protocol;
#[cfg(feature = "oauth")]
use crate::client::oauth::Login;
use crate::future::BoxFuture;
use crate::jsonrpc::{ErrorObject, RequestId};

/// How long to wait before resuming a broken stream when the server did not say (`retry:`).
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// Times a broken stream is resumed for one request before the request fails.
const MAX_RESUMPTIONS: usize = 5;

mod authorized;

const SESSION_ID: &str = "mcp-session-id";
const LAST_EVENT_ID: &str = "last-event-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// How long a 2025-11-25 session's standalone stream may take to open.
const STANDALONE_TIMEOUT: Duration = Duration::from_secs(5);

/// A server at an HTTP(S) URL, over Streamable HTTP.
///
/// ```no_run
/// use mcp_rounds::client::{Client, StreamableHttp};
///
/// # async fn run() -> Result<(), mcp_rounds::client::ClientError> {
/// let http = StreamableHttp::new("https://mcp.example.com/mcp")
///     .bearer(std::env::var("MCP_BEARER_TOKEN").unwrap_or_default())
///     .header("X-Tenant", "acme");
/// let client = Client::builder().connect(http).await?;
/// # Ok(()) }
/// ```
pub struct StreamableHttp {
    url: String,
    custom: Vec<(String, String)>,
    bearer: Option<String>,
    client: Option<reqwest::Client>,
    shared: Arc<HttpState>,
}

struct HttpState {
    url: OnceLock<reqwest::Url>,
    http: OnceLock<reqwest::Client>,
    /// Sent with every message: `Accept`, the custom headers, the bearer token.
    fixed: OnceLock<HeaderMap>,
    /// A 2025-11-25 session's id, once the server gave one.
    session: Mutex<Option<HeaderValue>>,
    inbox: Mutex<Option<Inbox>>,
    /// The task reading each request's answer, to stop it when the client stops waiting.
    exchanges: Mutex<HashMap<RequestId, tokio::task::AbortHandle>>,
    /// A 2025-11-25 session's version, for the GETs that open or resume its streams.
    legacy_version: Mutex<Option<HeaderValue>>,
    /// The task reading a 2025-11-25 session's standalone stream.
    standalone: Mutex<Option<tokio::task::AbortHandle>>,
    /// Logins: a token on every message, and a new one when the server refuses it.
    #[cfg(feature = "oauth")]
    login: OnceLock<Login>,
}

impl std::fmt::Debug for StreamableHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The custom headers and the token may be secrets: only their names are shown.
        f.debug_struct("StreamableHttp")
            .field("url", &self.url)
            .field("headers", &self.custom.iter().map(|(name, _)| name).collect::<Vec<_>>())
            .field("bearer", &self.bearer.as_ref().map(|_| "…"))
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl StreamableHttp {
    /// The server's MCP endpoint, e.g. `http://127.0.0.1:8787/mcp`.
    pub fn new(url: impl Into<String>) -> Self {
        StreamableHttp {
            url: url.into(),
            custom: Vec::new(),
            bearer: None,
            client: None,
            shared: Arc::new(HttpState {
                url: OnceLock::new(),
                http: OnceLock::new(),
                fixed: OnceLock::new(),
                session: Mutex::new(None),
                inbox: Mutex::new(None),
                exchanges: Mutex::new(HashMap::new()),
                legacy_version: Mutex::new(None),
                standalone: Mutex::new(None),
                #[cfg(feature = "oauth")]
                login: OnceLock::new(),
            }),
        }
    }

    /// Sends `name: value` with every message (checked when the client connects).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.custom.push((name.into(), value.into()));
        self
    }

    /// Sends `Authorization: Bearer {token}` with every message. An empty token sends none.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        let token = token.into();
        self.bearer = (!token.is_empty()).then_some(token);
        self
    }

    /// Logs in when the server asks (a 401, or a 403 asking for more scope): see
    /// [`Login`](crate::client::oauth::Login). Its token goes with every message.
    #[cfg(feature = "oauth")]
    pub fn login(self, login: Login) -> Self {
        let _ = self.shared.login.set(login);
        self
    }

    /// Uses this `reqwest` client (its proxies, timeouts, TLS roots) instead of the default
    /// one, which trusts the system's root certificates.
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    fn prepare(&self) -> Result<(), TransportError> {
        let url = reqwest::Url::parse(&self.url)
            .map_err(|e| TransportError::Connect(format!("invalid URL {:?}: {e}", self.url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(TransportError::Connect(format!("not an http(s) URL: {:?}", self.url)));
        }
        let mut fixed = HeaderMap::new();
        fixed.insert(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        for (name, value) in &self.custom {
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| TransportError::Connect(format!("invalid header name {name:?}")))?;
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| TransportError::Connect(format!("invalid value for header {name:?}")))?;
            value.set_sensitive(true);
            fixed.append(header, value);
        }
        if let Some(token) = &self.bearer {
            let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|_| TransportError::Connect("the bearer token is not valid header text".into()))?;
            value.set_sensitive(true);
            fixed.insert(AUTHORIZATION, value);
        }
        let http = match &self.client {
            Some(client) => client.clone(),
            None => default_client()?,
        };
        #[cfg(feature = "oauth")]
        if let Some(login) = self.shared.login.get() {
            login.attach(&http);
        }
        let _ = self.shared.url.set(url);
        let _ = self.shared.fixed.set(fixed);
        let _ = self.shared.http.set(http);
        Ok(())
    }
}

/// A client trusting the system's root certificates, TLS by rustls with ring.
fn default_client() -> Result<reqwest::Client, TransportError> {
    let mut roots = rustls::RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        tracing::debug!("no system root certificates: https:// servers will not verify");
    }
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| TransportError::Connect(format!("cannot configure TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .map_err(|e| TransportError::Connect(format!("cannot build the HTTP client: {e}")))
}

impl HttpState {
    /// The POST of a message, with `token` as its bearer token if given.
    fn post(
        &self,
        message_headers: &[(String, String)],
        body: Vec<u8>,
        token: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let mut headers = self.fixed.get().cloned().unwrap_or_default();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(value) = token.and_then(bearer_value) {
            headers.insert(AUTHORIZATION, value);
        }
        for (name, value) in message_headers {
            match (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
                (Ok(name), Ok(value)) => {
                    headers.insert(name, value);
                }
                _ => tracing::warn!(header = %name, "a header the client built is not valid HTTP: left out"),
            }
        }
        if let Some(session) = lock(&self.session).clone() {
            headers.insert(SESSION_ID, session);
        }
        self.http().post(self.url().clone()).headers(headers).body(body)
    }

    fn http(&self) -> &reqwest::Client {
        self.http.get().expect("opened before use")
    }

    fn url(&self) -> &reqwest::Url {
        self.url.get().expect("opened before use")
    }

    fn remember_session(&self, response: &reqwest::Response) {
        if let Some(session) = response.headers().get(SESSION_ID) {
            *lock(&self.session) = Some(session.clone());
        }
    }

    /// Reads the answer to request `id` from `response`, resuming a broken 2025-11-25 stream.
    async fn answer(&self, id: &RequestId, response: reqwest::Response, inbox: &Inbox) {
        self.remember_session(&response);
        let status = response.status();
        if !status.is_success() {
            let body = response.bytes().await.unwrap_or_default();
            let error = match serde_json::from_slice::<ErrorBody>(&body) {
                Ok(ErrorBody { error }) => TransportError::Rejected { status: status.as_u16(), error: Box::new(error) },
                Err(_) => TransportError::Status { status: status.as_u16(), body: TransportError::body_excerpt(&body) },
            };
            let _ = inbox.failed(id, error);
            return;
        }
        if !is_event_stream(&response) {
            match response.bytes().await {
                Ok(body) if body.trim_ascii().is_empty() => {
                    let _ = inbox.failed(id, TransportError::Malformed(format!("HTTP {status} without an answer")));
                }
                Ok(body) => {
                    if let Err(error) = inbox.deliver(&body) {
                        let _ = inbox.failed(id, error);
                    }
                }
                Err(e) => {
                    let _ = inbox.failed(id, TransportError::Io(format!("cannot read the answer: {e}")));
                }
            }
            return self.unanswered(id, inbox, "the answer named no request of this client");
        }
        let mut position = Position::default();
        let mut body = http::Response::from(response).into_body();
        for _ in 0..=MAX_RESUMPTIONS {
            let ended = read_events(body, inbox, &mut position, Some(id)).await;
            if !inbox.awaits(id) {
                return;
            }
            let session = lock(&self.session).is_some();
            let (Some(last), true) = (position.last_event_id.clone(), session) else {
                let why = ended.err().unwrap_or_else(|| "it ended".to_owned());
                let _ = inbox.failed(id, TransportError::Closed(format!("the answer's stream broke off: {why}")));
                return;
            };
            tokio::time::sleep(position.retry.unwrap_or(DEFAULT_RETRY)).await;
            let resumed = self.get_stream(Some(&last)).await;
            match resumed {
                Ok(response) if response.status().is_success() && is_event_stream(&response) => {
                    body = http::Response::from(response).into_body();
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    let body = TransportError::body_excerpt(&response.bytes().await.unwrap_or_default());
                    let _ = inbox.failed(id, TransportError::Status { status, body });
                    return;
                }
                Err(e) => {
                    let _ = inbox.failed(id, TransportError::Closed(format!("cannot resume the stream: {e}")));
                    return;
                }
            }
        }
        self.unanswered(id, inbox, "the stream broke off too many times")
    }

    /// A GET for a 2025-11-25 session's stream, resuming after `last_event_id` if given.
    async fn get_stream(&self, last_event_id: Option<&str>) -> reqwest::Result<reqwest::Response> {
        let mut headers = self.fixed.get().cloned().unwrap_or_default();
        if let Some(value) = self.current_token().await.as_deref().and_then(bearer_value) {
            headers.insert(AUTHORIZATION, value);
        }
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(session) = lock(&self.session).clone() {
            headers.insert(SESSION_ID, session);
        }
        if let Some(version) = lock(&self.legacy_version).clone() {
            headers.insert(PROTOCOL_VERSION, version);
        }
        if let Some(last) = last_event_id.and_then(|l| HeaderValue::from_str(l).ok()) {
            headers.insert(LAST_EVENT_ID, last);
        }
        self.http().get(self.url().clone()).headers(headers).send().await
    }

    /// Reads the session's standalone stream, resuming it when it breaks off after an event
    /// id, until it ends for good.
    async fn standalone(&self, mut response: reqwest::Response, inbox: Inbox) {
        let mut position = Position::default();
        for _ in 0..=MAX_RESUMPTIONS {
            let body = http::Response::from(response).into_body();
            let _ = read_events(body, &inbox, &mut position, None).await;
            let Some(last) = position.last_event_id.clone() else { return };
            tokio::time::sleep(position.retry.unwrap_or(DEFAULT_RETRY)).await;
            match self.get_stream(Some(&last)).await {
                Ok(next) if next.status().is_success() && is_event_stream(&next) => response = next,
                _ => return,
            }
        }
    }

    fn unanswered(&self, id: &RequestId, inbox: &Inbox, why: &str) {
        if inbox.awaits(id) {
            let _ = inbox.failed(id, TransportError::Malformed(why.to_owned()));
        }
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: ErrorObject,
}

fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

/// `Bearer {token}`, marked sensitive (never shown in a debug string).
fn bearer_value(token: &str) -> Option<HeaderValue> {
    let mut value = HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

fn connect_error(error: &reqwest::Error) -> TransportError {
    // The chain of causes says what failed (refused, DNS, TLS); reqwest's own text does not.
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    if error.is_connect() { TransportError::Connect(text) } else { TransportError::Io(text) }
}

impl ClientTransport for StreamableHttp {
    fn open(&self, inbox: Inbox) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            if self.shared.http.get().is_none() {
                self.prepare()?;
            }
            *lock(&self.shared.session) = None;
            *lock(&self.shared.legacy_version) = None;
            *lock(&self.shared.inbox) = Some(inbox);
            Ok(())
        })
    }

    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let inbox = lock(&self.shared.inbox).clone().ok_or_else(|| TransportError::Closed("not open".into()))?;
            match message.kind.clone() {
                OutboundKind::Request(id) => {
                    let shared = self.shared.clone();
                    let task_id = id.clone();
                    let mut exchanges = lock(&self.shared.exchanges);
                    let task = tokio::spawn(async move {
                        match shared.exchange(message).await {
                            Ok(response) => shared.answer(&task_id, response, &inbox).await,
                            Err(error) => {
                                let _ = inbox.failed(&task_id, error);
                            }
                        }
                        lock(&shared.exchanges).remove(&task_id);
                    });
                    exchanges.insert(id, task.abort_handle());
                    Ok(())
                }
                OutboundKind::Notification | OutboundKind::Response => {
                    let response = self.shared.exchange(message).await?;
                    self.shared.remember_session(&response);
                    let status = response.status();
                    if status.is_success() {
                        return Ok(());
                    }
                    let body = TransportError::body_excerpt(&response.bytes().await.unwrap_or_default());
                    Err(TransportError::Status { status: status.as_u16(), body })
                }
            }
        })
    }

    fn abandon(&self, id: &RequestId) -> bool {
        match lock(&self.shared.exchanges).remove(id) {
            Some(task) => {
                // Dropping the response closes its stream: over 2026-07-28, that is the cancel.
                task.abort();
                true
            }
            None => false,
        }
    }

    fn has_headers(&self) -> bool {
        true
    }

    fn credential(&self) -> Option<u64> {
        use std::hash::BuildHasher;
        let token = self.bearer.as_ref()?;
        // Keyed per process: the fingerprint says nothing of the token outside it.
        static KEY: OnceLock<foldhash::quality::RandomState> = OnceLock::new();
        Some(KEY.get_or_init(Default::default).hash_one(token))
    }

    fn settled(&self, protocol: &Protocol) -> BoxFuture<'_, ()> {
        let legacy = match protocol {
            Protocol::Legacy(version) => HeaderValue::from_str(version).ok(),
            _ => None,
        };
        Box::pin(async move {
            let Some(version) = legacy else { return };
            *lock(&self.shared.legacy_version) = Some(version);
            let Some(inbox) = lock(&self.shared.inbox).clone() else { return };
            // The server's own requests (elicitation, sampling) may come only on this stream,
            // so the client waits until it is open; a server without one answers 404 or 405.
            let opened = tokio::time::timeout(STANDALONE_TIMEOUT, self.shared.get_stream(None)).await;
            match opened {
                Ok(Ok(response)) if response.status().is_success() && is_event_stream(&response) => {
                    let shared = self.shared.clone();
                    let task = tokio::spawn(async move { shared.standalone(response, inbox).await });
                    if let Some(old) = lock(&self.shared.standalone).replace(task.abort_handle()) {
                        old.abort();
                    }
                }
                Ok(Ok(response)) => tracing::debug!(status = %response.status(), "no standalone stream"),
                Ok(Err(error)) => tracing::debug!(%error, "cannot open the standalone stream"),
                Err(_) => tracing::debug!("the standalone stream did not open in time"),
            }
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            for (_, task) in lock(&self.shared.exchanges).drain() {
                task.abort();
            }
            if let Some(task) = lock(&self.shared.standalone).take() {
                task.abort();
            }
            let session = lock(&self.shared.session).take();
            if let (Some(session), Some(http), Some(url)) = (session, self.shared.http.get(), self.shared.url.get()) {
                // Ends the 2025-11-25 session; a server that keeps none answers 405, which is fine.
                let _ = http
                    .delete(url.clone())
                    .headers(self.shared.fixed.get().cloned().unwrap_or_default())
                    .header(SESSION_ID, session)
                    .send()
                    .await;
            }
            lock(&self.shared.inbox).take();
        })
    }
}
