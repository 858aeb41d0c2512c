//! Telemetry as a layer: the server span and metrics of every request that passes (see
//! [`telemetry`](crate::telemetry)).
//!
//! A server has this built in, around all of its layers; turn that off with
//! [`ServerBuilder::telemetry(false)`](crate::ServerBuilder::telemetry) to put
//! [`TelemetryLayer`] where you want it in your own stack, or to replace it with yours.

use std::future::Future;
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
        let observed = observe(&mut request);
        let answering = self.inner.call(request);
        Box::pin(within(observed, async move { answering.await.map_err(Into::into) }))
    }
}

/// Opens the server span of `request` (which then carries it), unless nobody observes it.
/// With [`within`], the one place a request is observed: the server does this for every
/// request it answers, outside its layers, unless told not to; [`TelemetryLayer`] does it
/// where the user puts it.
pub(crate) fn observe(request: &mut McpRequest) -> Option<Observed> {
    let meta = request.meta();
    let info = RequestInfo {
        method: &request.method,
        known: request.known,
        id: &request.id,
        target: Target::of(request.known, request.target()),
        // A legacy session's requests carry the version its handshake settled on.
        protocol_version: request.origin.version.or_else(|| meta.map(|meta| meta.protocol_version.as_str())),
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

/// `answering`, run inside the spans of the request `observed` observes (when it is observed),
/// and how it ended recorded on them and in the metrics.
pub(crate) fn within<F>(mut observed: Option<Observed>, answering: F) -> Observing<impl Future<Output = F::Output>>
where
    F: Future,
    F::Output: Ends,
{
    let answering = Scope::of(observed.as_mut()).wrap(answering);
    Observing { observed, answering }
}

pin_project_lite::pin_project! {
    /// A request's answer on its way, inside its spans (a future of its own, not an async
    /// block, which would hold what it awaits twice).
    pub(crate) struct Observing<F> {
        observed: Option<Observed>,
        #[pin]
        answering: F,
    }
}

impl<F: Future<Output: Ends>> Future for Observing<F> {
    type Output = F::Output;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let answered = std::task::ready!(this.answering.poll(cx));
        if let Some(observed) = this.observed {
            for _ in 0..answered.rounds_asked() {
                observed.round_asked();
            }
            let (ending, named_exists) = answered.ending();
            observed.finish(ending, named_exists);
        }
        Poll::Ready(answered)
    }
}

/// An answer, as far as telemetry is concerned: how its request ended, and whether the tool or
/// prompt it named exists.
pub(crate) trait Ends {
    fn ending(&self) -> (Ending<'_>, bool);

    /// Rounds asked of the client within the request before it ended.
    fn rounds_asked(&self) -> u32 {
        0
    }
}

impl Ends for McpResponse {
    fn ending(&self) -> (Ending<'_>, bool) {
        match self.reply() {
            Reply::Error(error) => {
                (Ending::Error { code: error.code().code(), message: error.message() }, !error.is_unknown_name())
            }
            Reply::InputRequired(_) => (Ending::InputRequired, true),
            Reply::Task(_) => (Ending::Task, true),
            reply if reply.is_tool_error() => (Ending::ToolError, true),
            _ => (Ending::Complete, true),
        }
    }

    fn rounds_asked(&self) -> u32 {
        self.rounds_asked
    }
}

impl Ends for Result<McpResponse, BoxError> {
    fn ending(&self) -> (Ending<'_>, bool) {
        match self {
            Ok(response) => response.ending(),
            Err(error) => {
                let code = error.downcast_ref::<crate::Error>().map_or(-32603, |e| e.code().code());
                (Ending::Error { code, message: "A layer failed the request" }, true)
            }
        }
    }

    fn rounds_asked(&self) -> u32 {
        self.as_ref().map_or(0, Ends::rounds_asked)
    }
}
