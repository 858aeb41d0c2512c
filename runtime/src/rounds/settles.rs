//! How a handler's outcome settles its single-use state: whether it used it, and the answer
//! when a state it did not use could not be given back.

use crate::error::Error;
use crate::model::CallToolResult;

/// Whether a complete result is a failure (a tool's `isError`): a failure never uses up a
/// single-use state.
pub trait Settles {
    /// True for a failed result.
    fn failed(&self) -> bool {
        false
    }

    /// What a failed result says, kept in the answer that replaces it when its single-use
    /// state could not be given back.
    fn failure_text(&self) -> Option<String> {
        None
    }
}

impl Settles for CallToolResult {
    fn failed(&self) -> bool {
        self.is_error()
    }

    fn failure_text(&self) -> Option<String> {
        let texts: Vec<&str> = self.content.iter().filter_map(|c| c.as_text()).collect();
        (self.is_error() && !texts.is_empty()).then(|| texts.join("\n"))
    }
}

impl Settles for crate::model::GetPromptResult {}
impl Settles for crate::model::ReadResourceResult {}

/// -32602 for a call that did not use its single-use state (it failed, or its answer was a
/// cancel) when the state could not be given back: it is spent, and a retry with it would be
/// refused, so the client must start the call again.
pub(super) fn spent(cancelled: bool, failure: Option<String>) -> Error {
    let what = match cancelled {
        true => "The answer was cancelled",
        false => "The call failed",
    };
    let message = format!(
        "{what} and its single-use requestState could not be given back: start the call again without requestState"
    );
    let mut data = serde_json::json!({ "field": "requestState", "reason": "spent" });
    if let Some(failure) = failure {
        data["failure"] = failure.into();
    }
    Error::invalid_params(message).with_data(data)
}
