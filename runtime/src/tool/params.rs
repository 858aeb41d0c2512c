//! Tool parameters: each is an argument the client sends (any type that implements
//! `Deserialize` and `JsonSchema`), all the arguments as one struct ([`Args<T>`]), or an
//! extractor ([`FromRequest`]).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ToolCall;
use crate::context::RequestContext;
use crate::error::{Error, Rejection};
use crate::extract::{Extracted, FromRequest, RequestParts, Requirements, ViaArgs, ViaArgument, ViaExtractor};
use crate::future::Quick;
use crate::method::Method;
use crate::model::{CallToolResult, JsonObject, Outcome};
use crate::rounds::{OutcomeContext, RoundDriver};
use crate::schema::{InputSchema, accepts_null};

/// What the framework knows about the tool being called, from its annotations.
#[derive(Clone, Copy, Debug, Default)]
#[doc(hidden)]
pub struct ToolInfo {
    /// Destructive by the revision's defaults (not read-only, `destructiveHint` not false):
    /// its rounds are single use unless they say otherwise.
    pub destructive: bool,
    /// Takes or returns rounds, so the arguments are digested for the state binding.
    pub uses_rounds: bool,
}

/// One `tools/call` as the parameters of a handler see it: the arguments not yet taken and
/// the request's parts.
#[doc(hidden)]
pub struct ToolInvocation {
    arguments: JsonObject,
    parts: RequestParts,
}

impl std::fmt::Debug for ToolInvocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolInvocation").field("tool", &self.parts.name()).finish_non_exhaustive()
    }
}

impl ToolInvocation {
    /// Starts taking parameters from a call.
    pub fn new(call: ToolCall, info: ToolInfo) -> Self {
        let arguments = Value::Object(call.arguments);
        let driver = RoundDriver::new(
            call.context,
            call.input_responses,
            call.request_state,
            Method::ToolsCall,
            call.name,
            info.destructive,
            info.uses_rounds.then_some(&arguments),
        );
        let Value::Object(arguments) = arguments else { unreachable!("built from an object just above") };
        ToolInvocation { arguments, parts: RequestParts::new(driver) }
    }

    /// The tool's name.
    pub fn tool_name(&self) -> &str {
        self.parts.name()
    }

    /// What extractors read.
    pub fn parts_mut(&mut self) -> &mut RequestParts {
        &mut self.parts
    }

    /// What converting the tool's return value may need.
    pub fn outcome_context(&self) -> OutcomeContext<'_> {
        self.parts.driver().outcome_context()
    }

    /// The request being served.
    pub fn context(&self) -> &RequestContext {
        self.parts.context()
    }

    /// Takes one argument out; `None` when the client did not send it.
    pub fn take_argument(&mut self, name: &str) -> Option<Value> {
        self.arguments.shift_remove(name)
    }

    /// Takes every remaining argument.
    pub fn take_arguments(&mut self) -> JsonObject {
        std::mem::take(&mut self.arguments)
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

    /// For a single-use round: claims the state before the handler runs (see
    /// [`RoundDriver::begin_single_use`]).
    pub fn begin_single_use(&mut self) -> Quick<'_, Result<(), Error>> {
        self.parts.driver_mut().begin_single_use()
    }

    /// Settles a single-use claim from the handler's result (see [`RoundDriver::settle`]).
    pub fn settle(
        &mut self,
        outcome: Result<Outcome<CallToolResult>, Error>,
    ) -> Quick<'_, Result<Outcome<CallToolResult>, Error>> {
        self.parts.driver_mut().settle(outcome)
    }

    /// Answers a rejected parameter: a tool error the model can read, a protocol error, or the
    /// same questions again (unless the state was already used).
    pub fn reject(&mut self, rejection: Rejection) -> Quick<'_, Result<Outcome<CallToolResult>, Error>> {
        self.parts.driver_mut().reject(rejection, |rejection| match rejection {
            Rejection::Argument(message) => Ok(CallToolResult::error(message).into()),
            Rejection::Protocol(error) => Err(error),
            Rejection::Reask { result, .. } => Ok(Outcome::InputRequired(*result)),
        })
    }
}

/// A parameter of a `#[tool]` function (generated code): an argument, [`Args<T>`] or an
/// extractor. `M` tells the three apart, so that each has an implementation of its own.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a #[tool]",
    label = "neither an argument type nor a request extractor",
    note = "an argument needs `serde::Deserialize` and `schemars::JsonSchema` (derive both on your own types)",
    note = "anything else the tool needs comes from an extractor: a type implementing \
            mcp_rounds::extract::FromRequest, like RequestContext, Principal, State<T> or Round<R>"
)]
pub trait ToolParam<M>: Sized + Send + 'static {
    /// The parameter takes part in rounds.
    const USES_ROUNDS: bool = false;

    /// Adds what the parameter contributes to the input schema.
    fn describe(schema: &mut InputSchema, name: &str, description: Option<&str>) {
        let _ = (schema, name, description);
    }

    /// What the parameter needs from the server.
    fn requirements(requirements: &mut Requirements) {
        let _ = requirements;
    }

    /// Produces the value for one call.
    fn extract<'a>(invocation: &'a mut ToolInvocation, name: &str) -> Extracted<'a, Self>;
}

// Not recommended in diagnostics: a type that is neither gets one error in ToolParam's words,
// not one per missing serde, schemars or extractor trait.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolParam<ViaArgument> for T {
    fn describe(schema: &mut InputSchema, name: &str, description: Option<&str>) {
        schema.argument::<T>(name, description);
    }

    fn extract<'a>(invocation: &'a mut ToolInvocation, name: &str) -> Extracted<'a, Self> {
        let value = match invocation.take_argument(name) {
            Some(value) => Ok(value),
            None if accepts_null::<T>() => Ok(Value::Null),
            None => Err(Rejection::Argument(format!("Missing required argument `{name}`"))),
        };
        let parsed = value.and_then(|value| {
            serde_json::from_value(value).map_err(|e| {
                Rejection::Argument(format!("Invalid argument `{name}`: {}", crate::error::serde_message(&e)))
            })
        });
        Extracted::ready(parsed)
    }
}

#[diagnostic::do_not_recommend]
impl<T: FromRequest> ToolParam<ViaExtractor> for T {
    const USES_ROUNDS: bool = T::USES_ROUNDS;

    fn requirements(requirements: &mut Requirements) {
        T::requirements(requirements);
    }

    fn extract<'a>(invocation: &'a mut ToolInvocation, _: &str) -> Extracted<'a, Self> {
        T::extract(invocation.parts_mut())
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

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolParam<ViaArgs> for Args<T> {
    fn describe(schema: &mut InputSchema, _: &str, _: Option<&str>) {
        schema.whole::<T>();
    }

    fn extract<'a>(invocation: &'a mut ToolInvocation, _: &str) -> Extracted<'a, Self> {
        let all = Value::Object(invocation.take_arguments());
        Extracted::ready(
            serde_json::from_value(all)
                .map(Args)
                .map_err(|e| Rejection::Argument(format!("Invalid arguments: {}", crate::error::serde_message(&e)))),
        )
    }
}
