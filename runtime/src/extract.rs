//! Extractors: what a handler asks for by naming a parameter's type, in the spirit of axum.
//!
//! A parameter of a `#[tool]`, `#[prompt]` or `#[resource]` function is either an argument the
//! client sends (a tool argument, a prompt argument, a template variable) or an extractor: a
//! type implementing [`FromRequest`], filled in by the framework. The framework's own are
//! [`RequestContext`], [`Principal`], [`TokenClaims<T>`], [`ClientCapabilities`], [`Changes`], [`State<T>`],
//! [`Extension<T>`], [`Round<R>`](crate::Round), [`Preanswered`], [`Claim`], [`IdempotencyKey`]
//! and [`TaskScope`](crate::tasks::TaskScope); implement [`FromRequest`] for a type of your own
//! and it works in every kind of handler the same way.
//!
//! ```
//! use std::sync::Arc;
//!
//! use mcp_rounds::extract::{FromRequest, RequestParts, Requirements};
//! use mcp_rounds::{Rejection, State, tool};
//!
//! struct Pool(Vec<String>);
//!
//! /// A connection from the pool the server was given.
//! struct Connection(String);
//!
//! impl FromRequest for Connection {
//!     // Checked when the server is built: a server without a Pool is refused then.
//!     fn requirements(requirements: &mut Requirements) {
//!         requirements.state::<Pool>();
//!     }
//!
//!     async fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
//!         let State(pool) = request.extract::<State<Pool>>().await?;
//!         Ok(Connection(pool.0[0].clone()))
//!     }
//! }
//!
//! /// Says which database answers.
//! #[tool(read_only)]
//! fn which_database(connection: Connection) -> String {
//!     connection.0
//! }
//!
//! let server = mcp_rounds::Server::builder("db", "1.0.0")
//!     .state(Pool(vec!["primary".into()]))
//!     .handlers(mcp_rounds::handlers![which_database])
//!     .build()
//!     .unwrap();
//! ```
//!
//! Shared state is registered once with [`ServerBuilder::state`](crate::ServerBuilder::state)
//! and found by type; a handler asking for state that was never registered is refused when the
//! server is built, not when the request arrives.

use std::any::TypeId;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

pub use crate::error::Rejection;

use crate::changes::Changes;
use crate::context::{Principal, RequestContext, StateMap};
use crate::error::Error;
use crate::future::BoxFuture;
use crate::model::ClientCapabilities;
use crate::rounds::{Claim, IdempotencyKey, Preanswered, Round, RoundDriver, Rounds};

/// Something a handler can take from the request it serves: implement it for your own types
/// to make them parameters of tools, prompts and resources (see the [module docs](self)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a request extractor",
    label = "not something the framework can provide",
    note = "implement mcp_rounds::extract::FromRequest for it, or use one of the framework's: RequestContext, \
            Principal, ClientCapabilities, Changes, State<T>, Extension<T>, Round<R>, Preanswered, Claim, \
            IdempotencyKey, TaskScope"
)]
pub trait FromRequest: Sized + Send + 'static {
    /// Whether the extractor takes part in rounds: the server then needs state keys, and the
    /// call's arguments are bound into every state it signs.
    #[doc(hidden)]
    const USES_ROUNDS: bool = false;

    /// What the extractor needs from the server, checked when it is built.
    fn requirements(requirements: &mut Requirements) {
        let _ = requirements;
    }

    /// Takes the value from the request being served.
    fn from_request(request: &mut RequestParts) -> impl Future<Output = Result<Self, Rejection>> + Send;

    /// How generated code takes the value: [`from_request`](Self::from_request), boxed. The
    /// framework's own extractors never wait and answer at once instead.
    #[doc(hidden)]
    fn extract(request: &mut RequestParts) -> Extracted<'_, Self> {
        Extracted::Pending(Box::pin(Self::from_request(request)))
    }
}

/// Marks a parameter that is one argument, named after the parameter (generated code).
#[doc(hidden)]
#[derive(Debug)]
pub enum ViaArgument {}

/// Marks a tool parameter that is all the arguments, [`Args<T>`](crate::Args) (generated code).
#[doc(hidden)]
#[derive(Debug)]
pub enum ViaArgs {}

/// Marks a parameter that is an extractor (generated code).
#[doc(hidden)]
#[derive(Debug)]
pub enum ViaExtractor {}

/// A parameter of a `#[resource]` function that is not a template variable (generated code):
/// an extractor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a variable of the URI template nor a request extractor",
    label = "not a variable of the URI template, and not something the framework can provide",
    note = "name the parameter like a variable of the template, or use an extractor: a type implementing \
            mcp_rounds::extract::FromRequest, like RequestContext, Principal or State<T>"
)]
pub trait ResourceParam: Sized {
    /// Whether it takes part in rounds (resources have none).
    const USES_ROUNDS: bool;

    /// What it needs from the server.
    fn requirements(requirements: &mut Requirements);

    /// Takes the value.
    fn extract(request: &mut RequestParts) -> Extracted<'_, Self>;
}

#[diagnostic::do_not_recommend]
impl<T: FromRequest> ResourceParam for T {
    const USES_ROUNDS: bool = T::USES_ROUNDS;

    fn requirements(requirements: &mut Requirements) {
        T::requirements(requirements);
    }

    fn extract(request: &mut RequestParts) -> Extracted<'_, Self> {
        T::extract(request)
    }
}

/// A parameter's value, ready or on its way (generated code). A concrete type rather than the
/// extractor's own future, so that a type that is no parameter at all is one error, at the
/// parameter, and not a second one where its value is awaited.
#[doc(hidden)]
pub enum Extracted<'a, T> {
    /// Taken at once.
    Ready(Option<Result<T, Rejection>>),
    /// Being taken.
    Pending(BoxFuture<'a, Result<T, Rejection>>),
}

impl<T> Extracted<'_, T> {
    /// A value taken at once.
    pub fn ready(value: Result<T, Rejection>) -> Self {
        Extracted::Ready(Some(value))
    }
}

// Never pins `T`: a ready value is moved out, not polled.
impl<T> Unpin for Extracted<'_, T> {}

impl<T> Future for Extracted<'_, T> {
    type Output = Result<T, Rejection>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Extracted::Ready(value) => Poll::Ready(value.take().expect("an extracted value is taken once")),
            Extracted::Pending(future) => future.as_mut().poll(cx),
        }
    }
}

/// `FromRequest` for an extractor that never waits: `take` computes it from the parts.
macro_rules! at_once {
    ($([$($generics:tt)*] $ty:ty, rounds: $rounds:expr, take: $take:expr $(, requires: $requires:expr)?;)*) => {$(
        impl<$($generics)*> FromRequest for $ty {
            const USES_ROUNDS: bool = $rounds;

            fn requirements(requirements: &mut Requirements) {
                $(($requires)(&mut *requirements);)?
                let _ = requirements;
            }

            fn from_request(request: &mut RequestParts) -> impl Future<Output = Result<Self, Rejection>> + Send {
                std::future::ready(($take)(request))
            }

            fn extract(request: &mut RequestParts) -> Extracted<'_, Self> {
                Extracted::ready(($take)(request))
            }
        }
    )*};
}

/// The request as extractors see it: the request context and the round machinery of the
/// call, whatever kind of handler it is for.
#[derive(Debug)]
pub struct RequestParts {
    driver: RoundDriver,
}

impl RequestParts {
    pub(crate) fn new(driver: RoundDriver) -> Self {
        RequestParts { driver }
    }

    /// The request being served.
    pub fn context(&self) -> &RequestContext {
        self.driver.context()
    }

    /// Who is calling.
    pub fn principal(&self) -> &Principal {
        self.context().principal()
    }

    /// What the client declared it can do, for this request only.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        self.context().client_capabilities()
    }

    /// Shared state of type `T`, if the server registered one (declare it in
    /// [`FromRequest::requirements`] to have its absence caught when the server is built).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.context().state::<T>()
    }

    /// The method: `tools/call`, `prompts/get` or `resources/read`.
    pub fn method(&self) -> &'static str {
        self.driver.method()
    }

    /// What is called: the tool or prompt name, or the resource's URI.
    pub fn name(&self) -> &str {
        self.driver.target()
    }

    /// Runs another extractor, to build one from others.
    pub async fn extract<T: FromRequest>(&mut self) -> Result<T, Rejection> {
        T::from_request(self).await
    }

    /// The round machinery of the call (generated code and the framework's own extractors).
    #[doc(hidden)]
    pub fn driver_mut(&mut self) -> &mut RoundDriver {
        &mut self.driver
    }

    pub(crate) fn driver(&self) -> &RoundDriver {
        &self.driver
    }
}

/// What a handler's extractors need from the server, collected when it is built.
#[derive(Clone, Debug, Default)]
#[doc(hidden)]
pub struct Requirements {
    states: Vec<StateRequirement>,
}

impl Requirements {
    /// Shared state of type `T` must be registered with
    /// [`ServerBuilder::state`](crate::ServerBuilder::state).
    pub fn state<T: Send + Sync + 'static>(&mut self) -> &mut Self {
        let requirement = StateRequirement::of::<T>();
        if !self.states.contains(&requirement) {
            self.states.push(requirement);
        }
        self
    }

    /// The first required state `registered` lacks.
    pub(crate) fn missing_state(&self, registered: &StateMap) -> Option<&StateRequirement> {
        self.states.iter().find(|r| !registered.contains(r.id))
    }
}

/// A state type an extractor needs: its id and its name for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateRequirement {
    id: TypeId,
    name: &'static str,
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

at_once! {
    [] RequestContext, rounds: false, take: |request: &mut RequestParts| Ok(request.context().clone());
    [] Principal, rounds: false, take: |request: &mut RequestParts| Ok(request.principal().clone());
    [] ClientCapabilities, rounds: false, take: |request: &mut RequestParts| Ok(request.client_capabilities().clone());
    [] Changes, rounds: false, take: |request: &mut RequestParts| Ok(request.context().changes().clone());
    [T: serde::de::DeserializeOwned + Send + 'static] TokenClaims<T>, rounds: false, take: token_claims::<T>;
    [T: Send + Sync + 'static] State<T>, rounds: false, take: state::<T>,
        requires: |requirements: &mut Requirements| { requirements.state::<T>(); };
    [R: Rounds] Round<R>, rounds: true, take: |request: &mut RequestParts| request.driver_mut().resume::<R>();
    [] Preanswered, rounds: false, take: |request: &mut RequestParts| Ok(request.driver_mut().preanswered());
    // Both make the handler's effect safe to retry, so the claim is held open to commit with it.
    [] Claim, rounds: true, take: |request: &mut RequestParts| {
        request.driver_mut().hold_claim();
        Ok(Claim::new(request.driver().claim_slot()))
    };
    // The key is only meaningful with rounds, and rounds bind the arguments.
    [] IdempotencyKey, rounds: true, take: |request: &mut RequestParts| {
        request.driver_mut().hold_claim();
        Ok(IdempotencyKey::from_nonce(request.driver().verified_nonce()))
    };
}

/// The verified claims of the caller's OAuth access token, as a `T` of your own (any
/// `Deserialize` type; `JsonObject` takes them all). Scopes and the subject are on the
/// [`Principal`] already; this is for what else the token says (a tenant, an email, roles).
///
/// A caller authenticated without an access token (a static token, stdio), or whose claims do
/// not fit `T`, is refused with -32600 before the handler runs.
///
/// ```
/// use mcp_rounds::testing::TestClient;
/// use mcp_rounds::{Principal, Server, TokenClaims, handlers, tool};
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct Tenant {
///     tenant: String,
/// }
///
/// /// Who the caller works for.
/// #[tool(read_only)]
/// fn whose(TokenClaims(claims): TokenClaims<Tenant>) -> String {
///     claims.tenant
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::builder("tenants", "1.0.0").handlers(handlers![whose]).build().unwrap();
/// let claims = serde_json::json!({"sub": "svc", "tenant": "acme"}).as_object().cloned().unwrap();
/// let caller = TestClient::new(&server).as_principal(Principal::new("svc").with_claims(claims));
/// let result = caller.call_tool("whose", serde_json::json!({})).await.unwrap();
/// assert_eq!(result.content[0].as_text(), Some("acme"));
/// let without_token = TestClient::new(&server).as_principal(Principal::new("svc"));
/// assert_eq!(without_token.call_tool("whose", serde_json::json!({})).await.unwrap_err().code, -32600);
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct TokenClaims<T>(pub T);

fn token_claims<T: serde::de::DeserializeOwned>(request: &mut RequestParts) -> Result<TokenClaims<T>, Rejection> {
    let Some(claims) = request.principal().claims() else {
        let why = "This call needs an OAuth access token; the caller was authenticated without one";
        return Err(Rejection::Protocol(Error::invalid_request(why)));
    };
    let claims = serde_json::Value::Object(claims.clone());
    T::deserialize(claims).map(TokenClaims).map_err(|e| {
        let why =
            format!("The access token's claims are not what this call needs: {}", crate::error::serde_message(&e));
        Rejection::Protocol(Error::invalid_request(why))
    })
}

fn state<T: Send + Sync + 'static>(request: &mut RequestParts) -> Result<State<T>, Rejection> {
    request.state::<T>().map(State).ok_or_else(|| {
        // Only reachable when an extractor reads state it did not declare.
        tracing::error!(state = std::any::type_name::<T>(), "state requested but never registered");
        Rejection::Protocol(Error::internal())
    })
}

/// A value a layer attached to the request with
/// [`McpRequest::extensions_mut`](crate::dispatch::McpRequest::extensions_mut): what a layer
/// found out (a tenant, a verified claim) handed to the handler.
///
/// A request that reaches a handler without one is a server bug (the layer that attaches it
/// is missing) and is answered -32603.
#[derive(Clone, Debug)]
pub struct Extension<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromRequest for Extension<T> {
    fn from_request(request: &mut RequestParts) -> impl Future<Output = Result<Self, Rejection>> + Send {
        std::future::ready(extension::<T>(request))
    }

    fn extract(request: &mut RequestParts) -> Extracted<'_, Self> {
        Extracted::ready(extension::<T>(request))
    }
}

fn extension<T: Clone + Send + Sync + 'static>(request: &RequestParts) -> Result<Extension<T>, Rejection> {
    request.context().extensions().get::<T>().cloned().map(Extension).ok_or_else(|| {
        tracing::error!(extension = std::any::type_name::<T>(), "no layer attached the extension a handler takes");
        Rejection::Protocol(Error::internal())
    })
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
