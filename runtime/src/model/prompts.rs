//! Prompts: descriptors, `prompts/list`, `prompts/get`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{CacheScope, Complete, ContentBlock, Icon, InputResponses, JsonObject, ResultMeta, Role};

/// A prompt template the user can pick.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Prompt {
    /// Unique name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Prompt {
    /// A prompt named `name`, with nothing else set.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt { name: name.into(), ..Prompt::default() }
    }
}

/// An argument of a prompt.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// The result of `prompts/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListPromptsResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// This page of prompts.
    pub prompts: Vec<Prompt>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Milliseconds the result stays fresh.
    #[serde(default)]
    pub ttl_ms: u64,
    /// Who may reuse the result.
    #[serde(default)]
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}

/// The parameters of `prompts/get` (besides `_meta`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptRequestParams {
    /// The prompt.
    pub name: String,
    /// Its arguments (strings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Answers to the previous round's `inputRequests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, echoed byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// The complete result of `prompts/get`. Not cacheable.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// What this rendering of the prompt is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}

/// One message of a prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Speaker.
    pub role: Role,
    /// Content.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A message of any content, e.g. `PromptMessage::new(Role::User, ContentBlock::image(&png, "image/png"))`.
    pub fn new(role: Role, content: ContentBlock) -> Self {
        PromptMessage { role, content }
    }

    /// A user message with text.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage { role: Role::User, content: ContentBlock::text(text) }
    }

    /// An assistant message with text.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage { role: Role::Assistant, content: ContentBlock::text(text) }
    }
}

impl GetPromptResult {
    /// A result of these messages, without a description.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult { messages, ..GetPromptResult::default() }
    }
}

impl super::result::sealed::Sealed for GetPromptResult {}
impl super::MayRequireInput for GetPromptResult {}
