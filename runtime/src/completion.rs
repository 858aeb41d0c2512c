//! `completion/complete`: suggestions for a prompt argument or a resource-template variable
//! while the user types it.
//!
//! A completer is declared next to what it completes, with `#[arg(complete = path)]` on the
//! prompt argument or template variable, and is an async function taking a
//! [`CompletionRequest`]:
//!
//! ```
//! use mcp_rounds::completion::CompletionRequest;
//! use mcp_rounds::prompt;
//!
//! async fn languages(request: CompletionRequest) -> Vec<String> {
//!     request.matching(["python", "rust", "ruby", "typescript"])
//! }
//!
//! /// Reviews code in a language.
//! #[prompt]
//! fn code_review(#[arg(complete = languages)] language: String) -> String {
//!     format!("Review this {language} code.")
//! }
//! ```
//!
//! The server then advertises the `completions` capability. At most 100 values go back; when a
//! completer returns more, the rest are counted in `total` and `hasMore` is set.

use std::collections::BTreeMap;
use std::future::Future;

use crate::context::RequestContext;
use crate::error::Error;
use crate::future::BoxFuture;
use crate::model::Completion;

/// The most values one completion carries, per the revision.
pub const MAX_VALUES: usize = 100;

/// What the user is typing: which argument, what they typed so far, and what they already
/// chose for the others.
#[derive(Debug)]
pub struct CompletionRequest {
    /// The argument or variable being completed.
    pub argument: String,
    /// What has been typed so far.
    pub value: String,
    /// Values already chosen for the other arguments or variables, by name.
    pub arguments: BTreeMap<String, String>,
    /// The request being served.
    pub context: RequestContext,
}

impl CompletionRequest {
    /// The candidates that start with what was typed, ignoring case, in their order.
    pub fn matching<I>(&self, candidates: I) -> Vec<String>
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let typed = self.value.to_lowercase();
        candidates.into_iter().map(Into::into).filter(|c| c.to_lowercase().starts_with(&typed)).collect()
    }
}

/// Completes one argument: an async function taking a [`CompletionRequest`] and returning
/// `Vec<String>`, a [`Completion`], or a `Result` of either.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete an argument",
    label = "not a completer",
    note = "a completer is an async fn taking mcp_rounds::completion::CompletionRequest and returning \
            Vec<String>, Completion, or a Result of either"
)]
pub trait Completer: Send + Sync + 'static {
    /// The suggestions for one request.
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'_, Result<Completion, Error>>;
}

impl<F, Fut> Completer for F
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output: IntoCompletion> + Send + 'static,
{
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'_, Result<Completion, Error>> {
        let future = self(request);
        Box::pin(async move { future.await.into_completion().map(capped) })
    }
}

/// What a completer may return.
#[diagnostic::on_unimplemented(
    message = "a completer cannot return `{Self}`",
    note = "return Vec<String>, Completion, or a Result of either"
)]
pub trait IntoCompletion {
    /// The completion.
    fn into_completion(self) -> Result<Completion, Error>;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(Completion { values: self, total: None, has_more: None })
    }
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(self)
    }
}

impl<T: IntoCompletion, E: Into<Error>> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion, Error> {
        self.map_err(Into::into)?.into_completion()
    }
}

/// Keeps the first [`MAX_VALUES`]; what is cut is counted in `total` and flagged by `hasMore`.
fn capped(mut completion: Completion) -> Completion {
    if completion.values.len() > MAX_VALUES {
        let all = completion.values.len() as u64;
        completion.values.truncate(MAX_VALUES);
        completion.total = Some(completion.total.map_or(all, |t| t.max(all)));
        completion.has_more = Some(true);
    }
    completion
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_completions_are_capped_and_counted() {
        let values: Vec<String> = (0..250).map(|i| i.to_string()).collect();
        let capped = capped(Completion { values, total: None, has_more: None });
        assert_eq!(capped.values.len(), MAX_VALUES);
        assert_eq!(capped.values[99], "99");
        assert_eq!((capped.total, capped.has_more), (Some(250), Some(true)));

        let short = super::capped(Completion { values: vec!["a".into()], total: Some(7), has_more: Some(true) });
        assert_eq!((short.values.len(), short.total, short.has_more), (1, Some(7), Some(true)));
    }
}
