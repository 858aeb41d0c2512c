//! Prompts: message templates the user picks, rendered by `prompts/get`.
//!
//! Write prompts with [`#[prompt]`](macro@crate::prompt) on a plain function.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::completion::CompletionRequest;
use crate::context::RequestContext;
use crate::error::{BuildError, Error, Rejection};
use crate::extract::{Extracted, FromRequest, RequestParts, Requirements, ViaArgument, ViaExtractor};
use crate::future::BoxFuture;
use crate::future::Quick;
use crate::method::Method;
use crate::model::{Completion, GetPromptResult, JsonObject, Outcome, Prompt, PromptArgument, PromptMessage};
use crate::rounds::{Ask, OutcomeContext, RoundDriver, Rounds, Step};

/// One `prompts/get` as a prompt function sees it: the arguments not yet taken and the round
/// machinery of the request.
#[derive(Debug)]
#[doc(hidden)]
pub struct PromptGet {
    arguments: BTreeMap<String, String>,
    parts: RequestParts,
}

impl PromptGet {
    /// Starts taking parameters from a request. `uses_rounds` binds the arguments into any
    /// state the prompt signs.
    pub fn new(
        name: Arc<str>,
        arguments: BTreeMap<String, String>,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
        context: RequestContext,
        uses_rounds: bool,
    ) -> Self {
        let digested = uses_rounds.then(|| serde_json::to_value(&arguments).unwrap_or_default());
        let driver = RoundDriver::new(
            context,
            input_responses,
            request_state,
            Method::PromptsGet,
            name,
            false,
            digested.as_ref(),
        );
        PromptGet { arguments, parts: RequestParts::new(driver) }
    }

    /// The prompt's name.
    pub fn prompt_name(&self) -> &str {
        self.parts.name()
    }

    /// The request being served.
    pub fn context(&self) -> &RequestContext {
        self.parts.context()
    }

    /// Takes one argument out; `None` when the client did not send it.
    pub fn take_argument(&mut self, name: &str) -> Option<String> {
        self.arguments.remove(name)
    }

    /// What extractors read.
    pub fn parts_mut(&mut self) -> &mut RequestParts {
        &mut self.parts
    }

    /// What converting the prompt's return value may need.
    pub fn outcome_context(&self) -> OutcomeContext<'_> {
        self.parts.driver().outcome_context()
    }

    /// Fails when the client sent arguments no parameter took.
    pub fn finish(&self) -> Result<(), Rejection> {
        match self.arguments.keys().next() {
            None => Ok(()),
            Some(name) => Err(Rejection::Protocol(Error::invalid_field(
                &format!("arguments.{name}"),
                format!("Unknown prompt argument `{name}`"),
            ))),
        }
    }

    /// For a single-use round: claims the state before the prompt runs.
    pub fn begin_single_use(&mut self) -> Quick<'_, Result<(), Error>> {
        self.parts.driver_mut().begin_single_use()
    }

    /// Settles a single-use claim from the prompt's result.
    pub fn settle(
        &mut self,
        outcome: Result<Outcome<GetPromptResult>, Error>,
    ) -> Quick<'_, Result<Outcome<GetPromptResult>, Error>> {
        self.parts.driver_mut().settle(outcome)
    }

    /// Answers a rejected parameter: an error (prompts have no error results), or the same
    /// questions again (unless the state was already used).
    pub fn reject(&mut self, rejection: Rejection) -> Quick<'_, Result<Outcome<GetPromptResult>, Error>> {
        self.parts.driver_mut().reject(rejection, |rejection| match rejection {
            Rejection::Argument(message) => Err(Error::invalid_params(message)),
            Rejection::Protocol(error) => Err(error),
            Rejection::Reask { result, .. } => Ok(Outcome::InputRequired(*result)),
        })
    }
}

/// A parameter of a `#[prompt]` function (generated code): a string argument (`String` is
/// required, `Option<String>` optional) or an extractor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a #[prompt]",
    label = "neither a string argument nor a request extractor",
    note = "use String for a required argument, Option<String> for an optional one, or an extractor: a type \
            implementing mcp_rounds::extract::FromRequest, like RequestContext, Principal, State<T> or Round<R>"
)]
pub trait PromptParam<M>: Sized + Send + 'static {
    /// The parameter takes part in rounds.
    const USES_ROUNDS: bool = false;

    /// The argument this parameter declares, if it is one.
    fn argument(_name: &str, _description: Option<&str>) -> Option<PromptArgument> {
        None
    }

    /// What it needs from the server.
    fn requirements(requirements: &mut Requirements) {
        let _ = requirements;
    }

    /// Produces the value.
    fn extract<'a>(get: &'a mut PromptGet, name: &str) -> Extracted<'a, Self>;
}

fn declare(name: &str, description: Option<&str>, required: bool) -> Option<PromptArgument> {
    Some(PromptArgument {
        name: name.to_owned(),
        description: description.map(str::to_owned),
        required: Some(required),
        title: None,
    })
}

/// A parameter `#[arg(complete = ...)]` may go on: an argument, not an extractor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt argument, so it has nothing to complete",
    label = "`complete` goes on String and Option<String> arguments"
)]
pub trait CompletableArgument {}

impl CompletableArgument for String {}
impl CompletableArgument for Option<String> {}

#[diagnostic::do_not_recommend]
impl PromptParam<ViaArgument> for String {
    fn argument(name: &str, description: Option<&str>) -> Option<PromptArgument> {
        declare(name, description, true)
    }

    fn extract<'a>(get: &'a mut PromptGet, name: &str) -> Extracted<'a, Self> {
        Extracted::ready(get.take_argument(name).ok_or_else(|| {
            Rejection::Protocol(Error::invalid_field(
                &format!("arguments.{name}"),
                format!("Missing required prompt argument `{name}`"),
            ))
        }))
    }
}

#[diagnostic::do_not_recommend]
impl PromptParam<ViaArgument> for Option<String> {
    fn argument(name: &str, description: Option<&str>) -> Option<PromptArgument> {
        declare(name, description, false)
    }

    fn extract<'a>(get: &'a mut PromptGet, name: &str) -> Extracted<'a, Self> {
        Extracted::ready(Ok(get.take_argument(name)))
    }
}

#[diagnostic::do_not_recommend]
impl<T: FromRequest> PromptParam<ViaExtractor> for T {
    const USES_ROUNDS: bool = T::USES_ROUNDS;

    fn requirements(requirements: &mut Requirements) {
        T::requirements(requirements);
    }

    fn extract<'a>(get: &'a mut PromptGet, _: &str) -> Extracted<'a, Self> {
        T::extract(get.parts_mut())
    }
}

/// How a value returned by a `#[prompt]` function becomes its result.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[prompt]",
    label = "not prompt messages",
    note = "return Vec<PromptMessage>, PromptMessage, String or &str (one user message), GetPromptResult, \
            optionally inside Result<_, mcp_rounds::Error>, or Step<R, _> for a prompt with rounds"
)]
pub trait IntoPromptResult {
    /// The value may be a next round (it is a `Step` or an `Ask`).
    const USES_ROUNDS: bool = false;

    /// The result.
    fn into_prompt_result(self, context: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error>;
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self, _: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(Outcome::Complete(GetPromptResult { messages: self, ..Default::default() }))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self, context: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        vec![self].into_prompt_result(context)
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self, context: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        PromptMessage::user(self).into_prompt_result(context)
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self, context: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        self.to_owned().into_prompt_result(context)
    }
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self, _: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(Outcome::Complete(self))
    }
}

impl IntoPromptResult for Outcome<GetPromptResult> {
    fn into_prompt_result(self, _: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(self)
    }
}

impl<T: IntoPromptResult, E: Into<Error>> IntoPromptResult for Result<T, E> {
    const USES_ROUNDS: bool = T::USES_ROUNDS;

    fn into_prompt_result(self, context: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        self.map_err(Into::into)?.into_prompt_result(context)
    }
}

impl<R: Rounds, T: IntoPromptResult> IntoPromptResult for Step<R, T> {
    const USES_ROUNDS: bool = true;

    fn into_prompt_result(self, context: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        match self {
            Step::Done(result) => result.into_prompt_result(context),
            Step::Ask(ask) => context.ask(ask).map(Outcome::InputRequired),
        }
    }
}

impl<R: Rounds> IntoPromptResult for Ask<R> {
    const USES_ROUNDS: bool = true;

    fn into_prompt_result(self, context: &OutcomeContext<'_>) -> Result<Outcome<GetPromptResult>, Error> {
        context.ask(self).map(Outcome::InputRequired)
    }
}

/// A prompt described by `#[prompt]`.
#[doc(hidden)]
pub trait PromptDefinition: Send + Sync + 'static {
    /// The descriptor, or what is wrong with it.
    fn describe() -> Result<Prompt, String>;

    /// Whether the prompt has rounds (and so needs state keys).
    fn uses_rounds() -> bool {
        false
    }

    /// What the parameters need from the server.
    fn requirements(requirements: &mut Requirements) {
        let _ = requirements;
    }

    /// The OAuth scopes getting the prompt (or completing its arguments) needs.
    fn scopes() -> &'static [&'static str] {
        &[]
    }

    /// Renders the prompt for one request.
    fn get(&self, get: PromptGet) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, Error>>;

    /// Whether any argument has a completer.
    fn completes() -> bool {
        false
    }

    /// Suggestions for the argument `request.argument`, if it has a completer.
    fn complete(&self, _request: CompletionRequest) -> Option<BoxFuture<'_, Result<Completion, Error>>> {
        None
    }
}

pub(crate) trait PromptHandler: Send + Sync + 'static {
    fn get(&self, get: PromptGet) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, Error>>;
    fn complete(&self, request: CompletionRequest) -> Option<BoxFuture<'_, Result<Completion, Error>>>;
}

struct DefinedPrompt<T>(T);

impl<T: PromptDefinition> PromptHandler for DefinedPrompt<T> {
    fn get(&self, get: PromptGet) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, Error>> {
        self.0.get(get)
    }

    fn complete(&self, request: CompletionRequest) -> Option<BoxFuture<'_, Result<Completion, Error>>> {
        self.0.complete(request)
    }
}

/// A prompt ready to serve.
#[derive(Clone)]
pub struct PromptRoute {
    pub(crate) name: Arc<str>,
    pub(crate) prompt: Prompt,
    pub(crate) handler: Arc<dyn PromptHandler>,
    pub(crate) requirements: Requirements,
    pub(crate) uses_rounds: bool,
    pub(crate) completes: bool,
    pub(crate) scopes: Arc<[Arc<str>]>,
}

impl std::fmt::Debug for PromptRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptRoute").field("prompt", &self.prompt.name).finish_non_exhaustive()
    }
}

/// The route of a definition, or why it cannot be served.
pub(crate) fn route_of<T: PromptDefinition>(definition: T) -> Result<PromptRoute, BuildError> {
    let prompt = T::describe().map_err(|problem| BuildError::InvalidPrompt {
        prompt: std::any::type_name::<T>().rsplit("::").next().unwrap_or_default().to_owned(),
        problem,
    })?;
    let mut requirements = Requirements::default();
    T::requirements(&mut requirements);
    Ok(PromptRoute {
        name: prompt.name.as_str().into(),
        prompt,
        handler: Arc::new(DefinedPrompt(definition)),
        requirements,
        uses_rounds: T::uses_rounds(),
        completes: T::completes(),
        scopes: T::scopes().iter().map(|&scope| Arc::from(scope)).collect(),
    })
}
