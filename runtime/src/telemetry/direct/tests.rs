use std::sync::{Arc, Mutex};

use opentelemetry::trace::{SpanContext, TraceState};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Sampler, SpanData, SpanExporter};

use super::*;
use crate::method::Method;
use crate::model::RequestId;
use crate::telemetry::Ids;

#[derive(Clone, Debug, Default)]
struct Exported(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Exported {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

/// A tracer as `otel::init` makes one, sampling with `sampler`, a root by `root`, exporting
/// into `exported`.
fn tracer(sampler: Sampler, root: RootRule, exported: &Exported) -> (FrameworkTracer, SdkTracerProvider) {
    let sampler: Box<dyn ShouldSample> = Box::new(sampler);
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exported.clone())
        .with_sampler(sampler.clone())
        .with_id_generator(Ids)
        .build();
    (FrameworkTracer::Sdk { tracer: provider.tracer_with_scope(scope()), sampler, root }, provider)
}

fn echo(id: &RequestId) -> RequestInfo<'_> {
    RequestInfo {
        method: Method::ToolsCall.name(),
        known: Some(Method::ToolsCall),
        id,
        target: Target::Tool("echo"),
        protocol_version: Some("2026-07-28"),
        session: None,
        transport: Transport::Pipe,
        trace: None,
        transport_trace: None,
    }
}

/// The decision made before any span is built is the one the SDK makes, whether the
/// sampler is asked or its root rule known: a kept request is exported under the trace id
/// it was decided on, a dropped one is not exported.
#[test]
fn a_root_request_is_exported_exactly_when_its_own_context_says_sampled() {
    for root in [RootRule::Ask, RootRule::of(Some("traceidratio"), Some("0.5"))] {
        let exported = Exported::default();
        let (tracer, provider) = tracer(Sampler::TraceIdRatioBased(0.5), root, &exported);
        let id = RequestId::number(1);
        let mut kept = Vec::new();
        for _ in 0..200 {
            let (context, recording) = server_of(&tracer, &echo(&id));
            let span = context.span().span_context().clone();
            assert!(span.is_valid());
            assert_eq!(recording, span.is_sampled());
            if span.is_sampled() {
                kept.push((span.trace_id(), span.span_id()));
            }
            end(Some(context));
        }
        provider.force_flush().unwrap();
        let mut spans: Vec<_> = exported
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|span| (span.span_context.trace_id(), span.span_context.span_id()))
            .collect();
        spans.sort_by_key(|(trace, span)| (trace.to_bytes(), span.to_bytes()));
        kept.sort_by_key(|(trace, span)| (trace.to_bytes(), span.to_bytes()));
        assert_eq!(spans, kept, "{root:?}");
        assert!(!kept.is_empty() && kept.len() < 200, "half of 200 random trace ids kept: {}", kept.len());
        // The thread's chosen trace id is spent: the next root span gets an id of its own.
        assert!(CHOSEN.take().is_none());
    }
}

#[test]
fn a_request_inside_a_sampled_trace_is_kept_as_its_child_and_one_inside_a_dropped_one_is_not() {
    let exported = Exported::default();
    let (tracer, provider) = tracer(Sampler::ParentBased(Box::new(Sampler::AlwaysOff)), RootRule::Below(0), &exported);
    let id = RequestId::number(1);
    let caller = |flags| SpanContext::new(TraceId::from(7u128), SpanId::from(9u64), flags, true, TraceState::default());
    for (flags, exported_spans) in [(TraceFlags::SAMPLED, 1), (TraceFlags::default(), 1)] {
        let _caller = Context::new().with_remote_span_context(caller(flags)).attach();
        let (context, recording) = server_of(&tracer, &echo(&id));
        let span = context.span().span_context().clone();
        assert_eq!((span.trace_id(), span.is_sampled()), (TraceId::from(7u128), flags.is_sampled()));
        assert_eq!(recording, flags.is_sampled());
        end(Some(context));
        provider.force_flush().unwrap();
        assert_eq!(exported.0.lock().unwrap().len(), exported_spans);
    }
    let spans = exported.0.lock().unwrap();
    assert_eq!(spans[0].parent_span_id, SpanId::from(9u64));
    assert_eq!(spans[0].name, "tools/call echo");
}

/// A kept server span has the conventions' name and attributes whether the framework's own
/// provider made it (built with them at once) or the global one (named and given them once
/// its sampler kept it); one the global provider drops is not exported.
#[test]
fn both_tracers_name_a_kept_span_and_give_it_the_same_attributes() {
    let exported = Exported::default();
    let (sdk, provider) = tracer(Sampler::AlwaysOn, RootRule::Ask, &exported);
    let global = FrameworkTracer::Global(BoxedTracer::new(Box::new(provider.tracer_with_scope(scope()))));
    let id = RequestId::String("call-7".into());
    let session = RequestInfo { session: Some("s-1"), transport: Transport::Tcp, ..echo(&id) };
    for tracer in [&sdk, &global] {
        let (context, recording) = server_of(tracer, &session);
        assert!(recording);
        end(Some(context));
    }
    let (dropping, _) = tracer(Sampler::AlwaysOff, RootRule::Ask, &exported);
    let FrameworkTracer::Sdk { tracer: dropping, .. } = dropping else { unreachable!() };
    let (context, recording) = server_of(&FrameworkTracer::Global(BoxedTracer::new(Box::new(dropping))), &session);
    assert!(!recording && context.span().span_context().is_valid());
    provider.force_flush().unwrap();
    let spans = exported.0.lock().unwrap();
    assert_eq!(spans.len(), 2);
    let attributes = |span: &SpanData| {
        let mut pairs: Vec<_> = span.attributes.iter().map(|kv| (kv.key.to_string(), kv.value.to_string())).collect();
        pairs.sort();
        pairs
    };
    for span in spans.iter() {
        assert_eq!(span.name, "tools/call echo");
        assert_eq!(span.span_kind, SpanKind::Server);
    }
    let expected: Vec<(String, String)> = [
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "echo"),
        ("jsonrpc.request.id", "call-7"),
        ("mcp.method.name", "tools/call"),
        ("mcp.protocol.version", "2026-07-28"),
        ("mcp.session.id", "s-1"),
        ("network.protocol.name", "http"),
        ("network.transport", "tcp"),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_owned(), value.to_owned()))
    .collect();
    assert_eq!(attributes(&spans[0]), expected);
    assert_eq!(attributes(&spans[1]), expected);
}
