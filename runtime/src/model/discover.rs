//! `server/discover`: supported versions, capabilities and instructions.

use serde::{Deserialize, Serialize};

use super::{CacheScope, Complete, ResultMeta, ServerCapabilities};

/// The result of `server/discover`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// Protocol versions the server accepts in `_meta`.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Guidance for the model on how to use this server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Milliseconds the result stays fresh.
    #[serde(default)]
    pub ttl_ms: u64,
    /// Who may reuse the result.
    #[serde(default)]
    pub cache_scope: CacheScope,
    /// Result metadata, including `serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}
