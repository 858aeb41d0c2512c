//! Dispatch: one request in, one typed answer out, as a [`tower::Service`].
//!
//! [`McpRequest`] is decoded once, before anything else runs: its id, method, principal and
//! what it names, its validated `_meta`, its parameters. Dispatch answers it with an
//! [`McpResponse`] holding a typed [`Reply`] (a result, `input_required`, a task, or an
//! error); one stage at the very end stamps `serverInfo` and encodes it for the revision of
//! the client that asked. Between the two sit the server's layers
//! ([`ServerBuilder::layer`](crate::ServerBuilder::layer)): any [`tower::Layer`] whose service
//! takes an `McpRequest` and answers an `McpResponse`, on every transport alike.
//!
//! ```
//! use std::task::{Context, Poll};
//!
//! use mcp_rounds::dispatch::{McpRequest, McpResponse};
//! use mcp_rounds::{Error, Server};
//!
//! /// Refuses `tools/call` of `drop_tables` for everyone but `admin`.
//! #[derive(Clone)]
//! struct AdminOnly<S>(S);
//!
//! impl<S: tower::Service<McpRequest, Response = McpResponse>> tower::Service<McpRequest> for AdminOnly<S>
//! where
//!     S::Future: Send + 'static,
//!     S::Error: Send + 'static,
//! {
//!     type Response = McpResponse;
//!     type Error = S::Error;
//!     type Future = mcp_rounds::future::BoxFuture<'static, Result<McpResponse, S::Error>>;
//!
//!     fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
//!         self.0.poll_ready(cx)
//!     }
//!
//!     fn call(&mut self, request: McpRequest) -> Self::Future {
//!         if request.target() == Some("drop_tables") && request.principal().name() != Some("admin") {
//!             let refused = McpResponse::error(request.id().clone(), Error::invalid_params("Not allowed"));
//!             return Box::pin(async move { Ok(refused) });
//!         }
//!         Box::pin(self.0.call(request))
//!     }
//! }
//!
//! let server = Server::builder("db", "1.0.0")
//!     .layer(tower::layer::layer_fn(AdminOnly))
//!     .build()
//!     .unwrap();
//! ```

mod complete;
pub(crate) mod encode;
mod listen;
mod request;
mod response;
mod route;
#[cfg(feature = "skills")]
mod skills;
pub(crate) mod tasks;

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll};

pub use encode::Encoded;
pub use request::McpRequest;
pub(crate) use request::{Origin, Stream};
pub use response::{Completed, McpResponse, Reply};

use tower::ServiceExt as _;

use crate::error::Error;
use crate::future::{BoxFuture, CatchPanic};
use crate::registry::Registry;
use tasks::TaskRuntime;

/// An error a layer fails a request with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The service a layer wraps: dispatch inside the layers added before.
pub type BoxDispatch = tower::util::BoxCloneSyncService<McpRequest, McpResponse, BoxError>;

/// The innermost service: routes a request to its handler.
#[derive(Clone, Debug)]
pub(crate) struct Dispatch {
    pub(crate) registry: Arc<Registry>,
    pub(crate) tasks: Arc<TaskRuntime>,
}

impl tower::Service<McpRequest> for Dispatch {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<McpResponse, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let id = Some(request.id.clone());
        Box::pin(Responding { id, routing: route::route(self.clone(), request) })
    }
}

pin_project_lite::pin_project! {
    /// A request being routed, answered as the response to its id: the routing future held
    /// once (an async block would hold it twice, as what it captured and what it awaits).
    struct Responding<F> {
        id: Option<crate::RequestId>,
        #[pin]
        routing: F,
    }
}

impl<F: Future<Output = Result<Reply, crate::Error>>> Future for Responding<F> {
    type Output = Result<McpResponse, Infallible>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let reply = std::task::ready!(this.routing.poll(cx)).unwrap_or_else(Reply::Error);
        let id = this.id.take().expect("a request is answered once");
        Poll::Ready(Ok(McpResponse::new(id, reply)))
    }
}

/// The server's layers around dispatch: what answers a request once it is observed.
#[derive(Clone)]
pub(crate) enum Layers {
    /// No layers: dispatch is called directly, one boxed future per request.
    Bare(Dispatch),
    /// Dispatch inside the user's layers.
    Layered(BoxDispatch),
}

impl Layers {
    /// The answer to `request`, on its way: through its [`Front`] when it has one, else
    /// through the layers. The request goes into a box at once, so that the futures around it
    /// stay small; a panic anywhere on the way (a handler, a layer, a front) answers this
    /// request with -32603 and nothing else.
    pub(crate) fn answer(
        &self,
        mut request: McpRequest,
    ) -> Answering<impl Future<Output = Result<Reply, Error>> + Send + 'static> {
        let id = Some(request.id.clone());
        let way = match (request.front.take(), self) {
            (Some(front), _) => Way::Front(CatchPanic(front.answer(request, self.clone()))),
            (None, Layers::Bare(dispatch)) => Way::Bare(CatchPanic(Box::pin(route::route(dispatch.clone(), request)))),
            (None, Layers::Layered(layered)) => Way::Layered(CatchPanic(Box::pin(layered.clone().oneshot(request)))),
        };
        Answering { id, way }
    }
}

/// A request on its way to its answer (a future of its own, not an async block, which would
/// hold what it awaits twice).
pub(crate) struct Answering<B: ?Sized> {
    id: Option<crate::RequestId>,
    way: Way<B>,
}

enum Way<B: ?Sized> {
    Bare(CatchPanic<B>),
    Layered(CatchPanic<tower::util::Oneshot<BoxDispatch, McpRequest>>),
    Front(CatchPanic<dyn Future<Output = McpResponse> + Send>),
}

impl<B: Future<Output = Result<Reply, Error>> + ?Sized> Future for Answering<B> {
    type Output = McpResponse;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<McpResponse> {
        // Every way holds its future in a box: nothing here is pinned in place.
        let Answering { id, way } = self.get_mut();
        let mut id = || id.take().expect("a request is answered once");
        let response = match way {
            Way::Bare(routing) => match std::task::ready!(std::pin::Pin::new(routing).poll(cx)) {
                Ok(Ok(reply)) => McpResponse::new(id(), reply),
                Ok(Err(error)) => McpResponse::error(id(), error),
                Err(()) => McpResponse::error(id(), Error::internal()),
            },
            Way::Layered(layered) => match std::task::ready!(std::pin::Pin::new(layered).poll(cx)) {
                Ok(Ok(response)) => response,
                Ok(Err(error)) => McpResponse::error(id(), layer_error(error)),
                Err(()) => McpResponse::error(id(), Error::internal()),
            },
            Way::Front(front) => match std::task::ready!(std::pin::Pin::new(front).poll(cx)) {
                Ok(response) => response,
                Err(()) => McpResponse::error(id(), Error::internal()),
            },
        };
        Poll::Ready(response)
    }
}

/// What a layer's error answers: itself when it is the framework's [`Error`], -32603 otherwise
/// (its text stays in the server's log).
fn layer_error(error: BoxError) -> Error {
    match error.downcast::<Error>() {
        Ok(error) => *error,
        Err(other) => {
            tracing::warn!(error = %other, "a layer failed the request");
            Error::internal()
        }
    }
}

/// Answers requests in the layers' place: a session of revision 2025-11-25, which answers the
/// methods only that revision has itself and the rest through the layers, playing their rounds
/// out with its client (the connection layer implements it; dispatch knows nothing of eras).
pub(crate) trait Front: std::fmt::Debug + Send + Sync + 'static {
    /// The answer to `request`, which names this front.
    fn answer(self: std::sync::Arc<Self>, request: McpRequest, layers: Layers) -> BoxFuture<'static, McpResponse>;
}
