//! A stand-in OpenTelemetry collector for the "mcp-rounds + OTLP" row: it accepts OTLP/HTTP
//! exports as a collector does (200 with an empty protobuf answer) and counts what arrived, so
//! that the report shows the exporter was really at work. Decoding is the tests' job.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;

/// What the collector received: export requests and their bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Exported {
    pub requests: u64,
    pub bytes: u64,
}

#[derive(Default)]
struct Counts {
    requests: AtomicU64,
    bytes: AtomicU64,
}

pub struct Collector {
    address: SocketAddr,
    counts: Arc<Counts>,
}

impl Collector {
    /// Listens on a free loopback port, on a thread of its own.
    pub fn start() -> Self {
        let counts = Arc::new(Counts::default());
        let state = counts.clone();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the collector");
        let address = listener.local_addr().expect("an address");
        listener.set_nonblocking(true).expect("non-blocking");
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
                let app = Router::new()
                    .route("/v1/traces", post(export))
                    .route("/v1/metrics", post(export))
                    .with_state(state);
                axum::serve(listener, app).await.expect("serve OTLP");
            });
        });
        Collector { address, counts }
    }

    /// Its base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Returns once no export has arrived for a moment (at most a few seconds): a server that
    /// exports what it queued during its turn does so before the next server's turn, not in it.
    pub fn wait_quiet(&self) {
        let quiet_for = std::time::Duration::from_millis(300);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut last = self.received().requests;
        let mut since = std::time::Instant::now();
        while std::time::Instant::now() < deadline && since.elapsed() < quiet_for {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let now = self.received().requests;
            if now != last {
                last = now;
                since = std::time::Instant::now();
            }
        }
    }

    pub fn received(&self) -> Exported {
        Exported {
            requests: self.counts.requests.load(Ordering::Relaxed),
            bytes: self.counts.bytes.load(Ordering::Relaxed),
        }
    }
}

async fn export(State(counts): State<Arc<Counts>>, body: Bytes) -> ([(&'static str, &'static str); 1], Vec<u8>) {
    counts.requests.fetch_add(1, Ordering::Relaxed);
    counts.bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
    // An empty ExportTraceServiceResponse (or metrics') is zero bytes of protobuf.
    ([("content-type", "application/x-protobuf")], Vec::new())
}
