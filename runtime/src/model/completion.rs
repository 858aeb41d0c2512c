//! `completion/complete`: suggestions for a prompt argument or a resource-template variable.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Complete, ResultMeta};

/// What is being completed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// An argument of a prompt.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt.
        name: String,
        /// Display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// A variable of a resource template.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The URI template.
        uri: String,
    },
}

/// The argument being typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionArgument {
    /// Its name.
    pub name: String,
    /// What the user typed so far.
    pub value: String,
}

/// Values already chosen for other arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionContext {
    /// By name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// The parameters of `completion/complete` (besides `_meta`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteRequestParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument.
    pub argument: CompletionArgument,
    /// Other arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
}

impl CompleteRequestParams {
    /// Completes `argument` of `reference`, with no other argument chosen yet.
    ///
    /// ```
    /// use mcp_rounds::model::{CompleteRequestParams, CompletionArgument, CompletionReference};
    ///
    /// let reference = CompletionReference::Prompt { name: "review".into(), title: None };
    /// let params = CompleteRequestParams::new(reference, CompletionArgument::new("language", "ru"));
    /// assert_eq!(params.argument.value, "ru");
    /// ```
    pub fn new(reference: CompletionReference, argument: CompletionArgument) -> Self {
        CompleteRequestParams { reference, argument, context: None }
    }
}

impl CompletionArgument {
    /// Argument `name`, typed so far as `value`.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        CompletionArgument { name: name.into(), value: value.into() }
    }
}

/// The suggestions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// How many there are in all, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// More than `values` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// These values, all there are.
    pub fn new(values: Vec<String>) -> Self {
        Completion { values, ..Completion::default() }
    }
}

/// The result of `completion/complete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// The suggestions.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}
