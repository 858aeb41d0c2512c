//! Roots (`roots/list`) as embedded in `inputRequests` (deprecated feature; a migration aid).

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// The optional parameters of an embedded `roots/list`: only `_meta`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsRequestParams {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A root: a `file://` directory the client exposes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Root {
    /// The root at `uri`, unnamed.
    pub fn new(uri: impl Into<String>) -> Self {
        Root { uri: uri.into(), ..Root::default() }
    }
}

impl ListRootsResult {
    /// The answer listing `roots`.
    pub fn new(roots: impl IntoIterator<Item = Root>) -> Self {
        ListRootsResult { roots: roots.into_iter().collect(), meta: None }
    }
}

/// The client's answer to `roots/list`, sent in `inputResponses`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
