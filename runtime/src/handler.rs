//! Registering annotated functions: [`handlers!`](crate::handlers) lists them, whatever
//! their kind, and [`ServerBuilder::handlers`](crate::ServerBuilder::handlers) adds them.

use crate::error::BuildError;
use crate::prompt::{PromptDefinition, PromptRoute};
use crate::resource::{ResourceDefinition, ResourceRoute};
use crate::tool::{IntoToolRoute, ToolDefinition, ToolRoute};

/// A tool, resource or prompt, ready to register.
#[derive(Debug)]
pub struct Handler(pub(crate) HandlerKind);

#[derive(Debug)]
pub(crate) enum HandlerKind {
    Tool(Result<ToolRoute, BuildError>),
    Resource(Result<ResourceRoute, BuildError>),
    Prompt(Result<PromptRoute, BuildError>),
}

impl Handler {
    /// A `#[tool]` function.
    pub fn tool<T: ToolDefinition>(definition: T) -> Self {
        Handler(HandlerKind::Tool(definition.into_route()))
    }

    /// A `#[resource]` function.
    pub fn resource<T: ResourceDefinition>(definition: T) -> Self {
        Handler(HandlerKind::Resource(crate::resource::route_of(definition)))
    }

    /// A `#[prompt]` function.
    pub fn prompt<T: PromptDefinition>(definition: T) -> Self {
        Handler(HandlerKind::Prompt(crate::prompt::route_of(definition)))
    }
}

impl From<ToolRoute> for Handler {
    fn from(route: ToolRoute) -> Self {
        Handler(HandlerKind::Tool(Ok(route)))
    }
}

/// Implemented by `#[tool]`, `#[resource]` and `#[prompt]` for the function they annotate.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool, resource or prompt",
    label = "not annotated with #[tool], #[resource] or #[prompt]",
    note = "handlers![...] takes the names of annotated functions"
)]
pub trait IntoHandler {
    /// The handler.
    fn into_handler(self) -> Handler;
}

/// The annotated functions a server serves, by name, in any order and of any kind.
///
/// ```
/// use mcp_rounds::{Server, handlers, prompt, resource, tool};
///
/// /// Says hello.
/// #[tool]
/// fn hello(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// /// The greeting in use.
/// #[resource("greeting://current")]
/// fn greeting() -> String {
///     "Hello".to_owned()
/// }
///
/// /// Ask for a greeting.
/// #[prompt]
/// fn greet_me(name: String) -> String {
///     format!("Please greet {name}.")
/// }
///
/// let server = Server::builder("greeter", "1.0.0")
///     .handlers(handlers![hello, greeting, greet_me])
///     .build()
///     .unwrap();
/// # assert_eq!(hello("Ada".into()), "Hello, Ada!");
/// ```
#[macro_export]
macro_rules! handlers {
    ($($($segment:ident)::+),* $(,)?) => {
        [$($crate::__private::IntoHandler::into_handler($($segment)::+ {})),*]
    };
}
