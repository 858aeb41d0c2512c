//! `resultType`, cache hints, pagination and the "complete or input required" outcome.
//!
//! Every result of this revision carries `resultType`. The framework makes it impossible to
//! send the wrong one: a complete result has a [`Complete`] field that can only serialize as
//! `"complete"`, an [`InputRequiredResult`](super::InputRequiredResult) has an
//! [`InputRequired`] field, and [`Outcome`] (the only way to return either) accepts only the
//! three results the revision lets ask for input.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use super::InputRequiredResult;

super::literal!(
    /// `resultType: "complete"`. A result without `resultType` (from a legacy server) reads as complete.
    Complete = "complete"
);
super::literal!(
    /// `resultType: "input_required"`.
    InputRequired = "input_required"
);

/// Any `resultType` value, for code that inspects results it did not produce.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// `"complete"`.
    Complete,
    /// `"input_required"`.
    InputRequired,
    /// A value added by an extension (for example `"task"`).
    #[serde(untagged)]
    Other(String),
}

/// Who may reuse a cacheable result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: shared caches may serve it to anyone.
    Public,
    /// Reuse only within the same authorization context.
    #[default]
    Private,
}

/// The cache hints of a cacheable result: how long it stays fresh and who may reuse it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct CacheHints {
    /// Milliseconds the result stays fresh; 0 means stale at once.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub cache_scope: CacheScope,
}

impl CacheHints {
    /// Fresh for `ttl_ms` milliseconds, reusable by `cache_scope`.
    pub const fn new(ttl_ms: u64, cache_scope: CacheScope) -> Self {
        CacheHints { ttl_ms, cache_scope }
    }

    /// Shared by everyone for `ttl_ms` milliseconds.
    pub const fn public(ttl_ms: u64) -> Self {
        CacheHints { ttl_ms, cache_scope: CacheScope::Public }
    }

    /// Reusable only by the same caller for `ttl_ms` milliseconds.
    pub const fn private(ttl_ms: u64) -> Self {
        CacheHints { ttl_ms, cache_scope: CacheScope::Private }
    }

    /// Never reused: `private` and stale at once, for secret or fast-changing content.
    pub const fn no_store() -> Self {
        CacheHints::private(0)
    }
}

/// The results that may ask the client for input instead of completing:
/// `CallToolResult`, `GetPromptResult` and `ReadResourceResult`, nothing else.
pub trait MayRequireInput: sealed::Sealed {}

pub(crate) mod sealed {
    /// Only the framework names the results that may ask for input.
    pub trait Sealed {}
}

/// What `tools/call`, `prompts/get` and `resources/read` return: the result, or a request for
/// more input. No other method can return `input_required`; `Outcome<ListToolsResult>` does
/// not compile.
///
/// ```compile_fail
/// use mcp_rounds::model::{ListToolsResult, Outcome};
/// let _: Outcome<ListToolsResult>;
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Outcome<T: MayRequireInput> {
    /// `resultType: "complete"`.
    Complete(T),
    /// `resultType: "input_required"`.
    InputRequired(InputRequiredResult),
}

impl<T: MayRequireInput> From<T> for Outcome<T> {
    fn from(result: T) -> Self {
        Outcome::Complete(result)
    }
}

impl<T: MayRequireInput> Outcome<T> {
    /// The complete result, if it is one.
    pub fn complete(self) -> Option<T> {
        match self {
            Outcome::Complete(r) => Some(r),
            Outcome::InputRequired(_) => None,
        }
    }

    /// The input request, if it is one.
    pub fn input_required(self) -> Option<InputRequiredResult> {
        match self {
            Outcome::Complete(_) => None,
            Outcome::InputRequired(r) => Some(r),
        }
    }
}

impl<'de, T: MayRequireInput + Deserialize<'de>> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let input_required = value.get("resultType").and_then(serde_json::Value::as_str) == Some(InputRequired::WIRE);
        if input_required {
            InputRequiredResult::deserialize(value).map(Outcome::InputRequired).map_err(de::Error::custom)
        } else {
            T::deserialize(value).map(Outcome::Complete).map_err(de::Error::custom)
        }
    }
}

/// `cursor` of a paginated list request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PaginatedRequestParams {
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// A result that carries `_meta`: the encoding stage stamps `serverInfo` into it.
pub(crate) trait WithResultMeta {
    /// The result's `_meta`.
    fn result_meta_mut(&mut self) -> &mut super::ResultMeta;
}

macro_rules! with_result_meta {
    ($($ty:ident),* $(,)?) => {$(
        impl WithResultMeta for super::$ty {
            fn result_meta_mut(&mut self) -> &mut super::ResultMeta {
                &mut self.meta
            }
        }
    )*};
}

with_result_meta!(
    CallToolResult,
    CompleteResult,
    CreateTaskResult,
    DetailedTask,
    DiscoverResult,
    GetPromptResult,
    InputRequiredResult,
    ListPromptsResult,
    ListResourceTemplatesResult,
    ListResourcesResult,
    ListToolsResult,
    ReadResourceResult,
    SubscriptionsListenResult,
);

with_result_meta!(GetSkillResult, ListSkillsResult, ReadResourceDirectoryResult);
