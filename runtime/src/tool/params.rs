//! Tool parameters: each is either an argument the client sends (any type that implements
//! `Deserialize` and `JsonSchema`) or an extractor the framework fills in.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ToolCall;
use crate::context::{Principal, RequestContext};
use crate::error::Error;
use crate::extract::{FromRequest, State, StateRequirement};
use crate::model::{CallToolResult, ClientCapabilities, InputRequiredResult, JsonObject, Outcome};
use crate::rounds::{OutcomeContext, RoundDriver};
use crate::schema::{InputSchema, accepts_null};

/// Why a parameter could not be produced.
#[derive(Debug)]
pub enum Rejection {
    /// The arguments are wrong: the model sees this as a tool error and can correct itself.
    Argument(String),
    /// A protocol error.
    Protocol(Error),
    /// A retry without the answers its round needs: ask the same questions again.
    Reask {
        /// The questions, with the same state.
        result: Box<InputRequiredResult>,
        /// The state's nonce when it is single use (a used state is refused, not re-asked).
        nonce: Option<[u8; 16]>,
    },
}

impl Rejection {
    /// The result to answer with.
    pub fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        match self {
            Rejection::Argument(message) => Ok(CallToolResult::error(message).into()),
            Rejection::Protocol(error) => Err(error),
            Rejection::Reask { result, .. } => Ok(Outcome::InputRequired(*result)),
        }
    }
}

/// What the framework knows about the tool being called, from its annotations.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToolInfo {
    /// Destructive by the revision's defaults (not read-only, `destructiveHint` not false):
    /// its rounds are single use unless they say otherwise.
    pub destructive: bool,
    /// Takes or returns rounds, so the arguments are digested for the state binding.
    pub uses_rounds: bool,
}

/// One `tools/call` as the parameters of a handler see it: the arguments not yet taken and
/// the round machinery of the request.
pub struct ToolInvocation {
    arguments: JsonObject,
    driver: RoundDriver,
}

impl std::fmt::Debug for ToolInvocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolInvocation").field("tool", &self.driver.target()).finish_non_exhaustive()
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
            "tools/call",
            call.name,
            info.destructive,
            info.uses_rounds.then_some(&arguments),
        );
        let Value::Object(arguments) = arguments else { unreachable!("built from an object just above") };
        ToolInvocation { arguments, driver }
    }

    /// The tool's name.
    pub fn tool_name(&self) -> &str {
        self.driver.target()
    }

    /// The round machinery of this call.
    pub fn driver_mut(&mut self) -> &mut RoundDriver {
        &mut self.driver
    }

    /// What converting the tool's return value may need.
    pub fn outcome_context(&self) -> OutcomeContext<'_> {
        self.driver.outcome_context()
    }

    /// The request being served.
    pub fn context(&self) -> &RequestContext {
        self.driver.context()
    }

    /// The echoed `requestState`, unverified.
    pub fn request_state(&self) -> Option<&str> {
        self.driver.request_state()
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
    pub async fn begin_single_use(&mut self) -> Result<(), Error> {
        self.driver.begin_single_use().await
    }

    /// Settles a single-use claim from the handler's result (see [`RoundDriver::settle`]).
    pub async fn settle(
        &mut self,
        outcome: Result<Outcome<CallToolResult>, Error>,
    ) -> Result<Outcome<CallToolResult>, Error> {
        self.driver.settle(outcome).await
    }

    /// Answers a rejected parameter: a tool error, a protocol error, or the same questions
    /// again (unless the state was already used).
    pub async fn reject(&mut self, rejection: Rejection) -> Result<Outcome<CallToolResult>, Error> {
        self.driver.may_reask(&rejection).await?;
        rejection.into_outcome()
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
    note = "request data comes from extractors: RequestContext, Principal, ClientCapabilities, Changes, State<T>, Args<T>, Round<R>, Preanswered, TaskScope"
)]
pub trait ToolParam: Sized {
    /// The parameter takes part in rounds (it is a `Round<R>`).
    const USES_ROUNDS: bool = false;

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

extractor_param!(RequestContext, Principal, ClientCapabilities, crate::changes::Changes, crate::tasks::TaskScope);

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
