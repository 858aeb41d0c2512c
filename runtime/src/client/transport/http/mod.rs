//! Streamable HTTP: each message its own POST, each answer a JSON body or a server-sent event
//! stream, read within the client's limits. A 2025-11-25 session's id travels in
//! `Mcp-Session-Id`, and its broken streams are resumed with `Last-Event-ID` after the
//! server's `retry:`. Redirects are followed only within the server's origin: the headers the
//! application gave go to no one else.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};

use super::{ClientTransport, Inbox, Outbound, OutboundKind, TransportError};
use crate::client::Protocol;
use crate::client::limits::DEFAULT_CONNECT_TIMEOUT;
#[cfg(feature = "oauth")]
use crate::client::oauth::Login;
use crate::future::BoxFuture;
use crate::jsonrpc::RequestId;

mod answer;
mod authorized;
mod clients;

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
    connect_timeout: Duration,
    shared: Arc<HttpState>,
}

struct HttpState {
    url: OnceLock<reqwest::Url>,
    http: OnceLock<reqwest::Client>,
    /// How long a connection may take (for the message of a connect timeout).
    connect_timeout: Duration,
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
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            shared: Arc::new(HttpState {
                url: OnceLock::new(),
                http: OnceLock::new(),
                connect_timeout: DEFAULT_CONNECT_TIMEOUT,
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

    /// Uses this `reqwest` client (its proxies, timeouts, TLS roots) instead of the crate's
    /// own, which trusts the system's root certificates, connects within
    /// [`connect_timeout`](Self::connect_timeout), follows redirects only within the server's
    /// origin and none for OAuth.
    ///
    /// The client's limits hold with it too (an answer is read within them, and an answer
    /// from another origin than the server's is refused), but headers go where *its* redirect
    /// policy sends them: give it `reqwest::redirect::Policy::none()` unless you trust every
    /// server it will talk to.
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// How long the crate's own HTTP client waits for a connection, TLS included (default
    /// 10 s); a client given to [`with_client`](Self::with_client) has its own.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.connect_timeout = timeout;
        }
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
        let (http, oauth) = match &self.client {
            Some(client) => (client.clone(), client.clone()),
            None => {
                let built = clients::build(self.connect_timeout)?;
                (built.mcp, built.oauth)
            }
        };
        #[cfg(feature = "oauth")]
        if let Some(login) = self.shared.login.get() {
            login.attach(&oauth);
        }
        #[cfg(not(feature = "oauth"))]
        drop(oauth);
        let _ = self.shared.url.set(url);
        let _ = self.shared.fixed.set(fixed);
        let _ = self.shared.http.set(http);
        Ok(())
    }
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
                    let idle = message.idle_timeout;
                    let task = tokio::spawn(async move {
                        match shared.exchange(message).await {
                            Ok(response) => shared.answer(&task_id, response, &inbox, idle).await,
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
                    self.shared.acknowledged(response, &inbox).await
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
                Ok(Ok(response)) if self.shared.opens_stream(&response) => {
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
