//! What carries a client's messages: the [`ClientTransport`] trait, the [`Outbound`] message it
//! sends and the [`Inbox`] it delivers to.
//!
//! A transport frames, authenticates and maps statuses, nothing more: the client decides the
//! era, builds every message (its headers included) and reads every answer. Three ship with
//! the crate: a child process's stdio ([`ChildProcess`]), Streamable HTTP (`StreamableHttp`,
//! feature `client-http`) and a [`Server`](crate::Server) in the same process
//! ([`InProcess`](crate::transport::in_process::InProcess)).

use std::fmt;
use std::time::Duration;

use super::limits::Limit;
use super::message::Protocol;
use crate::future::BoxFuture;
use crate::jsonrpc::{ErrorObject, RequestId};

mod child;
mod event_stream;
#[cfg(feature = "client-http")]
mod http;
mod inbox;
#[cfg(feature = "client-http")]
mod sse;
mod watched;

pub use child::ChildProcess;
pub use event_stream::{EventStreamDecoder, ServerEvent};
#[cfg(feature = "client-http")]
pub use http::StreamableHttp;
pub use inbox::Inbox;
pub(crate) use inbox::{Event, EventQueue};
pub use watched::Traffic;
pub(crate) use watched::{Watch, Watched};

/// Carries JSON-RPC messages between a [`Client`](super::Client) and one server.
///
/// Implement it for a transport of your own (a socket, a message queue); the client calls
/// [`open`](Self::open) once before anything is sent, and again to start over after the
/// server went away (a child process that exited is started again).
pub trait ClientTransport: Send + Sync + 'static {
    /// Starts talking to the server: every message it sends from now on goes to `inbox`.
    fn open(&self, inbox: Inbox) -> BoxFuture<'_, Result<(), TransportError>>;

    /// Sends one message. What the server answers to a request arrives on the inbox, or, when
    /// the exchange fails without an answer, [`Inbox::failed`] for its id.
    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), TransportError>>;

    /// The client no longer waits for request `id`: stop reading what comes for it. Returns
    /// whether that alone tells the server to stop (closing an HTTP response stream does);
    /// when it does not, the client sends `notifications/cancelled`.
    fn abandon(&self, id: &RequestId) -> bool {
        let _ = id;
        false
    }

    /// The client settled on `protocol` with the server. A 2025-11-25 session over HTTP opens
    /// its standalone stream here, where the server's own requests come.
    fn settled(&self, protocol: &Protocol) -> BoxFuture<'_, ()> {
        let _ = protocol;
        Box::pin(async {})
    }

    /// A fingerprint of the credential the transport sends (a bearer token), so that a
    /// result the server marked private serves only calls made with the same credential.
    fn credential(&self) -> Option<u64> {
        None
    }

    /// Whether this transport sends headers with a message (HTTP does): the client then
    /// fills [`Outbound::headers`] in.
    fn has_headers(&self) -> bool {
        false
    }

    /// Ends the connection: closes the child's stdin and waits for it, ends an HTTP session.
    fn close(&self) -> BoxFuture<'_, ()>;
}

/// One message for the server, encoded once by the client.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Outbound {
    /// The JSON-RPC message.
    pub body: Vec<u8>,
    /// A request (with its id), a notification, or the answer to a server's request.
    pub kind: OutboundKind,
    /// The headers the revision asks a transport that has headers to send with it
    /// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), values already
    /// encoded. A transport without headers ignores them.
    pub headers: Vec<(String, String)>,
    /// The longest silence the transport may wait through while it reads this request's
    /// answer before it fails it with [`TransportError::TimedOut`]; `None`: no limit (a
    /// listen stream, or a client without an idle timeout).
    pub idle_timeout: Option<Duration>,
}

impl Outbound {
    /// A message of `kind` with no headers.
    pub fn new(body: Vec<u8>, kind: OutboundKind) -> Self {
        Outbound { body, kind, headers: Vec::new(), idle_timeout: None }
    }
}

/// What an [`Outbound`] message is.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutboundKind {
    /// A request: its answer is awaited under this id.
    Request(RequestId),
    /// A notification.
    Notification,
    /// The answer to a request the server sent (a 2025-11-25 session).
    Response,
}

/// Why a transport could not carry a message, or an exchange ended without an answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The server could not be reached or started (the cause says why).
    #[error("cannot reach the server: {0}")]
    Connect(String),
    /// The connection ended: the process exited or closed its output, the stream broke.
    #[error("the connection closed: {0}")]
    Closed(String),
    /// An HTTP status that carries no JSON-RPC answer.
    #[error("HTTP {status}{}", excerpt(.body))]
    Status {
        /// The status code.
        status: u16,
        /// The start of the body, for the error message.
        body: String,
    },
    /// An HTTP error status whose body is a JSON-RPC error (for a request whose id it may not
    /// repeat).
    #[error("HTTP {status}: {} ({})", .error.message, .error.code)]
    Rejected {
        /// The status code.
        status: u16,
        /// The JSON-RPC error of the body.
        error: Box<ErrorObject>,
    },
    /// The server wants authorization the client could not get (or has none to try).
    #[error("authorization needed: {0}")]
    Unauthorized(String),
    /// The server sent something that is not JSON-RPC.
    #[error("the server sent something that is not JSON-RPC: {0}")]
    Malformed(String),
    /// Writing or reading failed.
    #[error("{0}")]
    Io(String),
    /// What the server sent went over one of the client's limits; the rest was not read.
    #[error("the server sent {0}")]
    OverLimit(Limit),
    /// Nothing came for too long: no connection, or silence in the middle of an answer.
    #[error("no {waiting_for} within {after:?}")]
    TimedOut {
        /// What the client waited for (`a connection`, `the rest of the answer`).
        waiting_for: String,
        /// How long it waited.
        after: Duration,
    },
    /// The server sent the request elsewhere (an HTTP redirect the client does not follow:
    /// to another origin, or for OAuth metadata at all).
    #[error("HTTP {status}: the server redirects to {location}, which the client does not follow{reason}")]
    Redirected {
        /// The status code.
        status: u16,
        /// Where the server pointed (as much as it said).
        location: String,
        /// Why not, when there is more to say than where it points.
        reason: String,
    },
}

fn excerpt(body: &str) -> String {
    if body.is_empty() { String::new() } else { format!(": {body}") }
}

impl TransportError {
    /// The start of a body, at most 200 characters, for an error message.
    pub(crate) fn body_excerpt(body: &[u8]) -> String {
        // Enough bytes for 200 characters of any width, not a copy of the whole body.
        let text = String::from_utf8_lossy(&body[..body.len().min(800)]);
        let mut end = text.len().min(200);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text[..end].trim().to_owned()
    }
}

impl fmt::Display for OutboundKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutboundKind::Request(id) => write!(f, "request {id}"),
            OutboundKind::Notification => f.write_str("notification"),
            OutboundKind::Response => f.write_str("response"),
        }
    }
}
