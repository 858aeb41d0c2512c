//! The notes server's telemetry, exported to a real OTLP/HTTP receiver (protobuf decoded with
//! the OpenTelemetry proto definitions): spans by the semantic conventions for MCP joined to
//! the caller's trace (from `_meta`, or from the HTTP `traceparent` header), the spans nested
//! in them, the metrics, nothing the client sent as content, over HTTP, over stdio and in a
//! 2025-11-25 session. The batch and metric intervals are set far beyond the test's length,
//! so what arrives is what the server flushed as it stopped (SIGTERM, end of stdin).

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{BIN, DataDir, TPS, accept, delete_call, input_required, retry, tool};
use mcp_rounds_tests::http::{HttpProcess, HttpResponse, mcp_headers, request_to};
use mcp_rounds_tests::otlp::{OtlpReceiver, ReceivedMetric, ReceivedSpan, attributes, hex, whole};
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};

/// How long the server may take to flush and exit once asked to stop.
const EXIT: Duration = Duration::from_secs(30);

/// The conventions' buckets for `mcp.server.operation.duration`.
const BUCKETS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// A caller's trace: a trace id of its own, and span ids for the requests it sends.
struct Caller {
    trace: String,
}

impl Caller {
    fn new(seed: u8) -> Self {
        Caller { trace: format!("{:02x}{}", seed, "1f".repeat(15)) }
    }

    fn span(&self, n: u8) -> String {
        format!("{n:02x}{}", "ab".repeat(7))
    }

    fn traceparent(&self, n: u8) -> String {
        format!("00-{}-{}-01", self.trace, self.span(n))
    }
}

/// `message` with the caller's span `n` as its `_meta.traceparent`.
fn traced(mut message: Value, caller: &Caller, n: u8) -> Value {
    message["params"]["_meta"]["traceparent"] = json!(caller.traceparent(n));
    message
}

fn env(receiver: &OtlpReceiver) -> Vec<(&'static str, String)> {
    vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
        ("OTEL_SERVICE_NAME", "notes-under-test".to_owned()),
        // Far beyond the test: only the flush at shutdown sends anything.
        ("OTEL_BSP_SCHEDULE_DELAY", "600000".to_owned()),
        ("OTEL_METRIC_EXPORT_INTERVAL", "600000".to_owned()),
    ]
}

fn borrowed<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A received span, read.
struct Seen<'a> {
    span: &'a ReceivedSpan,
    attributes: BTreeMap<String, String>,
}

impl Seen<'_> {
    fn name(&self) -> &str {
        &self.span.span.name
    }
    fn id(&self) -> String {
        hex(&self.span.span.span_id)
    }
    fn parent(&self) -> String {
        hex(&self.span.span.parent_span_id)
    }
    fn trace(&self) -> String {
        hex(&self.span.span.trace_id)
    }
    fn get(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

fn seen(spans: &[ReceivedSpan]) -> Vec<Seen<'_>> {
    spans.iter().map(|span| Seen { span, attributes: attributes(&span.span.attributes) }).collect()
}

/// The server span of the request with JSON-RPC id `id`.
fn server_span<'a>(spans: &'a [Seen<'a>], id: &str) -> &'a Seen<'a> {
    let found: Vec<&Seen> = spans
        .iter()
        .filter(|s| s.get("jsonrpc.request.id") == Some(id) && s.get("mcp.method.name").is_some())
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one server span for request {id}: {:#?}",
        spans.iter().map(|s| s.name()).collect::<Vec<_>>()
    );
    found[0]
}

/// Whether `span` is `ancestor` or nested in it.
fn within(spans: &[Seen<'_>], span: &Seen<'_>, ancestor: &Seen<'_>) -> bool {
    let mut current = span.id();
    for _ in 0..16 {
        if current == ancestor.id() {
            return true;
        }
        match spans.iter().find(|s| s.id() == current) {
            Some(s) if !s.span.span.parent_span_id.is_empty() => current = s.parent(),
            _ => return false,
        }
    }
    false
}

/// The spans nested in `server` (not itself), by name.
fn nested<'a>(spans: &'a [Seen<'a>], server: &Seen<'_>) -> Vec<&'a str> {
    let mut names: Vec<&str> =
        spans.iter().filter(|s| s.id() != server.id() && within(spans, s, server)).map(|s| s.name()).collect();
    names.sort_unstable();
    names
}

/// Checks the conventions' attributes common to every server span of a `tools/call`.
fn assert_tool_call(span: &Seen<'_>, tool: &str, version: &str, transport: &str) {
    assert_eq!(span.name(), format!("tools/call {tool}"));
    assert_eq!(span.span.span.kind, 2, "SPAN_KIND_SERVER");
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", tool),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", version),
        ("network.transport", transport),
    ] {
        assert_eq!(span.get(key), Some(value), "{key} of {}: {:?}", span.name(), span.attributes);
    }
    assert_eq!(span.span.service.as_deref(), Some("notes-under-test"));
}

fn metric<'a>(metrics: &'a [ReceivedMetric], name: &str) -> Vec<&'a ReceivedMetric> {
    metrics.iter().filter(|m| m.name == name).collect()
}

/// The duration histogram's point for `tools/call` of `tool`, summed over every export.
fn duration_count(metrics: &[ReceivedMetric], tool: &str, transport: &str) -> u64 {
    let mut count = 0;
    for m in metric(metrics, "mcp.server.operation.duration") {
        assert_eq!(m.unit, "s");
        for point in &m.histogram {
            let attrs = attributes(&point.attributes);
            if attrs.get("gen_ai.tool.name").map(String::as_str) == Some(tool)
                && attrs.get("network.transport").map(String::as_str) == Some(transport)
            {
                assert_eq!(point.explicit_bounds, BUCKETS, "the conventions' buckets");
                assert_eq!(attrs.get("mcp.method.name").map(String::as_str), Some("tools/call"));
                count += point.count;
            }
        }
    }
    count
}

/// What must never leave the server: arguments, answers, state, tokens, note contents.
fn assert_nothing_sensitive(everything: &str, secrets: &[&str]) {
    for secret in secrets {
        assert!(!everything.contains(secret), "{secret:?} was exported");
    }
}

fn post(address: &str, token: &str, message: &Value, extra: &[(&str, &str)]) -> HttpResponse {
    let headers = mcp_headers(message, Some(token));
    let mut all: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    all.extend_from_slice(extra);
    request_to(address, "POST", "/mcp", &all, message.to_string().as_bytes())
}

#[test]
fn http_spans_join_the_callers_trace_and_metrics_follow_the_conventions() {
    let receiver = OtlpReceiver::start();
    let dir = DataDir::seeded("otel-http");
    let (token, workspace) = (dir.token(), dir.workspace_uri());
    let env = env(&receiver);
    let server = HttpProcess::spawn_with_env(BIN, &["--data", dir.arg()], &borrowed(&env));
    let address = server.address.clone();
    let caller = Caller::new(1);

    // A two-round delete, each round sent from a span of the caller's.
    let first = traced(delete_call(1, &workspace, "tps report"), &caller, 1);
    let asked = post(&address, &token, &first, &[]).json();
    let (_, state) = input_required(&asked);
    let second = traced(retry(&first, 2, accept(TPS[0]), &state), &caller, 2);
    let done = post(&address, &token, &second, &[]).json();
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    dir.assert_notes_without(&[TPS[0]]);

    // No trace context in the body: the HTTP header's is the parent.
    let other = Caller::new(2);
    let listed = request(json!("list"), "tools/list", json!({}));
    assert_eq!(post(&address, &token, &listed, &[("traceparent", &other.traceparent(9))]).status, 200);
    // A tool nobody serves: the span is not named after what the client made up.
    let unknown = tool(3, "frobnicate_everything", json!({}), json!({}));
    assert_eq!(post(&address, &token, &unknown, &[]).json()["error"]["code"], -32602);

    // A 2025-11-25 session: its requests carry the session's id.
    let initialize = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let legacy_headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Authorization", &*format!("Bearer {token}")),
    ];
    let opened = request_to(&address, "POST", "/mcp", &legacy_headers, initialize.to_string().as_bytes());
    let session = opened.header("mcp-session-id").expect("a session id").to_owned();
    let mut in_session = legacy_headers.to_vec();
    in_session.extend([("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")]);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    request_to(&address, "POST", "/mcp", &in_session, initialized.to_string().as_bytes());
    let legacy_list = json!({"jsonrpc": "2.0", "id": "legacy-list", "method": "tools/call", "params": {
        "name": "notes_list", "arguments": {"workspaceUri": workspace},
        "_meta": {"traceparent": caller.traceparent(3)}}});
    let answered = request_to(&address, "POST", "/mcp", &in_session, legacy_list.to_string().as_bytes());
    assert_eq!(answered.status, 200, "{answered:?}");

    let (status, _) = server.terminate(EXIT);
    assert!(status.success(), "{status}");

    // Everything was flushed before the process exited.
    let received = receiver.wait_for(Duration::from_secs(5), "spans and metrics", |received| {
        let done = received.spans.len() >= 6 && !metric(&received.metrics, "mcp.server.operation.duration").is_empty();
        done.then(|| (received.spans.clone(), received.metrics.clone(), received.everything.clone()))
    });
    let (spans, metrics, everything) = received;
    let spans = seen(&spans);

    let round_one = server_span(&spans, "1");
    let round_two = server_span(&spans, "2");
    for (span, n) in [(round_one, 1), (round_two, 2)] {
        assert_tool_call(span, "notes_delete", "2026-07-28", "tcp");
        assert_eq!(span.get("network.protocol.name"), Some("http"));
        assert_eq!(span.trace(), caller.trace, "the caller's trace");
        assert_eq!(span.parent(), caller.span(n), "the caller's span is the parent");
        assert_eq!(span.get("mcp_rounds.round"), Some(&*n.to_string()));
        assert_eq!(span.get("error.type"), None);
    }
    assert_eq!(round_one.get("mcp_rounds.result_type"), Some("input_required"));
    assert_eq!(round_two.get("mcp_rounds.result_type"), Some("complete"));
    assert_eq!(round_two.get("mcp_rounds.round.name"), Some("Confirm"));
    assert_eq!(nested(&spans, round_one), ["handler notes_delete"]);
    assert_eq!(
        nested(&spans, round_two),
        [
            "claim requestState",
            "handler notes_delete",
            "move note to trash",
            "settle requestState",
            "verify requestState"
        ]
    );
    // The server's own span (through tracing-opentelemetry) nests in the handler's.
    let handler = spans.iter().find(|s| s.name() == "handler notes_delete" && within(&spans, s, round_two)).unwrap();
    let trash = spans.iter().find(|s| s.name() == "move note to trash").unwrap();
    assert_eq!((trash.parent(), trash.trace()), (handler.id(), caller.trace.clone()));
    for name in ["claim requestState", "settle requestState"] {
        let step = spans.iter().find(|s| s.name() == name && within(&spans, s, round_two)).unwrap();
        assert_eq!(step.get("db.system.name"), Some("sqlite"), "{name}");
        assert_eq!(step.trace(), caller.trace);
    }

    let list = server_span(&spans, "list");
    assert_eq!((list.name(), list.trace(), list.parent()), ("tools/list", other.trace.clone(), other.span(9)));

    let unknown = server_span(&spans, "3");
    assert_eq!(unknown.name(), "tools/call");
    assert_eq!((unknown.get("error.type"), unknown.get("rpc.response.status_code")), (Some("-32602"), Some("-32602")));
    assert_eq!(unknown.span.span.status.as_ref().map(|s| s.code), Some(2), "STATUS_CODE_ERROR");

    let legacy = server_span(&spans, "legacy-list");
    assert_tool_call(legacy, "notes_list", "2025-11-25", "tcp");
    assert_eq!(legacy.get("mcp.session.id"), Some(session.as_str()));
    assert_eq!((legacy.trace(), legacy.parent()), (caller.trace.clone(), caller.span(3)));
    let init = server_span(&spans, "init");
    assert_eq!(init.name(), "initialize");

    // The duration of both rounds, with the conventions' attributes and buckets; the round
    // asked of the client counted.
    assert_eq!(duration_count(&metrics, "notes_delete", "tcp"), 2);
    let rounds: i64 = metric(&metrics, "mcp_rounds.server.input_required")
        .iter()
        .flat_map(|m| &m.sum)
        .filter(|p| attributes(&p.attributes).get("gen_ai.tool.name").map(String::as_str) == Some("notes_delete"))
        .map(whole)
        .sum();
    assert_eq!(rounds, 1);
    for m in metric(&metrics, "mcp.server.operation.duration") {
        for point in &m.histogram {
            let attrs = attributes(&point.attributes);
            assert_ne!(attrs.get("gen_ai.tool.name").map(String::as_str), Some("frobnicate_everything"));
        }
    }

    assert_nothing_sensitive(
        &everything,
        &["tps report", &workspace, &state, &token, TPS[0], "Numbers for the first quarter"],
    );
}

#[test]
fn stdio_and_a_legacy_session_are_observed_and_flushed_when_stdin_closes() {
    let receiver = OtlpReceiver::start();
    let dir = DataDir::seeded("otel-stdio");
    let workspace = dir.workspace_uri();
    let env = env(&receiver);
    let mut server = StdioProcess::spawn_with_env(BIN, &["--data", dir.arg(), "--stdio"], &borrowed(&env));
    let caller = Caller::new(3);

    let first = traced(delete_call(1, &workspace, "tps report"), &caller, 1);
    let asked = server.call(&first);
    let (_, state) = input_required(&asked);
    let done = server.call(&traced(retry(&first, 2, accept(TPS[1]), &state), &caller, 2));
    assert_eq!(done["result"]["resultType"], "complete", "{done}");

    // A state tampered with is refused, and counted by why.
    let tampered = {
        let mut bytes = state.clone().into_bytes();
        let middle = bytes.len() / 2;
        bytes[middle] = if bytes[middle] == b'A' { b'B' } else { b'A' };
        String::from_utf8(bytes).unwrap()
    };
    let refused = server.call(&retry(&first, 4, accept(TPS[1]), &tampered));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // A listen stream, open until the end of input ends it.
    let listen =
        request(json!("follow"), "subscriptions/listen", json!({"notifications": {"resourcesListChanged": true}}));
    server.send(&listen);
    assert_eq!(server.recv()["method"], "notifications/subscriptions/acknowledged");

    // The same connection as a 2025-11-25 client: its delete's round is played out as a
    // live elicitation within the one request.
    let initialize = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}}});
    assert_eq!(server.call(&initialize)["result"]["protocolVersion"], "2025-11-25");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send(&json!({"jsonrpc": "2.0", "id": "legacy-delete", "method": "tools/call", "params": {
        "name": "notes_delete", "arguments": {"workspaceUri": workspace, "title": "tps report"},
        "_meta": {"traceparent": caller.traceparent(3)}}}));
    let elicitation = server.recv();
    assert_eq!(elicitation["method"], "elicitation/create", "{elicitation}");
    server.send(&json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {
        "action": "accept", "content": {"note": TPS[2], "confirm": true}}}));
    // The session's own change notifications may come first.
    let deleted = std::iter::repeat_with(|| server.recv()).find(|line| line.get("id").is_some()).unwrap();
    assert_eq!(deleted["id"], "legacy-delete", "{deleted}");
    assert_eq!(deleted["result"]["content"][0]["text"], format!("Deleted {}.", TPS[2]), "{deleted}");

    // Only change notifications may still come, and the listen stream's end.
    let (rest, status) = server.finish();
    let answered: Vec<&Value> = rest.iter().filter_map(|line| line.get("id")).collect();
    assert!(answered == [&json!("follow")] && status.success(), "{rest:?} {status}");
    dir.assert_notes_without(&[TPS[1], TPS[2]]);

    let (spans, metrics, everything) = receiver.wait_for(Duration::from_secs(5), "spans and metrics", |received| {
        let done = received.spans.len() >= 4 && !metric(&received.metrics, "mcp.server.operation.duration").is_empty();
        done.then(|| (received.spans.clone(), received.metrics.clone(), received.everything.clone()))
    });
    let spans = seen(&spans);
    for (id, n) in [("1", 1u8), ("2", 2)] {
        let span = server_span(&spans, id);
        assert_tool_call(span, "notes_delete", "2026-07-28", "pipe");
        assert_eq!((span.trace(), span.parent()), (caller.trace.clone(), caller.span(n)));
        assert_eq!(span.get("network.protocol.name"), None, "no HTTP on stdio");
    }

    // One server span for the whole legacy request, both rounds within it.
    let legacy = server_span(&spans, "legacy-delete");
    assert_tool_call(legacy, "notes_delete", "2025-11-25", "pipe");
    assert_eq!((legacy.trace(), legacy.parent()), (caller.trace.clone(), caller.span(3)));
    assert_eq!(legacy.get("mcp_rounds.round"), Some("2"));
    assert_eq!(legacy.get("mcp_rounds.result_type"), Some("complete"));
    assert_eq!(legacy.get("mcp.session.id"), None, "a stdio session has no id");
    let inside = nested(&spans, legacy);
    assert_eq!(inside.iter().filter(|n| **n == "handler notes_delete").count(), 2, "{inside:?}");
    assert!(inside.contains(&"verify requestState"), "{inside:?}");

    assert_eq!(duration_count(&metrics, "notes_delete", "pipe"), 4, "three stateless calls and one legacy request");
    let rejections: Vec<(String, i64)> = metric(&metrics, "mcp_rounds.server.state.rejections")
        .iter()
        .flat_map(|m| &m.sum)
        .map(|p| {
            (attributes(&p.attributes).get("mcp_rounds.state.rejection.reason").cloned().unwrap_or_default(), whole(p))
        })
        .collect();
    assert_eq!(rejections, [("signature".to_owned(), 1)]);
    let streams: Vec<i64> =
        metric(&metrics, "mcp_rounds.server.listen.streams").iter().flat_map(|m| &m.sum).map(whole).collect();
    assert_eq!(streams, [0], "the stream was counted open, then closed");
    assert_nothing_sensitive(&everything, &["tps report", &workspace, &state, TPS[1], TPS[2]]);
}

#[test]
fn a_call_its_caller_did_not_sample_exports_no_span_and_is_still_counted() {
    let receiver = OtlpReceiver::start();
    let dir = DataDir::seeded("otel-unsampled");
    let workspace = dir.workspace_uri();
    let env = env(&receiver);
    let mut server = StdioProcess::spawn_with_env(BIN, &["--data", dir.arg(), "--stdio"], &borrowed(&env));
    let list = |id: i64| tool(id, "notes_list", json!({"workspaceUri": workspace}), json!({}));
    // The caller's trace, flagged not sampled: the default sampler follows its parent.
    let unsampled = Caller::new(6);
    let mut dropped = list(1);
    dropped["params"]["_meta"]["traceparent"] = json!(format!("00-{}-{}-00", unsampled.trace, unsampled.span(1)));
    assert_eq!(server.call(&dropped)["result"]["resultType"], "complete");
    let sampled = Caller::new(7);
    assert_eq!(server.call(&traced(list(2), &sampled, 2))["result"]["resultType"], "complete");
    let (_, status) = server.finish();
    assert!(status.success(), "{status}");

    let (spans, metrics) = receiver.wait_for(Duration::from_secs(5), "spans and metrics", |received| {
        let kept = received.spans.iter().any(|s| hex(&s.span.trace_id) == sampled.trace);
        let done = kept && !metric(&received.metrics, "mcp.server.operation.duration").is_empty();
        done.then(|| (received.spans.clone(), received.metrics.clone()))
    });
    let spans = seen(&spans);
    assert_eq!(server_span(&spans, "2").trace(), sampled.trace);
    let of_dropped: Vec<&str> = spans.iter().filter(|s| s.trace() == unsampled.trace).map(Seen::name).collect();
    assert!(of_dropped.is_empty(), "nothing of the unsampled call, nested spans included: {of_dropped:?}");
    assert_eq!(duration_count(&metrics, "notes_list", "pipe"), 2, "both calls are in the metrics");
}

#[test]
fn an_export_protocol_the_server_cannot_speak_stops_the_start() {
    let dir = DataDir::seeded("otel-config");
    let output = std::process::Command::new(BIN)
        .args(["--data", dir.arg(), "--stdio"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run notes-server");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("notes-server: OpenTelemetry export:") && stderr.contains("grpc"), "{stderr}");
}
