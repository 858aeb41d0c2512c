//! Every request is observed once, whatever carries it: exactly one server span and one
//! sample of `mcp.server.operation.duration` per request over stdio, over HTTP, in a
//! 2025-11-25 session (a round played out live with the client included) and in-process.
#![cfg(all(feature = "otel", feature = "http"))]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_rounds::form::FormRequest;
use mcp_rounds::request_state::KeyRing;
use mcp_rounds::rounds::{Elicitation, Round, Step};
use mcp_rounds::testing::TestClient;
use mcp_rounds::transport::http::Http;
use mcp_rounds::transport::stdio::Stdio;
use mcp_rounds::{Form, Rounds, Server, handlers, tool};
use opentelemetry::trace::SpanKind;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

#[derive(Form)]
struct Who {
    /// Your name.
    name: String,
}

#[derive(Rounds)]
enum Greeting {
    Name {
        #[answer]
        who: Elicitation<Who>,
    },
}

/// Greets the user by the name they give when asked.
#[tool]
fn greet(round: Round<Greeting>) -> Step<Greeting, String> {
    match round {
        Round::Start => Greeting::ask_name(FormRequest::new("What is your name?")).into(),
        Round::Resumed(Greeting::Name { who: Elicitation::Accept(Who { name }) }) => Step::Done(format!("Hi {name}")),
        Round::Resumed(_) => Step::Done("Hi".into()),
    }
}

/// The spans the tracer provider ended.
#[derive(Clone, Debug, Default)]
struct Spans(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Spans {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

impl Spans {
    fn servers(&self) -> usize {
        self.0.lock().unwrap().iter().filter(|span| span.span_kind == SpanKind::Server).count()
    }
}

/// The total of durations recorded, as of the last export (the temporality is cumulative).
#[derive(Clone, Debug, Default)]
struct Durations(Arc<Mutex<u64>>);

impl PushMetricExporter for Durations {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        let mut count = 0;
        for scope in metrics.scope_metrics() {
            for metric in scope.metrics().filter(|metric| metric.name() == "mcp.server.operation.duration") {
                if let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = metric.data() {
                    count += histogram.data_points().map(|point| point.count()).sum::<u64>();
                }
            }
        }
        *self.0.lock().unwrap() = count;
        Ok(())
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _: Duration) -> OTelSdkResult {
        Ok(())
    }

    fn temporality(&self) -> Temporality {
        Temporality::Cumulative
    }
}

/// The spans and durations seen so far.
struct Observed {
    spans: Spans,
    meters: SdkMeterProvider,
    durations: Durations,
}

impl Observed {
    fn install() -> Self {
        let spans = Spans::default();
        let tracer = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
        opentelemetry::global::set_tracer_provider(tracer);
        let durations = Durations::default();
        // Exported when the test asks, not on a timer.
        let reader = PeriodicReader::builder(durations.clone()).with_interval(Duration::from_secs(3600)).build();
        let meters = SdkMeterProvider::builder().with_reader(reader).build();
        opentelemetry::global::set_meter_provider(meters.clone());
        mcp_rounds::telemetry::enable();
        Observed { spans, meters, durations }
    }

    fn counts(&self) -> (usize, u64) {
        self.meters.force_flush().unwrap();
        let durations = *self.durations.0.lock().unwrap();
        (self.spans.servers(), durations)
    }

    /// Runs `requests` requests through `work` and checks they were seen once each.
    async fn expect<F: std::future::Future<Output = ()>>(&self, what: &str, requests: usize, work: F) {
        let (spans, durations) = self.counts();
        work.await;
        let (spans_after, durations_after) = self.counts();
        assert_eq!(spans_after - spans, requests, "{what}: server spans");
        assert_eq!(durations_after - durations, requests as u64, "{what}: duration samples");
    }
}

fn server() -> Server {
    Server::builder("observed", "1.0.0")
        .state_keys(KeyRing::development())
        .handlers(handlers![add, greet])
        .build()
        .unwrap()
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A client on the other end of a stdio transport: writes lines, reads the answers.
struct Pipe {
    to_server: tokio::io::DuplexStream,
    from_server: BufReader<tokio::io::DuplexStream>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Pipe {
    fn open(server: &Server) -> Self {
        let (to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, from_server) = tokio::io::duplex(1 << 16);
        let server = server.clone();
        let serving = tokio::spawn(async move { Stdio::new().serve_streams(&server, server_in, server_out).await });
        Pipe { to_server, from_server: BufReader::new(from_server), serving }
    }

    async fn send(&mut self, message: Value) {
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        self.to_server.write_all(&line).await.unwrap();
    }

    async fn receive(&mut self) -> Value {
        let mut line = String::new();
        self.from_server.read_line(&mut line).await.unwrap();
        serde_json::from_str(&line).unwrap()
    }

    async fn close(self) {
        drop(self.to_server);
        self.serving.await.unwrap().unwrap();
    }
}

/// One POST to the endpoint at `address`, answered as JSON.
async fn post(address: std::net::SocketAddr, message: &Value, headers: &[(&str, &str)]) -> Value {
    let body = serde_json::to_vec(message).unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(body).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_is_observed_once_whatever_carries_it() {
    let observed = Observed::install();
    let server = server();

    observed
        .expect("in-process", 2, async {
            let client = TestClient::new(&server);
            assert_eq!(client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap().content[0].as_text(), Some("3"));
            assert_eq!(client.list_tools().await.unwrap().len(), 2);
        })
        .await;

    observed
        .expect("stdio", 2, async {
            let mut pipe = Pipe::open(&server);
            for id in 1..=2 {
                let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": id, "b": 1}, "_meta": meta()}});
                pipe.send(call).await;
                assert_eq!(pipe.receive().await["result"]["content"][0]["text"], (id + 1).to_string());
            }
            // A notification is not a request: nothing to observe, nothing to answer.
            pipe.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [7]})).await;
            pipe.close().await;
        })
        .await;

    // initialize, then a call that asks its round of the client live, answered: two requests.
    observed
        .expect("a legacy session", 2, async {
            let mut pipe = Pipe::open(&server);
            let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "t", "version": "1"}}});
            pipe.send(initialize).await;
            assert_eq!(pipe.receive().await["result"]["protocolVersion"], "2025-11-25");
            pipe.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
            pipe.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "greet"}})).await;
            let asked = pipe.receive().await;
            assert_eq!(asked["method"], "elicitation/create", "{asked}");
            let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
            pipe.send(answer).await;
            assert_eq!(pipe.receive().await["result"]["content"][0]["text"], "Hi Ada");
            pipe.close().await;
        })
        .await;

    let bound = Http::without_authentication().bind("127.0.0.1:0").await.unwrap();
    let address = bound.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = {
        let server = server.clone();
        tokio::spawn(async move { bound.serve(&server, async move { stopped.await.unwrap_or(()) }).await })
    };
    observed
        .expect("HTTP", 2, async {
            let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 2, "b": 2}, "_meta": meta()}});
            let headers = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "add")];
            assert_eq!(post(address, &call, &headers).await["result"]["content"][0]["text"], "4");
            let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta()}});
            let headers = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list")];
            assert_eq!(post(address, &list, &headers).await["result"]["tools"].as_array().unwrap().len(), 2);
        })
        .await;
    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
}
