//! Telemetry as a layer: the server span and metrics of every request that passes (see
//! [`telemetry`](crate::telemetry)).
//!
//! A server has this built in, around all of its layers; turn that off with
//! [`ServerBuilder::telemetry(false)`](crate::ServerBuilder::telemetry) to put
//! [`TelemetryLayer`] where you want it in your own stack, or to replace it with yours.

use std::task::{Context, Poll};

use crate::dispatch::{BoxError, McpRequest, McpResponse, Reply};
use crate::future::BoxFuture;
use crate::telemetry::{Ending, Observed, RequestInfo, Scope, Target};

/// Opens the server span of each request, by the OpenTelemetry semantic conventions for MCP,
/// runs the request inside it, records how it ended and its duration.
///
/// ```
/// use mcp_rounds::Server;
/// use mcp_rounds::middleware::{AuditLayer, TelemetryLayer};
///
/// // Audited requests are observed too: the telemetry layer is outside the audit one.
/// let server = Server::builder("notes", "1.0.0")
///     .telemetry(false)
///     .layer(AuditLayer::tracing())
///     .layer(TelemetryLayer::new())
///     .build()
///     .unwrap();
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TelemetryLayer(());

impl TelemetryLayer {
    /// The layer.
    pub fn new() -> Self {
        TelemetryLayer(())
    }
}

impl<S> tower::Layer<S> for TelemetryLayer {
    type Service = Telemetry<S>;

    fn layer(&self, inner: S) -> Telemetry<S> {
        Telemetry { inner }
    }
}

/// The service of [`TelemetryLayer`].
#[derive(Clone, Debug)]
pub struct Telemetry<S> {
    inner: S,
}

impl<S> tower::Service<McpRequest> for Telemetry<S>
where
    S: tower::Service<McpRequest, Response = McpResponse>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, mut request: McpRequest) -> Self::Future {
        let Some(mut observed) = observe(&mut request) else {
            let answering = self.inner.call(request);
            return Box::pin(async move { answering.await.map_err(Into::into) });
        };
        let answering = Scope::of(Some(&mut observed)).wrap(self.inner.call(request));
        Box::pin(async move {
            let answered = answering.await.map_err(Into::into);
            match &answered {
                Ok(response) => finish(&mut observed, response.reply()),
                Err(error) => {
                    let code = error.downcast_ref::<crate::Error>().map_or(-32603, |e| e.code().code());
                    observed.finish(Ending::Error { code, message: "A layer failed the request" }, true);
                }
            }
            answered
        })
    }
}

/// Opens the server span of `request` (which then carries it), unless nobody observes it.
pub(crate) fn observe(request: &mut McpRequest) -> Option<Observed> {
    let meta = request.meta();
    let info = RequestInfo {
        method: &request.method,
        id: &request.id,
        target: Target::of(&request.method, request.target()),
        protocol_version: meta.map(|meta| meta.protocol_version.as_str()),
        session: request.origin.session.as_deref(),
        transport: request.origin.transport,
        trace: meta.map(|meta| &meta.trace),
        transport_trace: request.origin.trace.as_deref(),
    };
    // Returned as it is made: unwrapped and wrapped again, it would be copied twice.
    let observed = Observed::start(&info);
    // A request no span records keeps the request's own default: nothing to record on.
    if let Some(observed) = &observed
        && observed.trace.records()
    {
        request.trace = observed.trace.clone();
    }
    observed
}

/// Records how a request observed by `observed` was answered.
pub(crate) fn finish(observed: &mut Observed, reply: &Reply) {
    let (ending, named_exists) = ending(reply);
    observed.finish(ending, named_exists);
}

/// How `reply` ends its request, and whether the tool or prompt it named exists.
pub(crate) fn ending(reply: &Reply) -> (Ending<'_>, bool) {
    match reply {
        Reply::Error(error) => {
            (Ending::Error { code: error.code().code(), message: error.message() }, !error.is_unknown_name())
        }
        Reply::InputRequired(_) => (Ending::InputRequired, true),
        Reply::Task(_) => (Ending::Task, true),
        _ if reply.is_tool_error() => (Ending::ToolError, true),
        _ => (Ending::Complete, true),
    }
}
