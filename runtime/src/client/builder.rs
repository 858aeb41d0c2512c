//! [`ClientBuilder`]: who the client is, what it can do, who answers for it, and how it opens
//! the conversation; then a transport.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::cache::Cache;
use super::error::ClientError;
use super::events::{Events, ProgressRoutes};
use super::handler::{ClientHandler, DynHandler};
use super::lifecycle::{Lifecycle, Opening};
use super::limits::Limits;
use super::link::Link;
use super::listen::Listeners;
use super::transport::{ClientTransport, Traffic, Watch, Watched};
use super::{Client, Connected};
use crate::model::{ClientCapabilities, Implementation};

/// Rounds a call answers by itself before it gives up, unless the builder says otherwise.
pub const DEFAULT_MAX_ROUNDS: usize = 10;

/// How long `server/discover` may take before [`Lifecycle::Auto`] tries the handshake.
pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Builds a [`Client`]. Everything has a default: a client named `mcp-rounds`, declaring no
/// capabilities, answering nothing, [`Lifecycle::Auto`].
///
/// ```no_run
/// use mcp_rounds::client::{ChildProcess, Client, Lifecycle};
/// use mcp_rounds::model::{ClientCapabilities, ElicitationCapability};
///
/// # async fn run() -> Result<(), mcp_rounds::client::ClientError> {
/// let mut capabilities = ClientCapabilities::default();
/// capabilities.elicitation = Some(ElicitationCapability::form());
/// let client = Client::builder()
///     .name("my-agent", "1.0.0")
///     .capabilities(capabilities)
///     .lifecycle(Lifecycle::Discover)
///     .connect(ChildProcess::new("notes-server"))
///     .await?;
/// # Ok(()) }
/// ```
#[must_use]
pub struct ClientBuilder {
    opening: Opening,
    handler: Arc<dyn DynHandler>,
    max_rounds: usize,
    limits: Limits,
    caching: bool,
    watch: Option<Watch>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("opening", &self.opening)
            .field("max_rounds", &self.max_rounds)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ClientBuilder {
    /// The defaults.
    pub fn new() -> Self {
        ClientBuilder {
            opening: Opening {
                lifecycle: Lifecycle::Auto,
                capabilities: ClientCapabilities::default(),
                info: Implementation::new("mcp-rounds", env!("CARGO_PKG_VERSION")),
                probe_timeout: DEFAULT_PROBE_TIMEOUT,
                request_timeout: None,
                version: None,
            },
            handler: Arc::new(()),
            max_rounds: DEFAULT_MAX_ROUNDS,
            limits: Limits::default(),
            caching: true,
            watch: None,
        }
    }

    /// Who the client says it is (`clientInfo`).
    pub fn name(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info(Implementation::new(name, version))
    }

    /// Who the client says it is, with title, description or icons.
    pub fn info(mut self, info: Implementation) -> Self {
        self.opening.info = info;
        self
    }

    /// What the client can do: sent exactly as declared, on every request of 2026-07-28 and
    /// in a 2025-11-25 handshake. Declare what the [handler](Self::handler) answers.
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.opening.capabilities = capabilities;
        self
    }

    /// Who answers what the server asks.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// How the conversation opens (default [`Lifecycle::Auto`]).
    pub fn lifecycle(mut self, lifecycle: Lifecycle) -> Self {
        self.opening.lifecycle = lifecycle;
        self
    }

    /// The protocol version to offer first: a 2026-07-28 one for `server/discover`, or a
    /// 2025-11-25 one for the handshake (default: the newest of each this crate speaks).
    pub fn protocol_version(mut self, version: impl Into<String>) -> Self {
        self.opening.version = Some(version.into());
        self
    }

    /// How long [`Lifecycle::Auto`]'s `server/discover` may take before the client tries the
    /// handshake instead (default 5 s).
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.opening.probe_timeout = timeout;
        self
    }

    /// How long any request may wait for its answer before it is cancelled (default: no
    /// limit).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.opening.request_timeout = Some(timeout);
        self
    }

    /// Rounds of `input_required` a call answers by itself before it fails with
    /// [`ClientError::TooManyRounds`] (default 10). The rounds of a task the server made of
    /// the call count too: each answer to a task's input requests is one.
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// The largest message the client reads from the server, in bytes (default 32 MiB): a
    /// JSON answer, one event of an event stream, one line of a child's output, an error
    /// body. A larger one is not read further and fails its call with
    /// [`ClientError::OverLimit`]; over stdio, where it cannot be told apart from what follows
    /// it, it ends the connection.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.limits.max_message_size = bytes;
        self
    }

    /// The most input requests one round may ask (default 64); more fail the call with
    /// [`ClientError::OverLimit`] before any is answered.
    pub fn max_input_requests(mut self, requests: usize) -> Self {
        self.limits.max_input_requests = requests;
        self
    }

    /// How many of a 2025-11-25 server's own requests may wait for the handler at once
    /// (default 16). Beyond them, each new one is refused with an error until some are
    /// answered.
    pub fn max_server_requests(mut self, requests: usize) -> Self {
        self.limits.max_server_requests = requests;
        self
    }

    /// The longest silence the client waits through while it reads an answer (default: no
    /// limit): a server that stops sending mid-answer, or never starts, fails the call with
    /// [`ClientError::Timeout`]. Listen streams, silent for as long as nothing changes, are
    /// exempt; [`request_timeout`](Self::request_timeout) bounds a whole request instead.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.limits.idle_timeout = Some(timeout);
        self
    }

    /// Whether results are kept as their cache hints allow (`ttlMs`, `cacheScope`; default
    /// on). Off, every call asks the server.
    pub fn cache(mut self, on: bool) -> Self {
        self.caching = on;
        self
    }

    /// Shows `watch` every message exchanged with the server, the lifecycle's included, as
    /// it is sent or received: for a client that lets its user see the conversation.
    ///
    /// ```
    /// use mcp_rounds::client::{Client, Traffic};
    ///
    /// let builder = Client::builder().on_traffic(|traffic| match traffic {
    ///     Traffic::Sent(body) => eprintln!("-> {}", String::from_utf8_lossy(body)),
    ///     Traffic::Received(body) => eprintln!("<- {}", String::from_utf8_lossy(body)),
    ///     _ => {}
    /// });
    /// # drop(builder);
    /// ```
    pub fn on_traffic(mut self, watch: impl Fn(Traffic<'_>) + Send + Sync + 'static) -> Self {
        self.watch = Some(Arc::new(watch));
        self
    }

    /// Connects over `transport` and settles the protocol with the server.
    pub async fn connect(self, transport: impl ClientTransport) -> Result<Client, ClientError> {
        let transport: Arc<dyn ClientTransport> = match self.watch {
            Some(watch) => Arc::new(Watched { inner: Arc::new(transport), watch }),
            None => Arc::new(transport),
        };
        let headers = transport.has_headers();
        let (mut link, events) =
            Link::open(transport, self.limits).await.map_err(|e| ClientError::from_transport("connect", e))?;
        let settled = match self.opening.settle(&mut link, events).await {
            Ok(settled) => settled,
            Err(error) => {
                link.transport.close().await;
                return Err(error);
            }
        };
        link.transport.settled(&settled.stamp.protocol).await;
        let tool_headers = Arc::new(Mutex::new(None::<HashMap<_, _>>));
        let cache = Arc::new(Cache::default());
        let listeners = Arc::new(Listeners::default());
        let progress = Arc::new(ProgressRoutes::default());
        let events = Events {
            transport: link.transport.clone(),
            handler: self.handler.clone(),
            stamp: settled.stamp.clone(),
            cache: cache.clone(),
            listeners: listeners.clone(),
            progress: progress.clone(),
            tool_headers: tool_headers.clone(),
            asked: Mutex::default(),
            answering: Arc::new(tokio::sync::Semaphore::new(self.limits.max_server_requests)),
            max_server_requests: self.limits.max_server_requests,
        }
        .spawn(settled.events);
        let inner = Connected {
            link,
            stamp: settled.stamp,
            hello: settled.hello,
            handler: self.handler,
            max_rounds: self.max_rounds,
            limits: self.limits,
            request_timeout: self.opening.request_timeout,
            headers,
            tool_headers,
            cache,
            caching: self.caching,
            listeners,
            progress,
            events,
        };
        Ok(Client { inner: Arc::new(inner) })
    }
}
