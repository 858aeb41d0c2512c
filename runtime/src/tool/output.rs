//! What a `#[tool]` function may return, and how it becomes a `tools/call` result.

use std::fmt;

use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::Error;
use crate::model::{CallToolResult, ContentBlock, JsonObject, Outcome};
use crate::rounds::{Ask, FromModelText, OutcomeContext, Rounds, Step};
use crate::schema::root_schema;

/// A tool's own failure: reported to the model as a result with `isError: true`, so that it
/// can read what went wrong and try again. Any error converts into one with `?`, except the
/// framework's own [`Error`]: that stays a protocol error (a bad answer to a round is -32602,
/// not a message to the model).
///
/// ```
/// use mcp_rounds::{ToolError, tool};
///
/// /// Reads a number.
/// #[tool]
/// fn parse_number(text: String) -> Result<String, ToolError> {
///     let n: i64 = text.trim().parse()?;
///     if n < 0 {
///         return Err(ToolError::new("the number must not be negative"));
///     }
///     Ok(format!("{n}"))
/// }
/// ```
pub struct ToolError {
    failure: Failure,
}

enum Failure {
    Message(String),
    Protocol(Error),
}

impl ToolError {
    /// A failure with this message for the model.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError { failure: Failure::Message(message.into()) }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match &self.failure {
            Failure::Message(message) => message,
            Failure::Protocol(error) => error.message(),
        }
    }

    /// The protocol error this carries, if it is one rather than a message for the model.
    pub fn as_protocol(&self) -> Option<&Error> {
        match &self.failure {
            Failure::Protocol(error) => Some(error),
            Failure::Message(_) => None,
        }
    }
}

impl<E: std::error::Error + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        // A framework error keeps its code: `?` on it must not turn -32602 into a message.
        let any: Box<dyn std::any::Any> = Box::new(error);
        match any.downcast::<Error>() {
            Ok(error) => ToolError { failure: Failure::Protocol(*error) },
            Err(other) => {
                let error = other.downcast::<E>().expect("it was an E");
                ToolError::new(error.to_string())
            }
        }
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            Failure::Message(message) => f.debug_tuple("ToolError").field(message).finish(),
            Failure::Protocol(error) => f.debug_tuple("ToolError").field(error).finish(),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// Structured output: `structuredContent` plus a JSON text copy for older clients, and an
/// `outputSchema` in the tool's descriptor.
///
/// ```
/// use mcp_rounds::{Json, tool};
/// use schemars::JsonSchema;
/// use serde::Serialize;
///
/// #[derive(Serialize, JsonSchema)]
/// struct Sum {
///     total: f64,
/// }
///
/// /// Adds numbers.
/// #[tool]
/// fn add(a: f64, b: f64) -> Json<Sum> {
///     Json(Sum { total: a + b })
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Json<T>(pub T);

/// How a value returned by a `#[tool]` function becomes its result.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]",
    label = "not a tool result",
    note = "return String or &'static str for text, Json<T> for structured output (T: Serialize + JsonSchema), \
            Readable<T> for structured output with T's Display as its text, \
            CallToolResult for full control, or Result<_, E> of these where E is ToolError (a failure the model sees) \
            or mcp_rounds::Error (a protocol error)"
)]
pub trait IntoToolOutcome {
    /// Returns rounds (so the arguments are digested for the state binding).
    const USES_ROUNDS: bool = false;

    /// The output schema this return type declares, if any.
    fn output_schema(_generator: &mut SchemaGenerator) -> Option<JsonObject> {
        None
    }

    /// The result.
    fn into_outcome(self, context: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error>;
}

impl IntoToolOutcome for CallToolResult {
    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        Ok(Outcome::Complete(self))
    }
}

impl IntoToolOutcome for Outcome<CallToolResult> {
    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        Ok(self)
    }
}

impl IntoToolOutcome for String {
    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        Ok(CallToolResult::text(self).into())
    }
}

impl IntoToolOutcome for &'static str {
    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        Ok(CallToolResult::text(self).into())
    }
}

impl IntoToolOutcome for () {
    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        Ok(CallToolResult::default().into())
    }
}

impl IntoToolOutcome for ContentBlock {
    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        Ok(CallToolResult { content: vec![self], ..Default::default() }.into())
    }
}

impl IntoToolOutcome for Vec<ContentBlock> {
    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        Ok(CallToolResult { content: self, ..Default::default() }.into())
    }
}

impl<T: Serialize + JsonSchema> IntoToolOutcome for Json<T> {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<JsonObject> {
        Some(root_schema::<T>(generator))
    }

    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        let value = serde_json::to_value(&self.0).map_err(|e| Error::internal_from(&e))?;
        Ok(CallToolResult::structured(value).into())
    }
}

impl<T: IntoToolOutcome, E: IntoToolError> IntoToolOutcome for Result<T, E> {
    const USES_ROUNDS: bool = T::USES_ROUNDS;

    fn output_schema(generator: &mut SchemaGenerator) -> Option<JsonObject> {
        T::output_schema(generator)
    }

    fn into_outcome(self, context: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        match self {
            Ok(value) => value.into_outcome(context),
            Err(error) => error.into_tool_error(),
        }
    }
}

impl<R: Rounds, T: IntoToolOutcome> IntoToolOutcome for Step<R, T> {
    const USES_ROUNDS: bool = true;

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<JsonObject> {
        T::output_schema(generator)
    }

    fn into_outcome(self, context: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        match self {
            Step::Done(result) => result.into_outcome(context),
            Step::Ask(ask) => context.ask(ask).map(Outcome::InputRequired),
        }
    }
}

/// Structured output a person can read: `structuredContent` from `T`'s `Serialize`, an
/// `outputSchema` from its `JsonSchema`, and the text content from its `Display`. What a tool
/// with a view returns, so that a host showing no view still shows something readable.
///
/// ```
/// use mcp_rounds::{Readable, tool};
/// use schemars::JsonSchema;
/// use serde::Serialize;
///
/// #[derive(Serialize, JsonSchema)]
/// struct Sum {
///     total: f64,
/// }
///
/// impl std::fmt::Display for Sum {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "The total is {}.", self.total)
///     }
/// }
///
/// /// Adds numbers.
/// #[tool]
/// fn add(a: f64, b: f64) -> Readable<Sum> {
///     Readable(Sum { total: a + b })
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Readable<T>(pub T);

impl<T: Serialize + JsonSchema + fmt::Display> IntoToolOutcome for Readable<T> {
    fn output_schema(generator: &mut SchemaGenerator) -> Option<JsonObject> {
        Some(root_schema::<T>(generator))
    }

    fn into_outcome(self, _: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        let value = serde_json::to_value(&self.0).map_err(|e| Error::internal_from(&e))?;
        let mut result = CallToolResult::text(self.0.to_string());
        result.structured_content = Some(value);
        Ok(result.into())
    }
}

impl<R: Rounds> IntoToolOutcome for Ask<R> {
    const USES_ROUNDS: bool = true;

    fn into_outcome(self, context: &OutcomeContext<'_>) -> Result<Outcome<CallToolResult>, Error> {
        context.ask(self).map(Outcome::InputRequired)
    }
}

impl<T: DeserializeOwned + Send + 'static> FromModelText for Json<T> {
    fn from_model_text(text: &str) -> Result<Self, String> {
        // Models like to wrap JSON in a fenced block; the fence is not part of the answer.
        let trimmed = text.trim();
        let body = trimmed
            .strip_prefix("```json")
            .or_else(|| trimmed.strip_prefix("```"))
            .and_then(|rest| rest.strip_suffix("```"))
            .unwrap_or(trimmed);
        serde_json::from_str(body.trim())
            .map(Json)
            .map_err(|e| format!("not the JSON expected: {}", crate::error::serde_message(&e)))
    }
}

/// A return type whose result has text a person can read, not only a JSON copy of structured
/// content: required of a tool with a view, which a host that renders none shows as that text.
#[diagnostic::on_unimplemented(
    message = "a tool with a view must return text a person can read, and `{Self}` gives none",
    label = "no readable text for hosts that show no view",
    note = "return Readable<T> (structured content, with T's Display as the text), String, or CallToolResult; \
            Json<T> gives only a JSON copy of the structured content"
)]
pub trait ReadableOutcome: IntoToolOutcome {}

impl ReadableOutcome for CallToolResult {}
impl ReadableOutcome for Outcome<CallToolResult> {}
impl ReadableOutcome for String {}
impl ReadableOutcome for &'static str {}
impl ReadableOutcome for ContentBlock {}
impl ReadableOutcome for Vec<ContentBlock> {}
impl<T: Serialize + JsonSchema + fmt::Display> ReadableOutcome for Readable<T> {}
impl<T: ReadableOutcome, E: IntoToolError> ReadableOutcome for Result<T, E> {}
impl<R: Rounds, T: ReadableOutcome> ReadableOutcome for Step<R, T> {}
impl<R: Rounds> ReadableOutcome for Ask<R> {}

/// Compiles only for a [`ReadableOutcome`] (generated code, on a tool with a view).
#[doc(hidden)]
pub fn assert_readable<T: ReadableOutcome>() {}

/// The error half of a `Result` returned by a tool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error of a #[tool]",
    note = "use ToolError (any std::error::Error converts into it with `?`) for failures the model should see, \
            or mcp_rounds::Error for protocol errors"
)]
pub trait IntoToolError {
    /// The result for this failure.
    fn into_tool_error(self) -> Result<Outcome<CallToolResult>, Error>;
}

impl IntoToolError for ToolError {
    fn into_tool_error(self) -> Result<Outcome<CallToolResult>, Error> {
        match self.failure {
            Failure::Message(message) => Ok(CallToolResult::error(message).into()),
            Failure::Protocol(error) => Err(error),
        }
    }
}

impl IntoToolError for Error {
    fn into_tool_error(self) -> Result<Outcome<CallToolResult>, Error> {
        Err(self)
    }
}

impl IntoToolError for String {
    fn into_tool_error(self) -> Result<Outcome<CallToolResult>, Error> {
        Ok(CallToolResult::error(self).into())
    }
}

impl IntoToolError for &'static str {
    fn into_tool_error(self) -> Result<Outcome<CallToolResult>, Error> {
        Ok(CallToolResult::error(self).into())
    }
}
