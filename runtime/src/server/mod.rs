//! The server: a built registry and the service stack around its dispatch, cheap to clone and
//! shared by every connection and transport.

mod builder;

use std::future::Future;
use std::sync::Arc;

pub use builder::ServerBuilder;

use crate::changes::Changes;
use crate::context::Principal;
use crate::dispatch::encode::{Era, encode};
use crate::dispatch::{Encoded, Layers, McpRequest, McpResponse};
use crate::jsonrpc::Request;
use crate::middleware::telemetry;
use crate::model::{Implementation, ServerCapabilities};
use crate::registry::Registry;

pub(crate) struct Inner {
    pub(crate) registry: Arc<Registry>,
    /// Dispatch, inside the user's layers when there are any.
    layers: Layers,
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
            .field("layers", &matches!(self.inner.layers, Layers::Layered(_)))
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

    /// Answers one request through the server's layers and dispatch: the one way into a
    /// server, whatever the transport and the era. The request is observed here, once (its
    /// server span and its duration), unless telemetry is off or moved into the layers. A
    /// panic anywhere on the way (a handler, a layer) answers this request with -32603 and
    /// nothing else.
    pub fn call(&self, mut request: McpRequest) -> impl Future<Output = McpResponse> + Send + 'static {
        let observed = if self.inner.telemetry { telemetry::observe(&mut request) } else { None };
        telemetry::within(observed, self.inner.layers.answer(request))
    }

    /// Answers one request of revision 2026-07-28 with no notification stream, encoded: for
    /// tests, benchmarks and transports of your own. [`call`](Self::call), then the encoding
    /// every transport applies.
    pub fn handle(&self, request: Request, principal: Principal) -> impl Future<Output = Encoded> + Send + 'static {
        let answer = self.call(McpRequest::new(request, principal));
        let server = self.clone();
        async move { server.encode(answer.await, Era::Current) }
    }

    /// Stamps and encodes an answer for a client of `era`.
    pub(crate) fn encode(&self, response: McpResponse, era: Era) -> Encoded {
        if let Some(error) = response.reply.error() {
            tracing::debug!(code = error.code().code(), "request failed");
        }
        encode(&self.inner.registry, response, era)
    }

    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.inner.registry
    }
}

#[cfg(test)]
mod tests;
