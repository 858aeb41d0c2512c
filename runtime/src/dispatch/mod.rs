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

use crate::future::BoxFuture;
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

impl Dispatch {
    /// Answers one request: its reply, or the error to answer it with.
    pub(crate) fn route(
        &self,
        request: McpRequest,
    ) -> impl Future<Output = Result<Reply, crate::Error>> + Send + 'static {
        route::route(self.clone(), request)
    }
}
