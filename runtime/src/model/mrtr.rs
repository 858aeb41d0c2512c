//! Multi round-trip requests: `InputRequiredResult`, `InputRequests` and `InputResponses`.
//!
//! A server that needs something from the client (a form, a model answer, the roots) answers
//! `tools/call`, `prompts/get` or `resources/read` with an [`InputRequiredResult`]; the client
//! retries the same request with a new id, adding `inputResponses` under the same keys and
//! echoing `requestState`.

use indexmap::IndexMap;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, InputRequired,
    ListRootsRequestParams, ListRootsResult, ResultMeta,
};

/// `resultType: "input_required"`: the client must answer `input_requests` and retry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// Always `"input_required"`.
    pub result_type: InputRequired,
    /// What the client must answer, by server-chosen key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client echoes on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}

/// Embedded requests by key. Keys are unique within one result.
pub type InputRequests = IndexMap<String, InputRequest>;

/// Answers by key, mirroring the keys of the previous round's [`InputRequests`].
pub type InputResponses = IndexMap<String, InputResponse>;

/// A request embedded in an [`InputRequiredResult`]: `{method, params}` without `jsonrpc` or
/// `id` (encoded by the method table, which names the methods).
#[derive(Clone, Debug, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit {
        /// Form or URL.
        params: ElicitRequestParams,
    },
    /// `sampling/createMessage`.
    CreateMessage {
        /// The sampling request.
        params: CreateMessageRequestParams,
    },
    /// `roots/list`.
    ListRoots {
        /// Only `_meta`, if anything.
        params: Option<ListRootsRequestParams>,
    },
}

/// The client's answer to one [`InputRequest`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// The answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// The answer to `sampling/createMessage`.
    CreateMessage(Box<CreateMessageResult>),
    /// The answer to `roots/list`.
    ListRoots(ListRootsResult),
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        // The three shapes share no required member, so the one present decides.
        if value.get("action").is_some() {
            serde_json::from_value(value).map(InputResponse::Elicit)
        } else if value.get("roots").is_some() {
            serde_json::from_value(value).map(InputResponse::ListRoots)
        } else {
            serde_json::from_value(value).map(|r| InputResponse::CreateMessage(Box::new(r)))
        }
        .map_err(de::Error::custom)
    }
}
