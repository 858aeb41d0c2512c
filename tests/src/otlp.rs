//! A real OTLP/HTTP receiver on loopback: it takes `POST /v1/traces` and `POST /v1/metrics`
//! as an OpenTelemetry collector does, decodes the protobuf with the OpenTelemetry proto
//! definitions (`opentelemetry-proto`), answers as the OTLP specification says, and keeps
//! what arrived for the test to read. A body it cannot decode is answered 400 and remembered,
//! so that a test sees it.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::{ExportMetricsServiceRequest, ExportMetricsServiceResponse};
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{HistogramDataPoint, NumberDataPoint, metric, number_data_point};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;

/// Everything the receiver was sent.
#[derive(Debug, Default)]
pub struct Received {
    /// Every span, with the resource it came from.
    pub spans: Vec<ReceivedSpan>,
    /// Every metric data point, by metric name.
    pub metrics: Vec<ReceivedMetric>,
    /// The decoded requests, printed: to search for what must not be anywhere.
    pub everything: String,
    /// Requests that were not OTLP protobuf, with why.
    pub refused: Vec<String>,
}

/// One span as exported.
#[derive(Clone, Debug)]
pub struct ReceivedSpan {
    /// The `service.name` of its resource.
    pub service: Option<String>,
    /// The span.
    pub span: Span,
}

/// One metric's data as exported in one request.
#[derive(Clone, Debug)]
pub struct ReceivedMetric {
    /// Its name.
    pub name: String,
    /// Its unit.
    pub unit: String,
    /// Histogram points, for a histogram.
    pub histogram: Vec<HistogramDataPoint>,
    /// Sum points, for a counter or an up-down counter.
    pub sum: Vec<NumberDataPoint>,
}

type Shared = Arc<(Mutex<Received>, Condvar)>;

/// A receiver running on a thread of its own, stopped when dropped.
pub struct OtlpReceiver {
    address: SocketAddr,
    shared: Shared,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl OtlpReceiver {
    /// Starts listening on a free loopback port.
    pub fn start() -> Self {
        let shared: Shared = Arc::default();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the receiver");
                ready_tx.send(listener.local_addr().expect("an address")).expect("the test waits");
                let app = Router::new()
                    .route("/v1/traces", post(traces))
                    .route("/v1/metrics", post(metrics))
                    .with_state(state);
                axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await
                    .expect("serve OTLP");
            });
        });
        let address = ready_rx.recv_timeout(Duration::from_secs(30)).expect("the receiver listens");
        OtlpReceiver { address, shared, stop: Some(stop), thread: Some(thread) }
    }

    /// Its base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Waits until what arrived satisfies `ready` (or `timeout` passes: then it panics with
    /// what did arrive), and hands it over.
    pub fn wait_for<T>(&self, timeout: Duration, what: &str, ready: impl Fn(&Received) -> Option<T>) -> T {
        let (lock, arrived) = &*self.shared;
        let deadline = Instant::now() + timeout;
        let mut received = lock.lock().expect("receiver lock");
        loop {
            assert!(received.refused.is_empty(), "the receiver was sent what OTLP is not: {:?}", received.refused);
            if let Some(found) = ready(&received) {
                return found;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "waited {timeout:?} for {what}; received: {received:#?}");
            received = arrived.wait_timeout(received, left).expect("receiver lock").0;
        }
    }

    /// What arrived so far.
    pub fn with<T>(&self, read: impl FnOnce(&Received) -> T) -> T {
        read(&self.shared.0.lock().expect("receiver lock"))
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn is_protobuf(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) == Some("application/x-protobuf")
}

fn refuse(shared: &Shared, why: String) -> Response {
    let (lock, arrived) = &**shared;
    lock.lock().expect("receiver lock").refused.push(why);
    arrived.notify_all();
    StatusCode::BAD_REQUEST.into_response()
}

fn protobuf(message: &impl prost::Message) -> Response {
    ([(header::CONTENT_TYPE, "application/x-protobuf")], message.encode_to_vec()).into_response()
}

async fn traces(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    if !is_protobuf(&headers) {
        return refuse(&shared, format!("traces with content type {:?}", headers.get(header::CONTENT_TYPE)));
    }
    let request = match ExportTraceServiceRequest::decode(body) {
        Ok(request) => request,
        Err(e) => return refuse(&shared, format!("traces that do not decode: {e}")),
    };
    let (lock, arrived) = &*shared;
    let mut received = lock.lock().expect("receiver lock");
    received.everything.push_str(&format!("{request:?}\n"));
    for resource_spans in request.resource_spans {
        let service = resource_spans.resource.as_ref().and_then(|r| string_attribute(&r.attributes, "service.name"));
        for scope_spans in resource_spans.scope_spans {
            for span in scope_spans.spans {
                received.spans.push(ReceivedSpan { service: service.clone(), span });
            }
        }
    }
    arrived.notify_all();
    protobuf(&ExportTraceServiceResponse::default())
}

async fn metrics(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    if !is_protobuf(&headers) {
        return refuse(&shared, format!("metrics with content type {:?}", headers.get(header::CONTENT_TYPE)));
    }
    let request = match ExportMetricsServiceRequest::decode(body) {
        Ok(request) => request,
        Err(e) => return refuse(&shared, format!("metrics that do not decode: {e}")),
    };
    let (lock, arrived) = &*shared;
    let mut received = lock.lock().expect("receiver lock");
    received.everything.push_str(&format!("{request:?}\n"));
    for resource_metrics in request.resource_metrics {
        for scope_metrics in resource_metrics.scope_metrics {
            for metric in scope_metrics.metrics {
                let (histogram, sum) = match metric.data {
                    Some(metric::Data::Histogram(h)) => (h.data_points, Vec::new()),
                    Some(metric::Data::Sum(s)) => (Vec::new(), s.data_points),
                    Some(metric::Data::Gauge(g)) => (Vec::new(), g.data_points),
                    _ => (Vec::new(), Vec::new()),
                };
                received.metrics.push(ReceivedMetric { name: metric.name, unit: metric.unit, histogram, sum });
            }
        }
    }
    arrived.notify_all();
    protobuf(&ExportMetricsServiceResponse::default())
}

/// A string or integer attribute as text, a boolean as `true`/`false`.
pub fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?;
    text(value)
}

fn text(value: &AnyValue) -> Option<String> {
    match value.value.as_ref()? {
        any_value::Value::StringValue(s) => Some(s.clone()),
        any_value::Value::IntValue(i) => Some(i.to_string()),
        any_value::Value::BoolValue(b) => Some(b.to_string()),
        any_value::Value::DoubleValue(d) => Some(d.to_string()),
        _ => None,
    }
}

fn string_attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attribute(attributes, key)
}

/// Every attribute of `attributes` as text, by key.
pub fn attributes(attributes: &[KeyValue]) -> BTreeMap<String, String> {
    attributes.iter().filter_map(|kv| Some((kv.key.clone(), text(kv.value.as_ref()?)?))).collect()
}

/// A sum point's value as a whole number.
pub fn whole(point: &NumberDataPoint) -> i64 {
    match point.value {
        Some(number_data_point::Value::AsInt(i)) => i,
        Some(number_data_point::Value::AsDouble(d)) => d as i64,
        None => 0,
    }
}

/// Lower-case hex, as W3C trace context writes ids.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
