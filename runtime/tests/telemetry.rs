//! The server spans as any `tracing` subscriber sees them, without OpenTelemetry: the
//! conventions' name and attributes, the spans nested in them, and the seam: the built-in
//! telemetry turned off, `TelemetryLayer` put where a user wants it, and a user's layer
//! recording on the request's span.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use mcp_rounds::dispatch::{McpRequest, McpResponse};
use mcp_rounds::middleware::TelemetryLayer;
use mcp_rounds::testing::TestClient;
use mcp_rounds::{Server, ToolError, handlers, tool};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// One span as the subscriber saw it: its name, the fields recorded on it, its parent's name.
#[derive(Clone, Debug, Default)]
struct Seen {
    name: &'static str,
    fields: BTreeMap<String, String>,
    parent: Option<&'static str>,
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<(u64, Seen)>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Capture {
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        let mut seen = Seen { name: attributes.metadata().name(), ..Default::default() };
        attributes.record(&mut Fields(&mut seen.fields));
        seen.parent = ctx.span(id).and_then(|span| span.parent()).map(|parent| parent.name());
        self.0.lock().unwrap().push((id.into_u64(), seen));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: LayerContext<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        if let Some((_, seen)) = spans.iter_mut().rev().find(|(known, _)| *known == id.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }
}

impl Capture {
    fn spans(&self) -> Vec<Seen> {
        self.0.lock().unwrap().iter().map(|(_, seen)| seen.clone()).collect()
    }

    fn servers(&self) -> Vec<Seen> {
        self.spans().into_iter().filter(|s| s.name == "mcp.server").collect()
    }
}

/// Runs `work` with `capture` as the only subscriber.
fn observed<T>(capture: &Capture, work: impl std::future::Future<Output = T>) -> T {
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    tracing::subscriber::with_default(subscriber, || {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(work)
    })
}

/// Adds two numbers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Always fails.
#[tool]
fn broken() -> Result<String, ToolError> {
    Err(ToolError::new("the frobnicator is offline"))
}

fn server() -> mcp_rounds::ServerBuilder {
    Server::builder("observed", "1.0.0").handlers(handlers![add, broken])
}

#[test]
fn every_request_has_a_server_span_named_and_attributed_by_the_conventions() {
    let capture = Capture::default();
    let server = server().build().unwrap();
    observed(&capture, async {
        let client = TestClient::new(&server);
        client.call_tool("add", json!({"a": 1234567, "b": 7654321})).await.unwrap();
        client.call_tool("broken", json!({})).await.unwrap();
        client.call_tool("nothing_by_that_name", json!({})).await.unwrap_err();
        client.list_tools().await.unwrap();
    });
    let servers = capture.servers();
    let names: Vec<&str> = servers.iter().map(|s| s.fields["otel.name"].as_str()).collect();
    // A name the client made up is not the span's name once the request shows it is unknown.
    assert_eq!(names, ["tools/call add", "tools/call broken", "tools/call", "tools/list"]);
    let add = &servers[0].fields;
    for (key, value) in [
        ("otel.kind", "server"),
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "add"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2026-07-28"),
        ("mcp_rounds.result_type", "complete"),
    ] {
        assert_eq!(add.get(key).map(String::as_str), Some(value), "{key}: {add:?}");
    }
    assert!(add.contains_key("jsonrpc.request.id"));
    assert!(!add.contains_key("network.transport"), "in process: no transport");
    assert!(!add.contains_key("error.type"));
    assert_eq!(servers[1].fields.get("error.type").map(String::as_str), Some("tool_error"));
    let unknown = &servers[2].fields;
    assert_eq!(unknown.get("error.type").map(String::as_str), Some("-32602"));
    assert_eq!(unknown.get("otel.status_code").map(String::as_str), Some("error"));
    // The handler runs in a span of its own, inside the request's.
    let handler =
        capture.spans().into_iter().find(|s| s.fields.get("otel.name").map(String::as_str) == Some("handler add"));
    assert_eq!(handler.expect("a handler span").parent, Some("mcp.server"));
    // Nothing the client sent as arguments is a field anywhere.
    for span in capture.spans() {
        assert!(span.fields.values().all(|v| !v.contains("1234567") && !v.contains("7654321")), "{span:?}");
    }
}

/// Records on the request's span, as a user's layer would (a field the span declares and a
/// stateless request leaves empty).
#[derive(Clone)]
struct Tagging<S>(S);

impl<S: tower::Service<McpRequest, Response = McpResponse>> tower::Service<McpRequest> for Tagging<S> {
    type Response = McpResponse;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        request.span().record("mcp.session.id", "tagged by a layer");
        self.0.call(request)
    }
}

#[test]
fn the_built_in_telemetry_can_be_moved_into_the_stack_or_turned_off() {
    // Off: no server span at all.
    let capture = Capture::default();
    let quiet = server().telemetry(false).build().unwrap();
    observed(&capture, async { TestClient::new(&quiet).call_tool("add", json!({"a": 1, "b": 1})).await.unwrap() });
    assert!(capture.servers().is_empty(), "{:?}", capture.servers());

    // The layer where the user puts it: layers inside it see the span.
    let capture = Capture::default();
    let layered =
        server().telemetry(false).layer(tower::layer::layer_fn(Tagging)).layer(TelemetryLayer::new()).build().unwrap();
    observed(&capture, async { TestClient::new(&layered).call_tool("add", json!({"a": 1, "b": 1})).await.unwrap() });
    let servers = capture.servers();
    assert_eq!(servers.len(), 1, "{servers:?}");
    assert_eq!(servers[0].fields["otel.name"], "tools/call add");
    assert_eq!(servers[0].fields["mcp.session.id"], "tagged by a layer");
    assert_eq!(servers[0].fields["mcp_rounds.result_type"], "complete");

    // Built in: user layers run inside the server span and may record on it.
    let capture = Capture::default();
    let built_in = server().layer(tower::layer::layer_fn(Tagging)).build().unwrap();
    observed(&capture, async {
        let client = TestClient::new(&built_in).with_protocol_version("2026-07-28");
        client.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap()
    });
    let servers = capture.servers();
    assert_eq!(servers.len(), 1, "{servers:?}");
    assert_eq!(servers[0].fields["mcp.session.id"], "tagged by a layer");
}
