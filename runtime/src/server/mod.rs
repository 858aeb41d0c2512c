//! The server: a built registry and the service stack around its dispatch, cheap to clone and
//! shared by every connection and transport.

mod builder;

use std::future::Future;
use std::sync::Arc;

use tower::ServiceExt as _;

pub use builder::ServerBuilder;

use crate::changes::Changes;
use crate::context::Principal;
use crate::dispatch::encode::{Era, encode};
use crate::dispatch::{BoxDispatch, BoxError, Dispatch, Encoded, McpRequest, McpResponse};
use crate::error::Error;
use crate::future::CatchPanic;
use crate::jsonrpc::Request;
use crate::middleware::telemetry;
use crate::model::{Implementation, ServerCapabilities};
use crate::registry::Registry;
use crate::telemetry::{Observed, Scope, Trace};

pub(crate) struct Inner {
    pub(crate) registry: Arc<Registry>,
    dispatch: Dispatch,
    /// Dispatch inside the user's layers, when there are any.
    layered: Option<BoxDispatch>,
    pub(crate) legacy_sessions: bool,
    /// Whether every request is observed (its server span and metrics) outside the layers.
    pub(crate) telemetry: bool,
}

/// An MCP server: cheap to clone, shared by every connection and transport.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.registry.info)
            .field("tools", &self.inner.registry.tools.len())
            .field("layers", &self.inner.layered.is_some())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts describing a server with its name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(Implementation::new(name, version))
    }

    /// What `server/discover` advertises.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.registry.capabilities
    }

    /// Announces changes to `subscriptions/listen` streams.
    pub fn changes(&self) -> Changes {
        self.inner.registry.shared.changes.clone()
    }

    /// Reads the skills directory again now, and announces what changed. The server does this
    /// by itself when the directory changes; call it where the system cannot report changes
    /// (some network file systems), or to be sure a change made just now is served. Without a
    /// skills directory it does nothing.
    #[cfg(feature = "skills")]
    pub fn reload_skills(&self) {
        if let Some(skills) = &self.inner.registry.skills {
            skills.reload(&self.changes());
        }
    }

    /// Answers one request through the server's layers and dispatch. A panic anywhere on the
    /// way (a handler, a layer) answers this request with -32603 and nothing else.
    pub fn call(&self, mut request: McpRequest) -> impl Future<Output = McpResponse> + Send + 'static {
        let mut observed = self.observe(&mut request);
        let answering = Scope::of(observed.as_mut()).wrap(self.answering(request));
        async move {
            let response = answering.await;
            if let Some(observed) = &mut observed {
                telemetry::finish(observed, response.reply());
            }
            response
        }
    }

    /// Answers one request of revision 2026-07-28 with no notification stream, encoded: for
    /// tests, benchmarks and transports of your own.
    pub fn handle(&self, request: Request, principal: Principal) -> impl Future<Output = Encoded> + Send + 'static {
        self.serve(McpRequest::new(request, principal), Era::Current)
    }

    /// Answers one request and encodes the answer for a client of `era`.
    pub(crate) fn serve(&self, mut request: McpRequest, era: Era) -> impl Future<Output = Encoded> + Send + 'static {
        let mut observed = self.observe(&mut request);
        let inner = self.inner.clone();
        let answering = Scope::of(observed.as_mut()).wrap(self.answering(request));
        async move {
            let response = answering.await;
            if let Some(observed) = &mut observed {
                telemetry::finish(observed, response.reply());
            }
            inner.encode(response, era)
        }
    }

    /// Answers one round of a request observed already (a legacy session plays a request's
    /// rounds out one call at a time, all within the request's span).
    pub(crate) fn call_within(
        &self,
        mut request: McpRequest,
        trace: &Trace,
    ) -> impl Future<Output = McpResponse> + Send + 'static {
        request.trace = trace.clone();
        self.answering(request)
    }

    /// Whether the server observes requests itself.
    pub(crate) fn observes(&self) -> bool {
        self.inner.telemetry
    }

    /// Opens the request's server span, when the server observes requests itself.
    fn observe(&self, request: &mut McpRequest) -> Option<Observed> {
        if self.inner.telemetry { telemetry::observe(request) } else { None }
    }

    /// The answer to `request`, on its way. The request goes into a box at once, so that the
    /// futures around it stay small.
    fn answering(&self, request: McpRequest) -> impl Future<Output = McpResponse> + Send + 'static {
        let id = request.id.clone();
        let answering = match &self.inner.layered {
            // Without layers, dispatch is called directly: one boxed future per request.
            None => Answering::Bare(CatchPanic(Box::pin(self.inner.dispatch.route(request)))),
            Some(layered) => Answering::Layered(CatchPanic(Box::pin(layered.clone().oneshot(request)))),
        };
        async move {
            match answering {
                Answering::Bare(routing) => match routing.await {
                    Ok(Ok(reply)) => McpResponse::new(id, reply),
                    Ok(Err(error)) => McpResponse::error(id, error),
                    Err(()) => McpResponse::error(id, Error::internal()),
                },
                Answering::Layered(layered) => match layered.await {
                    Ok(Ok(response)) => response,
                    Ok(Err(error)) => McpResponse::error(id, layer_error(error)),
                    Err(()) => McpResponse::error(id, Error::internal()),
                },
            }
        }
    }

    /// Stamps and encodes an answer for a client of `era`.
    pub(crate) fn encode(&self, response: McpResponse, era: Era) -> Encoded {
        self.inner.encode(response, era)
    }

    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.inner.registry
    }
}

impl Inner {
    fn encode(&self, response: McpResponse, era: Era) -> Encoded {
        if let Some(error) = response.reply.error() {
            tracing::debug!(code = error.code().code(), "request failed");
        }
        encode(&self.registry, response, era)
    }
}

/// A request on its way, inside the user's layers or not.
enum Answering<B: ?Sized, L> {
    Bare(CatchPanic<B>),
    Layered(CatchPanic<L>),
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

#[cfg(test)]
mod tests;
