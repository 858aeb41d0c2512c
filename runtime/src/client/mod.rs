//! The client: calls any MCP server, of either revision, over any transport, and answers what
//! it asks.
//!
//! One [`Client`] (cheap to clone, one connection behind it) speaks 2026-07-28 with a modern
//! server and a 2025-11-25 session with an older one, chosen when it connects ([`Lifecycle`]).
//! A call that answers `input_required` is answered by the client's [`ClientHandler`] and
//! retried, round after round, until it completes; a 2025-11-25 server's own requests reach
//! the same handler.
//!
//! Over a child process's stdio:
//!
//! ```no_run
//! use mcp_rounds::client::{ChildProcess, Client};
//!
//! # async fn run() -> Result<(), mcp_rounds::client::ClientError> {
//! let client = Client::builder().name("my-agent", "1.0.0").connect(ChildProcess::new("notes-server")).await?;
//! let result = client.call_tool("notes_list", serde_json::json!({})).await?;
//! println!("{:?}", result.content);
//! # Ok(()) }
//! ```
//!
//! In the same process, against a [`Server`](crate::Server):
//!
//! ```
//! use mcp_rounds::client::Client;
//! use mcp_rounds::transport::in_process::InProcess;
//! use mcp_rounds::{Server, handlers, tool};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> String {
//!     (a + b).to_string()
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp_rounds::client::ClientError> {
//! let server = Server::builder("calc", "1.0.0").handlers(handlers![add]).build().unwrap();
//! let client = Client::builder().connect(InProcess::new(&server)).await?;
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 40})).await?;
//! assert_eq!(result.content[0].as_text(), Some("42"));
//! # Ok(()) }
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

#[cfg(feature = "client-http")]
pub mod address;
mod builder;
mod cache;
mod calls;
mod error;
mod events;
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing;
mod handler;
mod lifecycle;
mod limits;
mod link;
mod listen;
mod message;
#[cfg(all(feature = "oauth", feature = "client-http"))]
pub mod oauth;
#[cfg(feature = "client-http")]
mod reading;
mod rounds;
mod tasks;
pub mod transport;

pub use builder::{ClientBuilder, DEFAULT_MAX_ROUNDS, DEFAULT_PROBE_TIMEOUT};
pub use calls::{ByHand, RoundByRound};
pub use error::ClientError;
pub use handler::{Asking, ClientHandler};
pub use lifecycle::{Lifecycle, ServerHello};
pub use limits::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_INPUT_REQUESTS, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_MAX_SERVER_REQUESTS, Limit,
    MAX_RETRY,
};
pub use listen::{Listening, Notice};
pub use message::Protocol;
pub use rounds::Resumable;
#[cfg(feature = "client-http")]
pub use transport::StreamableHttp;
pub use transport::{ChildProcess, ClientTransport, Inbox, Outbound, OutboundKind, Traffic, TransportError};

use self::cache::Cache;
use self::events::ProgressRoutes;
use self::handler::DynHandler;
use self::link::{Link, Sending};
use self::listen::Listeners;
use self::message::Stamp;
use self::transport::OutboundKind as Kind;
use crate::error::ErrorCode;
use crate::headers::ParamHeader;
use crate::jsonrpc::RequestId;
use crate::method::{Method, Typed};
use crate::model::{Implementation, ProgressToken, ServerCapabilities};

/// Each listed tool's `x-mcp-header` declarations, or why they are invalid.
type ToolHeaders = HashMap<String, Result<Vec<ParamHeader>, String>>;

/// A connection to one MCP server. Clones share it.
///
/// Made by [`Client::builder`]; see the [module](self) for examples.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Connected>,
}

struct Connected {
    link: Link,
    stamp: Stamp,
    hello: ServerHello,
    handler: Arc<dyn DynHandler>,
    max_rounds: usize,
    limits: limits::Limits,
    request_timeout: Option<Duration>,
    /// Whether the transport sends headers (HTTP): then a call of a tool sends its
    /// `Mcp-Param-*` headers, read from the tool's listed schema.
    headers: bool,
    /// The `x-mcp-header` declarations of each listed tool (or why they are invalid), from the
    /// last `tools/list`; emptied when the server says the list changed.
    tool_headers: Arc<Mutex<Option<ToolHeaders>>>,
    /// Results kept by their cache hints (`None`: the builder turned caching off).
    cache: Arc<Cache>,
    caching: bool,
    listeners: Arc<Listeners>,
    progress: Arc<ProgressRoutes>,
    events: tokio::task::AbortHandle,
}

impl Drop for Connected {
    fn drop(&mut self) {
        self.events.abort();
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("protocol", &self.inner.stamp.protocol).finish_non_exhaustive()
    }
}

impl Client {
    /// A builder: name, capabilities, handler, lifecycle and limits, then a transport.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// The protocol settled on with the server.
    pub fn protocol(&self) -> &Protocol {
        &self.inner.stamp.protocol
    }

    /// What the server said when the client connected.
    pub fn hello(&self) -> &ServerHello {
        &self.inner.hello
    }

    /// What the server offers, if the client asked.
    pub fn server_capabilities(&self) -> Option<&ServerCapabilities> {
        match &self.inner.hello {
            ServerHello::Discovered(d) => Some(&d.capabilities),
            ServerHello::Initialized(i) => Some(&i.capabilities),
            ServerHello::Unasked => None,
        }
    }

    /// Who the server says it is, if it says.
    pub fn server_info(&self) -> Option<&Implementation> {
        match &self.inner.hello {
            ServerHello::Discovered(d) => d.meta.server_info.as_deref(),
            ServerHello::Initialized(i) => Some(&i.server_info),
            ServerHello::Unasked => None,
        }
    }

    /// The server's guidance for the model, if any.
    pub fn instructions(&self) -> Option<&str> {
        match &self.inner.hello {
            ServerHello::Discovered(d) => d.instructions.as_deref(),
            ServerHello::Initialized(i) => i.instructions.as_deref(),
            ServerHello::Unasked => None,
        }
    }

    /// Sends method `M` with `params` and reads its result, as the method table types it:
    /// any method, including those this client has no shorthand for. A result that may ask
    /// for input comes back as the server sent it (see [`Client::round_by_round`] and the
    /// shorthands that answer rounds).
    ///
    /// ```no_run
    /// use mcp_rounds::client::Client;
    /// use mcp_rounds::method::typed::ToolsList;
    /// use mcp_rounds::model::PaginatedRequestParams;
    ///
    /// # async fn run(client: Client) -> Result<(), mcp_rounds::client::ClientError> {
    /// let page = client.request::<ToolsList>(&PaginatedRequestParams::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn request<M: Typed>(&self, params: &M::Params) -> Result<M::Result, ClientError> {
        let method = M::METHOD;
        let subject = match method.subject() {
            Some(subject) if self.inner.headers => serde_json::to_value(params)
                .ok()
                .and_then(|v| v.get(subject.param()).and_then(|s| s.as_str().map(str::to_owned))),
            _ => None,
        };
        let raw = self.send(method, params, Extras::naming(subject.as_deref())).await?;
        read(method.name(), &raw)
    }

    /// Sends one request of the table and returns its raw result.
    pub(crate) async fn send<P: Serialize>(
        &self,
        method: Method,
        params: &P,
        extras: Extras<'_>,
    ) -> Result<Box<RawValue>, ClientError> {
        let protocol = &self.inner.stamp.protocol;
        let revisions = method.revisions();
        if (protocol.is_legacy() && !revisions.legacy()) || (!protocol.is_legacy() && !revisions.current()) {
            return Err(ClientError::NotInVersion {
                method: method.name().into(),
                version: protocol.version().to_owned(),
            });
        }
        self.send_named(Cow::Borrowed(method.name()), params, extras).await
    }

    /// Sends any method, named as given, enveloped as every request is, and returns its raw
    /// result: a method this crate's table does not have (an extension's, a vendor's), or
    /// params built by hand. `params` must be a JSON object without `_meta`.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_rounds::client::Client) -> Result<(), mcp_rounds::client::ClientError> {
    /// let result = client.request_raw("acme/status", serde_json::json!({"verbose": true})).await?;
    /// # Ok(()) }
    /// ```
    pub async fn request_raw(&self, method: &str, params: serde_json::Value) -> Result<serde_json::Value, ClientError> {
        let method: Cow<'static, str> = match Method::from_name(method) {
            Some(known) => Cow::Borrowed(known.name()),
            None => Cow::Owned(method.to_owned()),
        };
        if !params.is_object() {
            return Err(ClientError::unexpected(method, "the params must be a JSON object"));
        }
        if params.get("_meta").is_some() {
            return Err(ClientError::unexpected(method, "the client writes the params' `_meta` itself"));
        }
        let subject = Method::from_name(&method)
            .and_then(Method::subject)
            .and_then(|subject| params.get(subject.param()).and_then(|v| v.as_str()).map(str::to_owned));
        let raw = self.send_named(method.clone(), &params, Extras::naming(subject.as_deref())).await?;
        read(method, &raw)
    }

    async fn send_named<P: Serialize>(
        &self,
        method: Cow<'static, str>,
        params: &P,
        extras: Extras<'_>,
    ) -> Result<Box<RawValue>, ClientError> {
        let Extras { subject, headers: extra_headers, progress, on_id } = extras;
        let inner = &*self.inner;
        let protocol = &inner.stamp.protocol;
        let mut retried = false;
        loop {
            let id = inner.link.next_id();
            if let Some(on_id) = on_id {
                on_id(&id);
            }
            let body = inner
                .stamp
                .request(&id, &method, params, progress)
                .map_err(|e| ClientError::unexpected(method.clone(), format!("the params do not serialize: {e}")))?;
            let headers =
                if inner.headers { inner.stamp.headers(&method, subject, extra_headers.clone()) } else { Vec::new() };
            let mut outbound = Outbound::new(body, Kind::Request(id.clone()));
            outbound.headers = headers;
            let sending = Sending {
                method: method.clone(),
                outbound,
                timeout: inner.request_timeout,
                always_notify: protocol.is_legacy(),
                // A listen stream is silent for as long as nothing changes.
                open_ended: method == Method::SubscriptionsListen.name(),
            };
            match inner.link.request(id, sending).await {
                // A modern server that says it speaks this very version refused it: once more,
                // with a new id (it may have changed what it accepts since the client connected).
                Err(error)
                    if !retried && error.is(ErrorCode::UnsupportedProtocolVersion) && speaks(&error, protocol) =>
                {
                    retried = true;
                }
                answer => return answer,
            }
        }
    }

    /// Closes the connection: a child process's stdin is closed and the process waited for,
    /// an HTTP session ended. Requests still waiting fail.
    pub async fn close(self) {
        self.inner.link.transport.close().await;
    }

    fn tool_headers(&self) -> std::sync::MutexGuard<'_, Option<ToolHeaders>> {
        self.inner.tool_headers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What a request carries besides its params.
#[derive(Default)]
pub(crate) struct Extras<'a> {
    /// What it names (`Mcp-Name`).
    pub(crate) subject: Option<&'a str>,
    /// Headers of its own (a tool's `Mcp-Param-*`).
    pub(crate) headers: Vec<(String, String)>,
    /// The progress token asked for.
    pub(crate) progress: Option<&'a ProgressToken>,
    /// Told each id the request is sent under, before it is sent.
    pub(crate) on_id: Option<&'a (dyn Fn(&RequestId) + Send + Sync)>,
}

impl<'a> Extras<'a> {
    pub(crate) fn naming(subject: Option<&'a str>) -> Self {
        Extras { subject, ..Extras::default() }
    }
}

/// Whether a -32022 lists the version the client speaks.
fn speaks(error: &ClientError, protocol: &Protocol) -> bool {
    let supported = error.error_object().and_then(|e| e.data.as_ref()).and_then(|d| d.get("supported"));
    supported.and_then(|s| s.as_array()).is_some_and(|list| list.iter().any(|v| v.as_str() == Some(protocol.version())))
}

/// Reads a result as `T`.
fn read<T: DeserializeOwned>(method: impl Into<Cow<'static, str>>, raw: &RawValue) -> Result<T, ClientError> {
    serde_json::from_str(raw.get()).map_err(|e| ClientError::unexpected(method, e.to_string()))
}
