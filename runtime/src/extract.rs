//! Extractors: what a handler asks for by naming a parameter's type, in the spirit of axum.
//!
//! A parameter typed [`RequestContext`], [`Principal`], [`ClientCapabilities`] or [`State<T>`]
//! is filled in by the framework; every other parameter of a tool is an argument the client
//! sends. Shared state is registered once with [`ServerBuilder::state`](crate::ServerBuilder::state)
//! and found by type; a handler asking for state that was never registered is refused when
//! the server is built, not when the request arrives.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::context::{Principal, RequestContext};
use crate::error::Error;
use crate::model::ClientCapabilities;

/// Something a handler can take from the request it serves.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a request extractor",
    label = "not something the framework can provide",
    note = "extractors are RequestContext, Principal, ClientCapabilities and State<T>"
)]
pub trait FromRequest: Sized {
    /// The state types this extractor needs registered, checked when the server is built.
    fn required_state() -> Option<StateRequirement> {
        None
    }

    /// Takes the value from the request.
    fn from_request(context: &RequestContext) -> Result<Self, Error>;
}

/// A state type an extractor needs: its id and its name for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateRequirement {
    pub(crate) id: TypeId,
    pub(crate) name: &'static str,
}

impl StateRequirement {
    /// The requirement for state of type `T`.
    pub fn of<T: 'static>() -> Self {
        StateRequirement { id: TypeId::of::<T>(), name: std::any::type_name::<T>() }
    }

    /// The type's name.
    pub fn type_name(&self) -> &'static str {
        self.name
    }
}

impl FromRequest for RequestContext {
    fn from_request(context: &RequestContext) -> Result<Self, Error> {
        Ok(context.clone())
    }
}

impl FromRequest for Principal {
    fn from_request(context: &RequestContext) -> Result<Self, Error> {
        Ok(context.principal().clone())
    }
}

impl FromRequest for ClientCapabilities {
    fn from_request(context: &RequestContext) -> Result<Self, Error> {
        Ok(context.client_capabilities().clone())
    }
}

/// Shared state of type `T`, registered with [`ServerBuilder::state`](crate::ServerBuilder::state).
///
/// ```
/// use mcp_rounds::{State, tool};
///
/// struct Greeting(String);
///
/// /// Greets with the configured greeting.
/// #[tool]
/// fn greet(name: String, State(greeting): State<Greeting>) -> String {
///     format!("{}, {name}!", greeting.0)
/// }
///
/// let server = mcp_rounds::Server::builder("greeter", "1.0.0")
///     .state(Greeting("Hello".into()))
///     .handlers(mcp_rounds::handlers![greet])
///     .build()
///     .unwrap();
/// ```
pub struct State<T>(pub Arc<T>);

impl<T> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T: fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&self.0).finish()
    }
}

impl<T: Send + Sync + 'static> FromRequest for State<T> {
    fn required_state() -> Option<StateRequirement> {
        Some(StateRequirement::of::<T>())
    }

    fn from_request(context: &RequestContext) -> Result<Self, Error> {
        context.state::<T>().map(State).ok_or_else(|| {
            // Unreachable for servers built by ServerBuilder, which checks requirements.
            tracing::error!(state = std::any::type_name::<T>(), "state requested but never registered");
            Error::internal()
        })
    }
}

/// Shared state by type.
#[derive(Clone, Default)]
pub struct StateMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.0.insert(TypeId::of::<T>(), value);
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0.get(&TypeId::of::<T>()).cloned().and_then(|v| v.downcast::<T>().ok())
    }

    pub(crate) fn contains(&self, requirement: &StateRequirement) -> bool {
        self.0.contains_key(&requirement.id)
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateMap({} entries)", self.0.len())
    }
}
