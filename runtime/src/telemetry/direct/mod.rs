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
    Span, SpanBuilder, SpanContext, SpanId, SpanKind, Status, TraceContextExt as _, TraceFlags, TraceId, TraceState,
    Tracer as _, TracerProvider as _,
};
use opentelemetry::{Context, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::trace::{SamplingDecision, SdkTracer, SdkTracerProvider, ShouldSample};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use super::metrics;
use super::sampling::RootRule;
use super::spans::JsonRpcId;
use super::trace_ids::{self, CHOSEN, fresh};
use super::{RequestInfo, Target, Transport};
use crate::model::TraceContext;

/// Where the framework's spans come from: the SDK's tracer itself when this crate made the
/// provider (a span is then not boxed, nor called through a vtable, and a request the
/// provider's sampler drops is decided without building a span at all), else the global one.
enum FrameworkTracer {
    Sdk { tracer: SdkTracer, sampler: Box<dyn ShouldSample>, root: RootRule },
    Global(BoxedTracer),
}

static TRACER: OnceLock<FrameworkTracer> = OnceLock::new();

fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("mcp-rounds").with_version(env!("CARGO_PKG_VERSION")).build()
}

pub(super) fn enable() {
    TRACER.get_or_init(|| FrameworkTracer::Global(opentelemetry::global::tracer_with_scope(scope())));
}

/// [`enable`], with `provider` (also the global one) used directly; it was built with
/// `sampler` and [`Ids`](super::Ids).
pub(super) fn enable_with(provider: &SdkTracerProvider, sampler: Box<dyn ShouldSample>) {
    TRACER.get_or_init(|| FrameworkTracer::Sdk {
        tracer: provider.tracer_with_scope(scope()),
        sampler,
        root: RootRule::from_env(),
    });
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

/// Opens the server span of a request in OpenTelemetry, when spans go there directly: the
/// context the request runs in, and the same again when its span records (the sampler kept it).
pub(super) fn server(info: &RequestInfo<'_>) -> (Option<Context>, Option<Context>) {
    match TRACER.get().map(|tracer| server_of(tracer, info)) {
        Some((context, true)) => (Some(context.clone()), Some(context)),
        Some((context, false)) => (Some(context), None),
        None => (None, None),
    }
}

fn server_of(tracer: &FrameworkTracer, info: &RequestInfo<'_>) -> (Context, bool) {
    // Most requests: a root, decided by a known rule on a fresh trace id, and dropped. That is
    // settled in the current context where it lies, without a copy to make and drop.
    let decided = match tracer {
        FrameworkTracer::Sdk { root, .. } if info.caller().is_none() => {
            Context::map_current(|current| by_rule(current, *root))
        }
        _ => None,
    };
    match decided {
        Some(Ok(dropped)) => (dropped, false),
        Some(Err(kept)) => build(tracer, info, Some(kept)),
        None => build(tracer, info, None),
    }
}

/// The server span of a request its sampler has to be asked about (`kept`: none), or that a
/// known rule kept under the trace id `kept`. Out of line: the dropped requests' path stays
/// short.
#[inline(never)]
fn build(tracer: &FrameworkTracer, info: &RequestInfo<'_>, kept: Option<TraceId>) -> (Context, bool) {
    let known = metrics::method_name(info.known);
    match tracer {
        FrameworkTracer::Sdk { tracer, sampler, root: rule } => {
            let (parent, chosen) = match kept {
                Some(kept) => (Context::current(), Some(kept)),
                None => {
                    let parent = info.caller().map_or_else(Context::current, extract);
                    // Named by its method until it is kept: a dropped request formats nothing.
                    match ask(sampler.as_ref(), *rule, &parent, &method_name(info, known)) {
                        Ok(dropped) => return (dropped, false),
                        Err(chosen) => (parent, chosen),
                    }
                }
            };
            // Kept: the span is built with its name and attributes at once, rather than
            // renamed and given its attributes one lock at a time.
            let builder = SpanBuilder::from_name(span_name(info, known))
                .with_kind(SpanKind::Server)
                .with_attributes(attributes(info, known));
            // The SDK's id generator hands a root span the trace id it was decided on.
            CHOSEN.set(chosen);
            let span = tracer.build_with_context(builder, &parent);
            // Not taken when the SDK made no span (its provider shut down): the next root
            // must not reuse it.
            CHOSEN.set(None);
            opened(span, parent)
        }
        FrameworkTracer::Global(tracer) => {
            let parent = info.caller().map_or_else(Context::current, extract);
            let builder = SpanBuilder::from_name(method_name(info, known)).with_kind(SpanKind::Server);
            let mut span = tracer.build_with_context(builder, &parent);
            // The global provider's sampler decides in the build: only a kept span is named
            // and given attributes.
            if span.is_recording() {
                span.update_name(span_name(info, known));
                span.set_attributes(attributes(info, known));
            }
            opened(span, parent)
        }
    }
}

/// A root request in `current` decided by `rule` alone: `Ok`, the context of its dropped span;
/// `Err`, the trace id it is kept under. `None` when `current` has a span, suppresses
/// telemetry, or the sampler must be asked.
fn by_rule(current: &Context, rule: RootRule) -> Option<Result<Context, TraceId>> {
    if current.has_active_span() || current.is_telemetry_suppressed() || rule == RootRule::Ask {
        return None;
    }
    let (trace_id, span_id) = fresh();
    if rule.keeps(trace_id)? {
        return Some(Err(trace_id));
    }
    Some(Ok(dropped(current, trace_id, span_id, TraceState::default())))
}

/// A request in `parent` as the sampler decides it: `Ok`, the context of its dropped span;
/// `Err`, the span is to be built (with, for a root, the trace id it was decided on).
fn ask(sampler: &dyn ShouldSample, rule: RootRule, parent: &Context, name: &str) -> Result<Context, Option<TraceId>> {
    let parent_span = parent.span().span_context().clone();
    let root = !parent_span.is_valid();
    let (trace_id, span_id) = if root { fresh() } else { (parent_span.trace_id(), trace_ids::span_id()) };
    let chosen = root.then_some(trace_id);
    if parent.is_telemetry_suppressed() {
        return Err(chosen);
    }
    // With no span at all in the parent, even a parent-based sampler decides as its root
    // sampler does.
    let known = if parent.has_active_span() { None } else { rule.keeps(trace_id) };
    let dropped_state = match known {
        Some(keeps) => (!keeps).then(TraceState::default),
        None => {
            let result = sampler.should_sample(Some(parent), trace_id, name, &SpanKind::Server, &[], &[]);
            (result.decision == SamplingDecision::Drop).then_some(result.trace_state)
        }
    };
    match dropped_state {
        Some(trace_state) => Ok(dropped(parent, trace_id, span_id, trace_state)),
        None => Err(chosen),
    }
}

/// What the SDK would make of a dropped span, without a span, a builder or a tracer to clone
/// and drop: a bare span context, which carries the decision and the trace to children.
fn dropped(parent: &Context, trace_id: TraceId, span_id: SpanId, trace_state: TraceState) -> Context {
    parent.with_remote_span_context(SpanContext::new(trace_id, span_id, TraceFlags::default(), false, trace_state))
}

/// The context of a request's server span `span`, a child of `parent`.
fn opened<S: Span + Send + Sync + 'static>(span: S, parent: Context) -> (Context, bool) {
    if !span.is_recording() {
        // Children still need the sampler's decision (and the trace id), not the span: a
        // bare span context carries both without a lock or a box to keep and end.
        return (parent.with_remote_span_context(span.span_context().clone()), false);
    }
    (parent.with_span(span), true)
}

/// The method as a span's name has it: `known` (its name in the metrics), or the method
/// itself when the metrics call it `_OTHER`.
fn method_name(info: &RequestInfo<'_>, known: &'static str) -> Cow<'static, str> {
    if known == "_OTHER" { info.method.to_owned().into() } else { known.into() }
}

/// The conventions' name of a kept server span: `{mcp.method.name} {target}`.
fn span_name(info: &RequestInfo<'_>, known: &'static str) -> Cow<'static, str> {
    match info.target.named() {
        Some(target) => [info.method, " ", target].concat().into(),
        None => method_name(info, known),
    }
}

/// The attributes of a kept server span.
fn attributes(info: &RequestInfo<'_>, known: &'static str) -> Vec<KeyValue> {
    let mut attributes = Vec::with_capacity(10);
    attributes.push(KeyValue::new("mcp.method.name", method_name(info, known)));
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
    attributes
}

/// A span nested in the current one, when that one is recorded: a dropped request's steps
/// are not even made.
pub(super) fn child(name: &dyn Fn() -> String, _span: &tracing::Span) -> Option<Context> {
    if !enabled() || !Context::map_current(|current| current.span().is_recording()) {
        return None;
    }
    child_of(&Context::current(), name)
}

/// A span nested in the recorded span of `parent`.
pub(super) fn child_of(parent: &Context, name: &dyn Fn() -> String) -> Option<Context> {
    Some(match TRACER.get()? {
        FrameworkTracer::Sdk { tracer, .. } => parent.with_span(tracer.start_with_context(name(), parent)),
        FrameworkTracer::Global(tracer) => parent.with_span(tracer.start_with_context(name(), parent)),
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

/// Renames a server span whose target turned out not to exist.
pub(super) fn rename(context: &Context, name: &'static str) {
    context.span().update_name(name);
}

/// [`rename`] for a server span OpenTelemetry sees only through `tracing-opentelemetry`.
pub(super) fn rename_layered(span: &tracing::Span, name: &'static str) {
    // A started `tracing-opentelemetry` span no longer reads its `otel.name` field.
    if !span.is_disabled() {
        span.context().span().update_name(name);
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
        // Attached by moving it, not a copy: most requests end in their first poll.
        let attached = this.context.take().map(Context::attach);
        let polled = this.future.poll(cx);
        if attached.is_some() && polled.is_pending() {
            // Still the current one: the future's own guards end within its poll (a guard is
            // not `Send`, and the request futures this wraps are).
            *this.context = Some(Context::current());
        }
        drop(attached);
        polled
    }
}

/// `future` with `context` current while it runs.
pub(super) fn within<F: Future>(context: Option<Context>, future: F) -> Within<F> {
    Within { future, context }
}

#[cfg(test)]
mod tests;
