//! Many idle listen streams held by one small async client: a task per stream on a runtime of
//! two threads, each task a socket and a buffer that grows only as far as one event needs.
//! A thread (or a blocking socket read in turn) per stream would cost the client more than the
//! server it measures, and reading streams in turn would add the time to reach each one to
//! its latency.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_rounds_tests::request;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};
use tokio::runtime::Runtime;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;

/// Streams from one source address. Connecting looks for a free local port one by one, and
/// slows down as an address's ports fill up: the streams come from addresses of their own
/// (127.0.0.2, then 127.0.0.3, ...) so that neither they nor the calls measured beside them
/// (from 127.0.0.1) pay for that, a cost of the client and not of the server.
const STREAMS_PER_SOURCE: usize = 10_000;

/// Streams being opened at once: enough to keep both ends busy, few enough that the server's
/// accept backlog never overflows (a dropped SYN costs a second's retransmission).
const OPENING_AT_ONCE: usize = 128;

/// What a stream reports.
enum Report {
    /// Acknowledged: the stream is open.
    Opened,
    /// A change notification arrived.
    Arrived(usize, Instant),
    /// Anything unexpected: a refusal, a wrong event, the stream ending.
    Failed(usize, String),
}

/// The streams, and what they report.
pub struct Streams {
    address: String,
    tasks: Vec<JoinHandle<()>>,
    reports: mpsc::UnboundedReceiver<Report>,
    sender: mpsc::UnboundedSender<Report>,
    opening: Arc<Semaphore>,
}

impl Streams {
    pub fn new(address: &str) -> Self {
        let (sender, reports) = mpsc::unbounded_channel();
        let opening = Arc::new(Semaphore::new(OPENING_AT_ONCE));
        Streams { address: address.to_owned(), tasks: Vec::new(), reports, sender, opening }
    }

    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Opens streams until `total` are open, and returns once every new one is acknowledged.
    pub fn open_up_to(&mut self, runtime: &Runtime, total: usize, deadline: Duration) {
        let first = self.tasks.len();
        for id in first..total {
            let (address, sender, opening) = (self.address.clone(), self.sender.clone(), self.opening.clone());
            self.tasks.push(runtime.spawn(async move {
                if let Err(problem) = hold(&address, id, &sender, &opening).await {
                    let _ = sender.send(Report::Failed(id, problem));
                }
            }));
        }
        let mut opened = 0;
        runtime.block_on(async {
            let until = tokio::time::Instant::now() + deadline;
            while opened < total - first {
                match tokio::time::timeout_at(until, self.reports.recv()).await {
                    Ok(Some(Report::Opened)) => opened += 1,
                    Ok(Some(Report::Failed(id, problem))) => panic!("stream {id} failed to open: {problem}"),
                    Ok(Some(Report::Arrived(id, _))) => panic!("stream {id} got an event nobody announced"),
                    Ok(None) => unreachable!("the streams hold a sender"),
                    Err(_) => panic!("only {opened} of {} streams opened within {deadline:?}", total - first),
                }
            }
        });
    }

    /// Waits until every stream has received one notification, and returns, for each, when.
    pub fn arrivals(&mut self, runtime: &Runtime, deadline: Duration) -> Vec<Instant> {
        let mut arrived: Vec<Option<Instant>> = vec![None; self.tasks.len()];
        let mut count = 0;
        runtime.block_on(async {
            let until = tokio::time::Instant::now() + deadline;
            while count < arrived.len() {
                match tokio::time::timeout_at(until, self.reports.recv()).await {
                    Ok(Some(Report::Arrived(id, at))) => {
                        assert!(arrived[id].replace(at).is_none(), "stream {id} got the change twice");
                        count += 1;
                    }
                    Ok(Some(Report::Failed(id, problem))) => panic!("stream {id} failed: {problem}"),
                    Ok(Some(Report::Opened)) => unreachable!("every stream was open"),
                    Ok(None) => unreachable!("the streams hold a sender"),
                    Err(_) => {
                        panic!("the change reached only {count} of {} streams within {deadline:?}", arrived.len())
                    }
                }
            }
        });
        arrived.into_iter().map(|at| at.expect("counted")).collect()
    }

    /// Closes every stream.
    pub fn close(self, runtime: &Runtime) {
        for task in &self.tasks {
            task.abort();
        }
        runtime.block_on(async {
            for task in self.tasks {
                let _ = task.await;
            }
        });
    }
}

/// Opens stream `id`, reports it open once acknowledged, then reports each change that
/// arrives, until the stream fails or is closed.
async fn hold(
    address: &str,
    id: usize,
    reports: &mpsc::UnboundedSender<Report>,
    opening: &Semaphore,
) -> Result<(), String> {
    let permit = opening.acquire().await.map_err(|e| e.to_string())?;
    let server: SocketAddr = address.parse().map_err(|e| format!("{address}: {e}"))?;
    let source = u8::try_from(2 + id / STREAMS_PER_SOURCE).map_err(|_| "too many streams".to_owned())?;
    let socket = TcpSocket::new_v4().map_err(|e| format!("socket: {e}"))?;
    socket.bind(SocketAddr::from(([127, 0, 0, source], 0))).map_err(|e| format!("bind: {e}"))?;
    let mut socket = socket.connect(server).await.map_err(|e| format!("connect: {e}"))?;
    let subscription = format!("listen-{id}");
    let message =
        request(json!(subscription), "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let body = message.to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(head.as_bytes()).await.map_err(|e| format!("send: {e}"))?;
    let mut stream = EventReader { socket, raw: Vec::new(), body: Vec::new(), head_read: false };
    let ack = stream.next_event().await?;
    expect(&ack, "notifications/subscriptions/acknowledged", &subscription)?;
    drop(permit);
    let _ = reports.send(Report::Opened);
    loop {
        let event = stream.next_event().await?;
        let at = Instant::now();
        expect(&event, "notifications/tools/list_changed", &subscription)?;
        let _ = reports.send(Report::Arrived(id, at));
    }
}

fn expect(event: &Value, method: &str, subscription: &str) -> Result<(), String> {
    let tagged = &event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
    if event["method"] == method && tagged == subscription {
        Ok(())
    } else {
        Err(format!("expected {method} for {subscription}, got {event}"))
    }
}

/// The events of one chunked `text/event-stream` response.
struct EventReader {
    socket: TcpStream,
    /// Bytes read and not yet decoded.
    raw: Vec<u8>,
    /// Decoded body not yet parsed into events.
    body: Vec<u8>,
    head_read: bool,
}

impl EventReader {
    /// The next event's data as JSON (keep-alive comments skipped).
    async fn next_event(&mut self) -> Result<Value, String> {
        loop {
            if !self.head_read {
                if let Some(end) = find(&self.raw, b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&self.raw[..end]).into_owned();
                    if !head.starts_with("HTTP/1.1 200") || !head.to_ascii_lowercase().contains("chunked") {
                        return Err(format!("not a chunked 200 event stream: {head}"));
                    }
                    self.raw.drain(..end + 4);
                    self.head_read = true;
                    continue;
                }
            } else {
                self.decode()?;
                if let Some(end) = find(&self.body, b"\n\n") {
                    let event: Vec<u8> = self.body.drain(..end + 2).collect();
                    let data: Vec<&str> = std::str::from_utf8(&event)
                        .map_err(|e| e.to_string())?
                        .lines()
                        .filter_map(|line| line.strip_prefix("data:"))
                        .map(str::trim_start)
                        .collect();
                    if data.is_empty() {
                        continue;
                    }
                    return serde_json::from_str(&data.join("\n")).map_err(|e| format!("event data: {e}"));
                }
            }
            self.fill().await?;
        }
    }

    /// Moves every whole chunk from `raw` to `body`.
    fn decode(&mut self) -> Result<(), String> {
        while let Some(line_end) = find(&self.raw, b"\r\n") {
            let line = std::str::from_utf8(&self.raw[..line_end]).map_err(|e| e.to_string())?;
            let size = line.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size, 16).map_err(|_| format!("bad chunk size {line:?}"))?;
            if size == 0 {
                return Err("the stream ended".into());
            }
            if self.raw.len() < line_end + 2 + size + 2 {
                break;
            }
            self.body.extend_from_slice(&self.raw[line_end + 2..line_end + 2 + size]);
            self.raw.drain(..line_end + 2 + size + 2);
        }
        Ok(())
    }

    async fn fill(&mut self) -> Result<(), String> {
        self.raw.reserve(512);
        let read = self.socket.read_buf(&mut self.raw).await.map_err(|e| format!("read: {e}"))?;
        if read == 0 {
            return Err("the server closed the stream".into());
        }
        Ok(())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}
