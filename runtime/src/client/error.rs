//! Every way a client call can fail, each a variant that says what happened.

use std::borrow::Cow;
use std::time::Duration;

use super::limits::Limit;
use super::transport::TransportError;
use crate::error::ErrorCode;
use crate::form::FormViolation;
use crate::jsonrpc::ErrorObject;
use crate::model::CallToolResult;

/// Why a client call failed.
///
/// ```
/// use mcp_rounds::client::ClientError;
///
/// fn explain(error: &ClientError) -> &'static str {
///     match error {
///         e if e.is_timeout() => "the server is slow",
///         e if e.code() == Some(-32602) => "the arguments are wrong",
///         ClientError::Tool { .. } => "the tool ran and reported an error",
///         _ => "something else",
///     }
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("{method}: the server answered error {}: {}", .error.code, .error.message)]
    Protocol {
        /// The method called.
        method: Cow<'static, str>,
        /// The error as the server sent it.
        error: Box<ErrorObject>,
    },
    /// The tool ran and reported its own failure (`isError: true`); the result is what the
    /// model would read.
    #[error("tool `{name}` reported an error: {}", tool_text(.result))]
    Tool {
        /// The tool.
        name: String,
        /// Its result.
        result: Box<CallToolResult>,
    },
    /// The transport failed, or the exchange ended without an answer.
    #[error("{method}: {source}")]
    Transport {
        /// The method called (or `connect`).
        method: Cow<'static, str>,
        /// What the transport says.
        #[source]
        source: TransportError,
    },
    /// No answer came in time; the request was cancelled.
    #[error("{method}: no answer within {after:?}")]
    Timeout {
        /// The method called.
        method: Cow<'static, str>,
        /// How long the client waited.
        after: Duration,
    },
    /// What the server sent went over one of the client's limits: an answer too large, too
    /// many input requests in a round. What was read of it is dropped.
    #[error("{method}: the server sent {limit}")]
    OverLimit {
        /// The method called.
        method: Cow<'static, str>,
        /// The limit, and by how much.
        limit: Limit,
    },
    /// The server kept asking for input beyond the client's round limit (the rounds of a
    /// task it made of the call count too).
    #[error("{method}: still asking for input after {limit} rounds")]
    TooManyRounds {
        /// The method called.
        method: Cow<'static, str>,
        /// The limit.
        limit: usize,
    },
    /// An input request the client cannot or will not answer: no handler for its kind, or the
    /// handler refused it.
    #[error("cannot answer input request `{key}` ({method}): {reason}")]
    Unanswered {
        /// The server's key for it (or the id of a 2025-11-25 server's request).
        key: String,
        /// Its method.
        method: Cow<'static, str>,
        /// Why.
        reason: String,
    },
    /// The handler's answer to a form does not fit the form's schema; it was not sent.
    #[error("the answer to form `{key}` does not fit its schema: {violation}")]
    InvalidAnswer {
        /// The server's key for the form.
        key: String,
        /// What does not fit.
        violation: FormViolation,
    },
    /// A result that does not read as the method's result, or an unknown `resultType`.
    #[error("{method}: unexpected result: {reason}")]
    UnexpectedResult {
        /// The method called.
        method: Cow<'static, str>,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool whose description the client refuses to call (an invalid `x-mcp-header`
    /// annotation makes the whole tool invalid).
    #[error("tool `{name}` cannot be called: {reason}")]
    InvalidTool {
        /// The tool.
        name: String,
        /// Why.
        reason: String,
    },
    /// The task the server made of the call was cancelled.
    #[error("task {task_id} was cancelled")]
    TaskCancelled {
        /// The task.
        task_id: String,
    },
    /// The server and the client share no protocol version.
    #[error("no protocol version in common: {0}")]
    Version(String),
    /// The method does not exist in the protocol version the client speaks with this server.
    #[error("{method} is not part of protocol version {version}")]
    NotInVersion {
        /// The method.
        method: Cow<'static, str>,
        /// The version negotiated.
        version: String,
    },
}

fn tool_text(result: &CallToolResult) -> String {
    let text: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).collect();
    if text.is_empty() { "(no text)".to_owned() } else { text.join(" ") }
}

impl ClientError {
    /// The JSON-RPC error code, for an error the server answered.
    pub fn code(&self) -> Option<i64> {
        match self {
            ClientError::Protocol { error, .. } => Some(error.code),
            ClientError::Transport { source: TransportError::Rejected { error, .. }, .. } => Some(error.code),
            _ => None,
        }
    }

    /// The JSON-RPC error the server answered, if it did.
    pub fn error_object(&self) -> Option<&ErrorObject> {
        match self {
            ClientError::Protocol { error, .. } => Some(error),
            ClientError::Transport { source: TransportError::Rejected { error, .. }, .. } => Some(error),
            _ => None,
        }
    }

    /// Whether the server answered with this code.
    pub fn is(&self, code: ErrorCode) -> bool {
        self.code() == Some(i64::from(code.code()))
    }

    /// Whether no answer came in time.
    pub fn is_timeout(&self) -> bool {
        matches!(self, ClientError::Timeout { .. })
    }

    /// Whether the server went over one of the client's limits (a size, a count, the rounds).
    pub fn is_over_limit(&self) -> bool {
        matches!(self, ClientError::OverLimit { .. } | ClientError::TooManyRounds { .. })
    }

    /// Whether the transport failed (the server unreachable, gone, or not speaking JSON-RPC).
    pub fn is_transport(&self) -> bool {
        matches!(self, ClientError::Transport { .. })
    }

    /// Whether a tool ran and reported an error.
    pub fn is_tool_error(&self) -> bool {
        matches!(self, ClientError::Tool { .. })
    }

    pub(crate) fn transport(method: impl Into<Cow<'static, str>>, source: TransportError) -> Self {
        ClientError::Transport { method: method.into(), source }
    }

    /// A transport's failure, as the kind of error it is: a limit or a timeout is named as
    /// such, whichever layer found it.
    pub(crate) fn from_transport(method: impl Into<Cow<'static, str>>, source: TransportError) -> Self {
        match source {
            TransportError::OverLimit(limit) => ClientError::OverLimit { method: method.into(), limit },
            TransportError::TimedOut { after, .. } => ClientError::Timeout { method: method.into(), after },
            source => ClientError::Transport { method: method.into(), source },
        }
    }

    pub(crate) fn unexpected(method: impl Into<Cow<'static, str>>, reason: impl Into<String>) -> Self {
        ClientError::UnexpectedResult { method: method.into(), reason: reason.into() }
    }
}
