//! Registering annotated functions: [`handlers!`](crate::handlers) lists them, whatever
//! their kind, and [`ServerBuilder::handlers`](crate::ServerBuilder::handlers) adds them.

use crate::apps::{View, ViewDefinition};
use crate::error::BuildError;
use crate::prompt::{PromptDefinition, PromptRoute};
use crate::resource::{ResourceDefinition, ResourceRoute};
use crate::tool::{IntoToolRoute, ToolDefinition, ToolRoute};

/// A tool, resource, prompt or view, ready to register.
#[derive(Debug)]
pub struct Handler(pub(crate) HandlerKind);

#[derive(Debug)]
pub(crate) enum HandlerKind {
    Tool(Result<ToolRoute, BuildError>),
    Resource(Result<ResourceRoute, BuildError>),
    Prompt(Result<PromptRoute, BuildError>),
    View(Box<View>),
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

    /// A `#[view]` item.
    pub fn view<T: ViewDefinition>(definition: T) -> Self {
        Handler(HandlerKind::View(Box::new(definition.view())))
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

/// Implemented by `#[tool]`, `#[resource]`, `#[prompt]` and `#[view]` for the item they annotate.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool, resource, prompt or view",
    label = "not annotated with #[tool], #[resource], #[prompt] or #[view]",
    note = "handlers![...] takes the names of annotated functions"
)]
pub trait IntoHandler {
    /// What the handler is known as to clients, with its kind (`tool:add`,
    /// `resource:notes://{id}`): [`handlers!`](crate::handlers) refuses to compile a list in
    /// which two entries share one. Empty for handlers that do not say.
    #[doc(hidden)]
    const NAME: &'static str = "";

    /// The marker value itself, so that `handlers![...]` names the type alone.
    #[doc(hidden)]
    const MARKER: Self;

    /// The handler.
    fn into_handler(self) -> Handler;
}

/// The names of a [`HandlerList`], as a list the compiler can walk while it evaluates
/// constants.
#[doc(hidden)]
pub enum Names {
    /// The end.
    Nil,
    /// A name and the rest.
    Cons(&'static str, &'static Names),
}

/// The type [`handlers!`](crate::handlers) writes for its list, nested pairs of the markers'
/// types, `(a, (b, ()))`: each path is written once, so a path that is no handler is one
/// error, and the names can be checked while the list compiles.
#[doc(hidden)]
pub trait HandlerList {
    /// The handlers' names, in order.
    const NAMES: Names;

    /// Appends the handlers to `into`.
    fn push_into(into: &mut Vec<Handler>);
}

impl HandlerList for () {
    const NAMES: Names = Names::Nil;

    fn push_into(_into: &mut Vec<Handler>) {}
}

impl<H: IntoHandler, T: HandlerList> HandlerList for (H, T) {
    const NAMES: Names = Names::Cons(H::NAME, &T::NAMES);

    fn push_into(into: &mut Vec<Handler>) {
        into.push(H::MARKER.into_handler());
        T::push_into(into);
    }
}

/// Fails the constant evaluation (a compile error at the `handlers![...]` that lists them)
/// when two handlers of `L` share a name.
#[doc(hidden)]
pub const fn assert_distinct<L: HandlerList>() {
    const fn same(a: &[u8], b: &[u8]) -> bool {
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
    let mut outer = &L::NAMES;
    while let Names::Cons(name, rest) = outer {
        let mut inner = *rest;
        while let Names::Cons(other, next) = inner {
            if !name.is_empty() && same(name.as_bytes(), other.as_bytes()) {
                panic!(
                    "two handlers in this handlers![...] have the same name (or URI): clients could call only one; \
                     rename one with name = \"...\", or list it once"
                );
            }
            inner = *next;
        }
        outer = *rest;
    }
}

/// The handlers of `L`, in order.
#[doc(hidden)]
pub fn handlers_of<L: HandlerList>() -> Vec<Handler> {
    let mut handlers = Vec::new();
    L::push_into(&mut handlers);
    handlers
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
    (@list) => { () };
    (@list $($segment:ident)::+ $(, $($rest:tt)*)?) => {
        ($($segment)::+, $crate::handlers!(@list $($($rest)*)?))
    };
    ($($($segment:ident)::+),* $(,)?) => {{
        type __Handlers = $crate::handlers!(@list $($($segment)::+),*);
        const _: () = $crate::__private::assert_distinct::<__Handlers>();
        $crate::__private::handlers_of::<__Handlers>()
    }};
}
