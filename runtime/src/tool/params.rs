//! Tool parameters: each is either an argument the client sends (any type that implements
//! `Deserialize` and `JsonSchema`) or an extractor the framework fills in.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ToolCall;
use crate::context::{Principal, RequestContext};
use crate::error::Error;
use crate::extract::{FromRequest, State, StateRequirement};
use crate::model::{CallToolResult, ClientCapabilities, InputResponses, JsonObject, Outcome};
use crate::schema::{InputSchema, accepts_null};

/// Why a parameter could not be produced.
#[derive(Debug)]
pub enum Rejection {
    /// The arguments are wrong: the model sees this as a tool error and can correct itself.
    Argument(String),
    /// A protocol error.
    Protocol(Error),
}

impl Rejection {
    /// The result to answer with.
    pub fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        match self {
            Rejection::Argument(message) => Ok(CallToolResult::error(message).into()),
            Rejection::Protocol(error) => Err(error),
        }
    }
}

/// One `tools/call` as the parameters of a handler see it: the arguments not yet taken and
/// the request.
#[derive(Debug)]
pub struct ToolInvocation {
    arguments: JsonObject,
    context: RequestContext,
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
}

impl ToolInvocation {
    /// Starts taking parameters from a call.
    pub fn new(call: ToolCall) -> Self {
        ToolInvocation {
            arguments: call.arguments,
            context: call.context,
            input_responses: call.input_responses,
            request_state: call.request_state,
        }
    }

    /// The request being served.
    pub fn context(&self) -> &RequestContext {
        &self.context
    }

    /// Takes one argument out; `None` when the client did not send it.
    pub fn take_argument(&mut self, name: &str) -> Option<Value> {
        self.arguments.shift_remove(name)
    }

    /// Takes every remaining argument.
    pub fn take_arguments(&mut self) -> JsonObject {
        std::mem::take(&mut self.arguments)
    }

    /// Answers to the previous round's input requests, on a retry.
    pub fn input_responses(&self) -> Option<&InputResponses> {
        self.input_responses.as_ref()
    }

    /// The echoed `requestState`, unverified.
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// Fails when the client sent arguments no parameter took.
    pub fn finish(&self) -> Result<(), Rejection> {
        if self.arguments.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = self.arguments.keys().map(|k| format!("`{k}`")).collect();
        let what = if names.len() == 1 { "argument" } else { "arguments" };
        Err(Rejection::Argument(format!("Unknown {what} {}; check the tool's input schema", names.join(", "))))
    }
}

/// A parameter of a `#[tool]` function.
///
/// Implemented for every type that is `Deserialize + JsonSchema` (an argument named after the
/// parameter, required unless the type accepts `null`, like `Option<T>`), for the
/// extractors, and for [`Args<T>`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a #[tool]",
    label = "neither an argument type nor a request extractor",
    note = "an argument needs `serde::Deserialize` and `schemars::JsonSchema` (derive both on your own types)",
    note = "request data comes from extractors: RequestContext, Principal, ClientCapabilities, State<T>, Args<T>"
)]
pub trait ToolParam: Sized {
    /// Adds what the parameter contributes to the input schema.
    fn describe(schema: &mut InputSchema, name: &str, description: Option<&str>);

    /// The shared state the parameter needs registered.
    fn required_state() -> Option<StateRequirement> {
        None
    }

    /// Produces the value for one call.
    fn extract(invocation: &mut ToolInvocation, name: &str) -> Result<Self, Rejection>;
}

// Not recommended in diagnostics: a type that is neither an argument nor an extractor gets
// one error in ToolParam's words, not one per missing serde or schemars trait.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolParam for T {
    fn describe(schema: &mut InputSchema, name: &str, description: Option<&str>) {
        schema.argument::<T>(name, description);
    }

    fn extract(invocation: &mut ToolInvocation, name: &str) -> Result<Self, Rejection> {
        let value = match invocation.take_argument(name) {
            Some(value) => value,
            None if accepts_null::<T>() => Value::Null,
            None => return Err(Rejection::Argument(format!("Missing required argument `{name}`"))),
        };
        serde_json::from_value(value)
            .map_err(|e| Rejection::Argument(format!("Invalid argument `{name}`: {}", crate::error::serde_message(&e))))
    }
}

macro_rules! extractor_param {
    ($($ty:ty),* $(,)?) => {$(
        impl ToolParam for $ty {
            fn describe(_: &mut InputSchema, _: &str, _: Option<&str>) {}

            fn extract(invocation: &mut ToolInvocation, _: &str) -> Result<Self, Rejection> {
                <$ty as FromRequest>::from_request(invocation.context()).map_err(Rejection::Protocol)
            }
        }
    )*};
}

extractor_param!(RequestContext, Principal, ClientCapabilities);

impl<T: Send + Sync + 'static> ToolParam for State<T> {
    fn describe(_: &mut InputSchema, _: &str, _: Option<&str>) {}

    fn required_state() -> Option<StateRequirement> {
        <State<T> as FromRequest>::required_state()
    }

    fn extract(invocation: &mut ToolInvocation, _: &str) -> Result<Self, Rejection> {
        <State<T> as FromRequest>::from_request(invocation.context()).map_err(Rejection::Protocol)
    }
}

/// All of a tool's arguments as one struct: the input schema is the struct's schema.
///
/// ```
/// use mcp_rounds::{Args, tool};
/// use serde::Deserialize;
/// use schemars::JsonSchema;
///
/// #[derive(Deserialize, JsonSchema)]
/// #[serde(rename_all = "camelCase")]
/// struct NewNote {
///     /// The note's title.
///     title: String,
///     /// Where to put it.
///     workspace_uri: String,
/// }
///
/// /// Creates a note.
/// #[tool]
/// fn create_note(Args(note): Args<NewNote>) -> String {
///     format!("created {} in {}", note.title, note.workspace_uri)
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Args<T>(pub T);

impl<T: DeserializeOwned + JsonSchema> ToolParam for Args<T> {
    fn describe(schema: &mut InputSchema, _: &str, _: Option<&str>) {
        schema.whole::<T>();
    }

    fn extract(invocation: &mut ToolInvocation, _: &str) -> Result<Self, Rejection> {
        let all = Value::Object(invocation.take_arguments());
        serde_json::from_value(all)
            .map(Args)
            .map_err(|e| Rejection::Argument(format!("Invalid arguments: {}", crate::error::serde_message(&e))))
    }
}
