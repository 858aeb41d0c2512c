//! `_meta`: the per-request envelope a client sends and the metadata a server attaches to results.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::RequestId;
use super::{ClientCapabilities, Implementation, JsonObject};

/// `_meta` key: the protocol version of this request.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client capabilities for this request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's self-description.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: opt-in log level for `notifications/message`.
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key on results: the server's self-description.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key on subscription notifications and the listen result.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// A progress token: a string or a number chosen by the client.
pub type ProgressToken = RequestId;

/// The `_meta` every request of this revision carries.
///
/// On the server this arrives already validated: the version is one the server supports and
/// the capabilities are well formed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestMeta {
    /// The protocol version of this request, e.g. `"2026-07-28"`.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    pub protocol_version: String,
    /// What the client supports for this request only.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    pub client_capabilities: ClientCapabilities,
    /// Who the client says it is (untrusted).
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// Opt-in to `notifications/message` at or above this level (deprecated feature).
    #[serde(rename = "io.modelcontextprotocol/logLevel", default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// Opt-in to `notifications/progress` for this request.
    #[serde(rename = "progressToken", default, skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    /// W3C trace context.
    #[serde(flatten)]
    pub trace: TraceContext,
}

impl RequestMeta {
    /// The envelope for `version` with the given capabilities.
    pub fn new(version: impl Into<String>, client_capabilities: ClientCapabilities) -> Self {
        RequestMeta { protocol_version: version.into(), client_capabilities, ..Default::default() }
    }
}

/// W3C trace-context propagation fields, carried in `_meta` under their own names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TraceContext {
    /// `traceparent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
    /// `tracestate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracestate: Option<String>,
    /// `baggage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baggage: Option<String>,
}

/// Log levels, from least to most severe (RFC 5424 order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debug.
    Debug,
    /// Info.
    Info,
    /// Notice.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Alert.
    Alert,
    /// Emergency.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }

    /// The level with this wire name.
    pub fn parse(name: &str) -> Option<Self> {
        LoggingLevel::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

/// The `_meta` of a result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResultMeta {
    /// The server's self-description; the framework fills it in.
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Arc<Implementation>>,
    /// On a `subscriptions/listen` result: the subscription (the listen request's id).
    #[serde(rename = "io.modelcontextprotocol/subscriptionId", default, skip_serializing_if = "Option::is_none")]
    pub subscription_id: Option<RequestId>,
    /// Any other keys.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl ResultMeta {
    /// True when there is nothing to send.
    pub fn is_empty(&self) -> bool {
        self.server_info.is_none() && self.subscription_id.is_none() && self.other.is_empty()
    }
}

/// The `_meta` of a notification.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotificationMeta {
    /// The subscription a listen-stream notification belongs to.
    #[serde(rename = "io.modelcontextprotocol/subscriptionId", default, skip_serializing_if = "Option::is_none")]
    pub subscription_id: Option<RequestId>,
    /// Any other keys.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl NotificationMeta {
    /// True when there is nothing to send.
    pub fn is_empty(&self) -> bool {
        self.subscription_id.is_none() && self.other.is_empty()
    }
}
