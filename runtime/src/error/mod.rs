//! The one error type of the protocol layer and its mapping to JSON-RPC errors.
//!
//! Every protocol failure in the framework is an [`Error`], and this module is the only place
//! that decides its code, message and `data`. A tool's own failure is not an [`Error`]: it is
//! a [`CallToolResult`](crate::model::CallToolResult) with `isError: true`, which the model
//! can read and act on.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde_json::{Value, json};

use crate::model::ClientCapabilities;

mod build;
mod rejection;

pub use build::BuildError;
pub use rejection::Rejection;

/// The JSON-RPC error codes this revision defines, and the one of the framework's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// -32700: the bytes are not JSON.
    ParseError,
    /// -32600: JSON, but not a valid JSON-RPC request.
    InvalidRequest,
    /// -32601: unknown or removed method, or one behind a capability the server does not offer.
    MethodNotFound,
    /// -32602: bad parameters, missing `_meta` fields, unknown tool, prompt or resource.
    InvalidParams,
    /// -32603: an unexpected failure on the server.
    InternalError,
    /// -32020: HTTP headers missing, malformed or disagreeing with the body.
    HeaderMismatch,
    /// -32021: the request needs a client capability it did not declare.
    MissingRequiredClientCapability,
    /// -32022: the request's protocol version is not supported.
    UnsupportedProtocolVersion,
    /// -32002: the resource does not exist. Sent only in sessions of revision 2025-11-25 and
    /// earlier; 2026-07-28 answers -32602 with the URI in `data`.
    ResourceNotFound,
    /// -31429: the caller sent more requests than the server's rate limit allows; `data` says
    /// when to try again (`retryAfterMs`). The framework's own code, outside the ranges
    /// JSON-RPC and MCP reserve; over HTTP it is status 429 with `Retry-After`.
    RateLimited,
    /// -31403: the caller's access token lacks scopes the request needs; `data.requiredScopes`
    /// lists them. The framework's own code, like -31429; over HTTP it is status 403 with an
    /// `insufficient_scope` challenge (RFC 6750), which OAuth clients answer by asking for a
    /// token with those scopes.
    InsufficientScope,
    /// -31503: a store the request needs (where single-use states are claimed or tasks kept)
    /// cannot be reached right now, and nothing the request asked for began: send the same
    /// request again after `data.retryAfterMs`. A single-use state it carried is still usable.
    /// The one case where a handler ran is one that holds its claim open: its effect rolled
    /// back with the claim ([`Claim`](crate::rounds::Claim)) or is keyed on the state
    /// ([`IdempotencyKey`](crate::rounds::IdempotencyKey)), so the retry does not repeat it.
    /// The framework's own code, like -31429; over HTTP it is status 503 with `Retry-After`.
    Unavailable,
}

impl ErrorCode {
    /// The integer sent on the wire.
    pub const fn code(self) -> i32 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
            ErrorCode::HeaderMismatch => -32020,
            ErrorCode::MissingRequiredClientCapability => -32021,
            ErrorCode::UnsupportedProtocolVersion => -32022,
            ErrorCode::ResourceNotFound => -32002,
            ErrorCode::RateLimited => -31429,
            ErrorCode::InsufficientScope => -31403,
            ErrorCode::Unavailable => -31503,
        }
    }

    /// The code for an integer, if this revision defines it.
    pub const fn from_code(code: i32) -> Option<Self> {
        Some(match code {
            -32700 => ErrorCode::ParseError,
            -32600 => ErrorCode::InvalidRequest,
            -32601 => ErrorCode::MethodNotFound,
            -32602 => ErrorCode::InvalidParams,
            -32603 => ErrorCode::InternalError,
            -32020 => ErrorCode::HeaderMismatch,
            -32021 => ErrorCode::MissingRequiredClientCapability,
            -32022 => ErrorCode::UnsupportedProtocolVersion,
            -32002 => ErrorCode::ResourceNotFound,
            -31429 => ErrorCode::RateLimited,
            -31403 => ErrorCode::InsufficientScope,
            -31503 => ErrorCode::Unavailable,
            _ => return None,
        })
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i32(self.code())
    }
}

/// A JSON-RPC error: code, a one-sentence message and optional structured `data`.
///
/// Build one with the constructor named after the situation; each one fixes the code and the
/// exact shape of `data` the revision prescribes.
///
/// ```
/// use mcp_rounds::{Error, ErrorCode};
///
/// let err = Error::invalid_params("Unknown tool: frobnicate").with_data(serde_json::json!({"name": "frobnicate"}));
/// assert_eq!(err.code(), ErrorCode::InvalidParams);
/// assert_eq!(err.code().code(), -32602);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Error {
    code: ErrorCode,
    message: Cow<'static, str>,
    // Boxed: errors travel inside every `Result` of the request path, and most have no data.
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Box<Value>>,
    // Made by `resource_not_found`: revision 2025-11-25 has a code of its own for it.
    #[serde(skip)]
    missing_resource: bool,
    // Made by `unknown_name`: the name came from the client and names nothing served, so
    // telemetry does not take it as a tool's or prompt's name.
    #[serde(skip)]
    unknown_name: bool,
    // Made by `rate_limited` and `unavailable`: when the caller may try again, in milliseconds
    // (HTTP's `Retry-After`).
    #[serde(skip)]
    retry_after_ms: Option<u64>,
}

impl Error {
    /// An error with a code and message and no data.
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Error {
            code,
            message: message.into(),
            data: None,
            missing_resource: false,
            unknown_name: false,
            retry_after_ms: None,
        }
    }

    /// Attaches `data`, replacing any already there.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(Box::new(data));
        self
    }

    /// -32700: the message is not valid JSON.
    pub fn parse_error() -> Self {
        Error::new(ErrorCode::ParseError, "Parse error: the message is not valid JSON")
    }

    /// -32600: the message is not a valid JSON-RPC request.
    pub fn invalid_request(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(ErrorCode::InvalidRequest, message)
    }

    /// -32601 for a method this server does not serve, with `data.method`.
    pub fn method_not_found(method: &str) -> Self {
        Error::new(ErrorCode::MethodNotFound, format!("Method not found: {method}"))
            .with_data(json!({ "method": method }))
    }

    /// -32602 with a message and no data.
    pub fn invalid_params(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(ErrorCode::InvalidParams, message)
    }

    /// -32602 naming the offending field in `data.field`.
    pub fn invalid_field(field: &str, message: impl Into<Cow<'static, str>>) -> Self {
        Error::invalid_params(message).with_data(json!({ "field": field }))
    }

    /// -32602 for a tool or prompt (`kind`) this server does not serve, with `data.name`.
    pub fn unknown_name(kind: &str, name: &str) -> Self {
        let error = Error::invalid_params(format!("Unknown {kind}: {name}")).with_data(json!({ "name": name }));
        Error { unknown_name: true, ..error }
    }

    /// Whether this is [`unknown_name`](Self::unknown_name).
    pub(crate) fn is_unknown_name(&self) -> bool {
        self.unknown_name
    }

    /// -32602 for a resource that does not exist or cannot be read, with `data.uri`.
    pub fn resource_not_found(uri: &str) -> Self {
        let error = Error::invalid_params("Resource not found").with_data(json!({ "uri": uri }));
        Error { missing_resource: true, ..error }
    }

    /// -31429: over the rate limit; the caller may try again after `retry_after`.
    pub fn rate_limited(retry_after: std::time::Duration) -> Self {
        let millis = u64::try_from(retry_after.as_millis()).unwrap_or(u64::MAX).max(1);
        let error = Error::new(ErrorCode::RateLimited, format!("Rate limit exceeded: try again in {millis} ms"))
            .with_data(json!({ "retryAfterMs": millis }));
        Error { retry_after_ms: Some(millis), ..error }
    }

    /// -31503: a store the request needs failed (`cause`, logged on the server, never sent);
    /// the caller may send the same request again after `retry_after`.
    pub fn unavailable(cause: &dyn std::error::Error, retry_after: std::time::Duration) -> Self {
        tracing::warn!(error = %cause, "a store the request needs is unavailable");
        let millis = u64::try_from(retry_after.as_millis()).unwrap_or(u64::MAX).max(1);
        let error = Error::new(ErrorCode::Unavailable, format!("Temporarily unavailable: try again in {millis} ms"))
            .with_data(json!({ "retryAfterMs": millis }));
        Error { retry_after_ms: Some(millis), ..error }
    }

    /// -31403: the request needs `needed` (every scope of the tool, prompt or resource it
    /// would run), and the caller's token does not grant them all.
    pub fn insufficient_scope<S: AsRef<str>>(needed: &[S]) -> Self {
        let needed: Vec<&str> = needed.iter().map(AsRef::as_ref).collect();
        Error::new(ErrorCode::InsufficientScope, format!("Insufficient scope: this request needs {}", needed.join(" ")))
            .with_data(json!({ "requiredScopes": needed }))
    }

    /// The scopes an [`insufficient_scope`](Self::insufficient_scope) error names (empty for
    /// every other error).
    pub fn required_scopes(&self) -> Vec<&str> {
        if self.code != ErrorCode::InsufficientScope {
            return Vec::new();
        }
        let listed = self.data().and_then(|data| data.get("requiredScopes")).and_then(Value::as_array);
        listed.into_iter().flatten().filter_map(Value::as_str).collect()
    }

    /// When a caller refused for its rate or for an unavailable store may try again.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        self.retry_after_ms.map(std::time::Duration::from_millis)
    }

    /// Whether this is [`resource_not_found`](Self::resource_not_found).
    pub(crate) fn is_missing_resource(&self) -> bool {
        self.missing_resource
    }

    /// -32603 with a generic message. Internal details never reach the client.
    pub fn internal() -> Self {
        Error::new(ErrorCode::InternalError, "Internal error")
    }

    /// -32603 for an unexpected failure; the cause is logged on the server, never sent.
    pub fn internal_from(cause: &dyn std::error::Error) -> Self {
        tracing::error!(error = %cause, "internal error");
        Error::internal()
    }

    /// -32020: an HTTP header is missing, malformed or disagrees with the body.
    pub fn header_mismatch(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(ErrorCode::HeaderMismatch, message)
    }

    /// -32021 with `data.requiredCapabilities` set to the capabilities the request lacked.
    pub fn missing_capability(required: ClientCapabilities) -> Self {
        let what = required.describe();
        Error::new(
            ErrorCode::MissingRequiredClientCapability,
            format!("Server requires the {what} capability for this request"),
        )
        .with_data(json!({ "requiredCapabilities": required }))
    }

    /// -32022 with `data` exactly `{"supported": [...], "requested": "..."}`.
    pub fn unsupported_version(supported: &[&str], requested: &str) -> Self {
        Error::new(ErrorCode::UnsupportedProtocolVersion, "Unsupported protocol version")
            .with_data(json!({ "supported": supported, "requested": requested }))
    }

    /// The code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The data, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.code())
    }
}

impl std::error::Error for Error {}

/// A serde error's message without its " at line L column C" suffix, which points into a
/// buffer the client never saw.
pub(crate) fn serde_message(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rfind(" at line ") {
        Some(at) if err.line() > 0 => text[..at].to_owned(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ElicitationCapability, SamplingCapability};

    fn wire(err: &Error) -> Value {
        serde_json::to_value(err).unwrap()
    }

    #[test]
    fn every_code_maps_to_its_integer_and_back() {
        for (code, int) in [
            (ErrorCode::ParseError, -32700),
            (ErrorCode::InvalidRequest, -32600),
            (ErrorCode::MethodNotFound, -32601),
            (ErrorCode::InvalidParams, -32602),
            (ErrorCode::InternalError, -32603),
            (ErrorCode::HeaderMismatch, -32020),
            (ErrorCode::MissingRequiredClientCapability, -32021),
            (ErrorCode::UnsupportedProtocolVersion, -32022),
            (ErrorCode::ResourceNotFound, -32002),
            (ErrorCode::RateLimited, -31429),
            (ErrorCode::InsufficientScope, -31403),
            (ErrorCode::Unavailable, -31503),
        ] {
            assert_eq!(code.code(), int);
            assert_eq!(ErrorCode::from_code(int), Some(code));
        }
        assert_eq!(ErrorCode::from_code(-32001), None);
    }

    #[test]
    fn unsupported_version_data_is_exact() {
        let err = Error::unsupported_version(&["2026-07-28"], "1900-01-01");
        assert_eq!(
            wire(&err),
            json!({"code": -32022, "message": "Unsupported protocol version",
                   "data": {"supported": ["2026-07-28"], "requested": "1900-01-01"}})
        );
    }

    #[test]
    fn missing_capability_data_is_client_capabilities() {
        let err = Error::missing_capability(ClientCapabilities {
            elicitation: Some(ElicitationCapability::form()),
            ..Default::default()
        });
        assert_eq!(wire(&err)["data"], json!({"requiredCapabilities": {"elicitation": {"form": {}}}}));
        assert_eq!(err.message(), "Server requires the elicitation capability for this request");

        let err = Error::missing_capability(ClientCapabilities {
            sampling: Some(SamplingCapability::default()),
            ..Default::default()
        });
        assert_eq!(wire(&err)["data"], json!({"requiredCapabilities": {"sampling": {}}}));
    }

    #[test]
    fn errors_without_data_omit_it() {
        assert_eq!(wire(&Error::internal()), json!({"code": -32603, "message": "Internal error"}));
    }

    #[test]
    fn resource_not_found_is_invalid_params_with_uri() {
        assert_eq!(
            wire(&Error::resource_not_found("file:///nope")),
            json!({"code": -32602, "message": "Resource not found", "data": {"uri": "file:///nope"}})
        );
    }
}
