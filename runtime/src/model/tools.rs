//! Tools: descriptors, `tools/list`, `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CacheScope, Complete, ContentBlock, Icon, InputResponses, JsonObject, ResultMeta};

/// A tool the model may call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Unique name: 1 to 128 of `A-Z a-z 0-9 _ . -`.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; the root is always `"type": "object"`.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`, when the tool returns structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Tool {
    /// The input schema recommended for a tool without arguments.
    pub fn no_arguments_schema() -> JsonObject {
        let mut schema = JsonObject::new();
        schema.insert("type".into(), "object".into());
        schema.insert("additionalProperties".into(), false.into());
        schema
    }

    /// A tool named `name` taking the arguments described by `input_schema`.
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Tool { name: name.into(), input_schema, ..Default::default() }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the annotations.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the output schema.
    pub fn with_output_schema(mut self, schema: JsonObject) -> Self {
        self.output_schema = Some(schema);
        self
    }
}

/// Whether `name` is a valid tool name: 1 to 128 characters of `A-Z a-z 0-9 _ . -` (the same
/// rule `#[tool]` applies when it compiles).
pub fn is_valid_tool_name(name: &str) -> bool {
    mcp_rounds_grammar::is_tool_name(name)
}

/// Hints about a tool's behaviour. Clients treat them as untrusted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// May destroy data (default true; meaningful only when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// Interacts with the world beyond the server (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// The result of `tools/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// This page of tools.
    pub tools: Vec<Tool>,
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

/// The parameters of `tools/call` (besides `_meta`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolRequestParams {
    /// The tool.
    pub name: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Answers to the previous round's `inputRequests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, echoed byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl CallToolRequestParams {
    /// A call of `name` with `arguments`, as a first round.
    pub fn new(name: impl Into<String>, arguments: JsonObject) -> Self {
        CallToolRequestParams { name: name.into(), arguments: Some(arguments), ..CallToolRequestParams::default() }
    }
}

/// The complete result of `tools/call`.
///
/// A tool's own failure is a result with `is_error: Some(true)` that the model can read,
/// not a protocol error.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// Unstructured content.
    pub content: Vec<ContentBlock>,
    /// Structured output; conforms to the tool's `outputSchema` when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// True when the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult { content: vec![ContentBlock::text(text)], ..Default::default() }
    }

    /// A successful result with structured output and its JSON text for older clients.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        CallToolResult {
            content: vec![ContentBlock::text(text)],
            structured_content: Some(value),
            ..Default::default()
        }
    }

    /// A tool failure the model can read: `isError: true` with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult { content: vec![ContentBlock::text(message)], is_error: Some(true), ..Default::default() }
    }

    /// True when `isError` is set.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

impl super::result::sealed::Sealed for CallToolResult {}
impl super::MayRequireInput for CallToolResult {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_grammar() {
        for ok in ["a", "get_weather", "notes.delete", "A-b_c.9", &"x".repeat(128)] {
            assert!(is_valid_tool_name(ok), "{ok}");
        }
        for bad in ["", "has space", "ünï", "slash/y", &"x".repeat(129)] {
            assert!(!is_valid_tool_name(bad), "{bad}");
        }
    }
}
