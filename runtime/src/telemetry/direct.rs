//! The framework's spans straight to the OpenTelemetry API, once [`enable`](super::enable)
//! ran: the server span a child of the caller's trace, the nested ones children of it, each
//! made by the global tracer provider's sampler before any attribute is set, so that a
//! request it drops costs a span context and no more. While a request runs, its span is the
//! current OpenTelemetry context, which is where `tracing-opentelemetry` puts the spans of
//! user code.

use std::borrow::Cow;
use std::future::Future;
use std::sync::OnceLock;

use opentelemetry::global::BoxedTracer;
use opentelemetry::propagation::Extractor;
use opentelemetry::trace::{
    Span, SpanBuilder, SpanKind, Status, TraceContextExt as _, Tracer as _, TracerProvider as _,
};
use opentelemetry::{Context, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use super::metrics::Method;
use super::spans::{JsonRpcId, SpanName};
use super::{RequestInfo, Target, Transport};
use crate::model::TraceContext;

/// Where the framework's spans come from: the SDK's tracer itself when this crate made the
/// provider (a span is then not boxed, nor called through a vtable), else the global one.
enum FrameworkTracer {
    Sdk(SdkTracer),
    Global(BoxedTracer),
}

static TRACER: OnceLock<FrameworkTracer> = OnceLock::new();

fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("mcp-rounds").with_version(env!("CARGO_PKG_VERSION")).build()
}

pub(super) fn enable() {
    TRACER.get_or_init(|| FrameworkTracer::Global(opentelemetry::global::tracer_with_scope(scope())));
}

/// [`enable`], with `provider` (also the global one) used directly.
pub(super) fn enable_with(provider: &SdkTracerProvider) {
    TRACER.get_or_init(|| FrameworkTracer::Sdk(provider.tracer_with_scope(scope())));
}

pub(super) fn enabled() -> bool {
    TRACER.get().is_some()
}

struct Carrier<'a>(&'a TraceContext);

impl Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.0.traceparent.as_deref(),
            "tracestate" => self.0.tracestate.as_deref(),
            "baggage" => self.0.baggage.as_deref(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        let present =
            [("traceparent", &self.0.traceparent), ("tracestate", &self.0.tracestate), ("baggage", &self.0.baggage)];
        present.into_iter().filter(|(_, value)| value.is_some()).map(|(key, _)| key).collect()
    }
}

/// The caller's context, read by the global propagator. A malformed `traceparent` yields no
/// parent, as W3C trace context says.
fn extract(trace: &TraceContext) -> Context {
    opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(&Carrier(trace)))
}

/// Makes the caller's span the parent of a `tracing` span that OpenTelemetry sees only through
/// `tracing-opentelemetry` (the framework's spans are not sent directly).
pub(super) fn adopt_parent(span: &tracing::Span, trace: Option<&TraceContext>) {
    if let Some(trace) = trace {
        // Fails only when no OpenTelemetry layer is installed: then there is nothing to join.
        let _ = span.set_parent(extract(trace));
    }
}

/// Opens the server span of a request in OpenTelemetry, when spans go there directly.
pub(super) fn server(info: &RequestInfo<'_>, method: Method) -> Option<Context> {
    let tracer = TRACER.get()?;
    let parent = info.caller().map_or_else(Context::current, extract);
    let known = method.name();
    // Named by its method until the sampler kept it: a dropped request formats nothing.
    let name: Cow<'static, str> = if known == "_OTHER" { info.method.to_owned().into() } else { known.into() };
    let builder = SpanBuilder::from_name(name).with_kind(SpanKind::Server);
    Some(match tracer {
        FrameworkTracer::Sdk(tracer) => open(tracer.build_with_context(builder, &parent), parent, info, known),
        FrameworkTracer::Global(tracer) => open(tracer.build_with_context(builder, &parent), parent, info, known),
    })
}

/// The context of a request's server span `span`, a child of `parent`, with its attributes.
fn open<S: Span + Send + Sync + 'static>(
    mut span: S,
    parent: Context,
    info: &RequestInfo<'_>,
    known: &'static str,
) -> Context {
    if !span.is_recording() {
        // Children still need the sampler's decision (and the trace id), not the span: a
        // bare span context carries both without a lock or a box to keep and end.
        return parent.with_remote_span_context(span.span_context().clone());
    }
    if let Some(target) = info.target.named() {
        span.update_name(SpanName(info.method, Some(target)).to_string());
    }
    let mut attributes = Vec::with_capacity(10);
    let method: Value = if known == "_OTHER" { info.method.to_owned().into() } else { known.into() };
    attributes.push(KeyValue::new("mcp.method.name", method));
    attributes.push(KeyValue::new("jsonrpc.request.id", JsonRpcId(info.id).to_string()));
    if let Some(version) = info.protocol_version.and_then(crate::version::known) {
        attributes.push(KeyValue::new("mcp.protocol.version", version));
    }
    if let Some(session) = info.session {
        attributes.push(KeyValue::new("mcp.session.id", session.to_owned()));
    }
    match info.target {
        Target::Tool(name) => {
            attributes.push(KeyValue::new("gen_ai.tool.name", name.to_owned()));
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        Target::Prompt(name) => attributes.push(KeyValue::new("gen_ai.prompt.name", name.to_owned())),
        Target::Resource(uri) => attributes.push(KeyValue::new("mcp.resource.uri", uri.to_owned())),
        Target::None => {}
    }
    if let Some(transport) = info.transport.as_str() {
        attributes.push(KeyValue::new("network.transport", transport));
    }
    if info.transport == Transport::Tcp {
        attributes.push(KeyValue::new("network.protocol.name", "http"));
    }
    span.set_attributes(attributes);
    parent.with_span(span)
}

/// A span nested in the current one, when that one is recorded: a dropped request's steps
/// are not even made.
pub(super) fn child(name: &dyn Fn() -> String, _span: &tracing::Span) -> Option<Context> {
    let tracer = TRACER.get()?;
    if !Context::map_current(|current| current.span().is_recording()) {
        return None;
    }
    let parent = Context::current();
    Some(match tracer {
        FrameworkTracer::Sdk(tracer) => parent.with_span(tracer.start_with_context(name(), &parent)),
        FrameworkTracer::Global(tracer) => parent.with_span(tracer.start_with_context(name(), &parent)),
    })
}

/// Sets an attribute on the span of `context`, if it is recorded.
pub(super) fn record(context: Option<&Context>, key: &'static str, value: impl FnOnce() -> Value) {
    if let Some(context) = context {
        let span = context.span();
        if span.is_recording() {
            span.set_attribute(KeyValue::new(key, value()));
        }
    }
}

/// Marks the span failed, with `message` (empty: none).
pub(super) fn fail(context: Option<&Context>, message: &str) {
    if let Some(context) = context {
        let span = context.span();
        if span.is_recording() {
            span.set_status(Status::error(message.to_owned()));
        }
    }
}

/// Renames a server span whose target turned out not to exist, wherever it was sent.
pub(super) fn rename(context: Option<&Context>, span: &tracing::Span, name: &'static str) {
    match context {
        Some(context) => context.span().update_name(name),
        // A started `tracing-opentelemetry` span no longer reads its `otel.name` field.
        None if !span.is_disabled() => span.context().span().update_name(name),
        None => {}
    }
}

/// Ends the span of `context` (a dropped one has nothing to end, and needs no clock read).
pub(super) fn end(context: Option<Context>) {
    if let Some(context) = context {
        let span = context.span();
        if span.is_recording() {
            span.end();
        }
    }
}

pin_project_lite::pin_project! {
    /// A future with an OpenTelemetry context current while it is polled (when it has one),
    /// no larger than the future and the context.
    pub(super) struct Within<F> {
        #[pin]
        future: F,
        context: Option<Context>,
    }
}

impl<F: Future> Future for Within<F> {
    type Output = F::Output;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        let this = self.project();
        let _attached = this.context.clone().map(Context::attach);
        this.future.poll(cx)
    }
}

/// `future` with `context` current while it runs.
pub(super) fn within<F: Future>(context: Option<Context>, future: F) -> Within<F> {
    Within { future, context }
}
