//! Prompts: message templates the user picks, rendered by `prompts/get`.
//!
//! Write prompts with [`#[prompt]`](macro@crate::prompt) on a plain function.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::context::{Principal, RequestContext};
use crate::error::Error;
use crate::extract::{FromRequest, State, StateRequirement};
use crate::model::{
    ClientCapabilities, GetPromptResult, InputResponses, Outcome, Prompt, PromptArgument, PromptMessage,
};
use crate::server::BuildError;
use crate::tool::BoxFuture;

/// One `prompts/get` as a prompt function sees it.
#[derive(Debug)]
pub struct PromptGet {
    /// The arguments not yet taken.
    pub arguments: BTreeMap<String, String>,
    /// Answers to the previous round's input requests, on a retry.
    pub input_responses: Option<InputResponses>,
    /// The echoed `requestState`, unverified.
    pub request_state: Option<String>,
    /// The request being served.
    pub context: RequestContext,
}

impl PromptGet {
    /// Fails when the client sent arguments no parameter took.
    pub fn finish(&self) -> Result<(), Error> {
        match self.arguments.keys().next() {
            None => Ok(()),
            Some(name) => {
                Err(Error::invalid_field(&format!("arguments.{name}"), format!("Unknown prompt argument `{name}`")))
            }
        }
    }
}

/// A parameter of a `#[prompt]` function: a string argument (`String` is required,
/// `Option<String>` optional) or an extractor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a #[prompt]",
    label = "prompt arguments are strings",
    note = "use String for a required argument, Option<String> for an optional one, \
            or an extractor: RequestContext, Principal, ClientCapabilities, State<T>"
)]
pub trait PromptParam: Sized {
    /// The argument this parameter declares, if it is one.
    fn argument(_name: &str, _description: Option<&str>) -> Option<PromptArgument> {
        None
    }

    /// The shared state it needs.
    fn required_state() -> Option<StateRequirement> {
        None
    }

    /// Produces the value.
    fn extract(get: &mut PromptGet, name: &str) -> Result<Self, Error>;
}

fn declare(name: &str, description: Option<&str>, required: bool) -> Option<PromptArgument> {
    Some(PromptArgument {
        name: name.to_owned(),
        description: description.map(str::to_owned),
        required: Some(required),
        title: None,
    })
}

impl PromptParam for String {
    fn argument(name: &str, description: Option<&str>) -> Option<PromptArgument> {
        declare(name, description, true)
    }

    fn extract(get: &mut PromptGet, name: &str) -> Result<Self, Error> {
        get.arguments.remove(name).ok_or_else(|| {
            Error::invalid_field(&format!("arguments.{name}"), format!("Missing required prompt argument `{name}`"))
        })
    }
}

impl PromptParam for Option<String> {
    fn argument(name: &str, description: Option<&str>) -> Option<PromptArgument> {
        declare(name, description, false)
    }

    fn extract(get: &mut PromptGet, name: &str) -> Result<Self, Error> {
        Ok(get.arguments.remove(name))
    }
}

macro_rules! prompt_extractor {
    ($($ty:ty),* $(,)?) => {$(
        impl PromptParam for $ty {
            fn extract(get: &mut PromptGet, _: &str) -> Result<Self, Error> {
                <$ty as FromRequest>::from_request(&get.context)
            }
        }
    )*};
}

prompt_extractor!(RequestContext, Principal, ClientCapabilities, crate::changes::Changes);

impl<T: Send + Sync + 'static> PromptParam for State<T> {
    fn required_state() -> Option<StateRequirement> {
        <State<T> as FromRequest>::required_state()
    }

    fn extract(get: &mut PromptGet, _: &str) -> Result<Self, Error> {
        <State<T> as FromRequest>::from_request(&get.context)
    }
}

/// How a value returned by a `#[prompt]` function becomes its result.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[prompt]",
    label = "not prompt messages",
    note = "return Vec<PromptMessage>, PromptMessage, String (one user message) or GetPromptResult, \
            optionally inside Result<_, mcp_rounds::Error>"
)]
pub trait IntoPromptResult {
    /// The result.
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, Error>;
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(Outcome::Complete(GetPromptResult { messages: self, ..Default::default() }))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, Error> {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, Error> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(Outcome::Complete(self))
    }
}

impl IntoPromptResult for Outcome<GetPromptResult> {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(self)
    }
}

impl<T: IntoPromptResult, E: Into<Error>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, Error> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}

/// A prompt described by `#[prompt]`.
pub trait PromptDefinition: Send + Sync + 'static {
    /// The descriptor, or what is wrong with it.
    fn describe() -> Result<Prompt, String>;

    /// The shared state the parameters need.
    fn required_state() -> Vec<StateRequirement> {
        Vec::new()
    }

    /// Renders the prompt for one request.
    fn get(&self, get: PromptGet) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, Error>>;
}

pub(crate) trait PromptHandler: Send + Sync + 'static {
    fn get(&self, get: PromptGet) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, Error>>;
}

struct Defined<T>(T);

impl<T: PromptDefinition> PromptHandler for Defined<T> {
    fn get(&self, get: PromptGet) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, Error>> {
        self.0.get(get)
    }
}

/// A prompt ready to serve.
#[derive(Clone)]
pub struct PromptRoute {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Arc<dyn PromptHandler>,
    pub(crate) required_state: Vec<StateRequirement>,
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
    Ok(PromptRoute { prompt, handler: Arc::new(Defined(definition)), required_state: T::required_state() })
}
