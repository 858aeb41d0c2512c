//! Streamable HTTP: requests per second and latency at 1, 16 and 64 concurrent keep-alive
//! connections, and the server's peak memory.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::Subject;

/// Concurrent connections measured.
pub const CONNECTIONS: [usize; 3] = [1, 16, 64];

/// One load level.
pub struct Level {
    pub connections: usize,
    pub rps: f64,
    /// Each run's requests per second, in the order they were taken (for [`crate::paired`]).
    pub runs: Vec<f64>,
    pub p50: Duration,
    pub p99: Duration,
}

/// What one server did over HTTP.
pub struct HttpResult {
    pub name: &'static str,
    pub levels: Vec<Level>,
    /// Peak resident memory over the whole HTTP run, in KiB.
    pub peak_rss_kib: u64,
}

struct Server {
    child: Child,
    address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(subject: &Subject) -> Server {
    let mut child = Command::new(&subject.command[0])
        .args(&subject.command[1..])
        .envs(subject.env.iter().map(|(name, value)| (name, value)))
        .args(["--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", subject.name));
    let mut stderr = BufReader::new(child.stderr.take().expect("piped"));
    let mut line = String::new();
    let address = loop {
        line.clear();
        assert!(stderr.read_line(&mut line).expect("stderr") > 0, "{} exited before listening", subject.name);
        if let Some(rest) = line.trim().strip_prefix("listening on http://") {
            break rest.trim_end_matches("/mcp").to_owned();
        }
    };
    // Drain the server's log so that it never blocks on a full pipe.
    std::thread::spawn(move || for _ in stderr.lines() {});
    Server { child, address }
}

fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn request(address: &str, id: u64) -> Request<Full<Bytes>> {
    Request::post("/mcp")
        .header("Host", address)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "echo")
        .body(Full::new(Bytes::from(crate::stdio::echo_call(id))))
        .expect("a valid request")
}

/// One keep-alive connection sending calls back to back until `until`; the latencies.
async fn connection(address: String, until: Instant, subject: &'static str) -> Vec<Duration> {
    let stream = TcpStream::connect(&address).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(conn);
    let mut latencies = Vec::new();
    let mut id = 0;
    while Instant::now() < until {
        id += 1;
        let started = Instant::now();
        let response = sender.send_request(request(&address, id)).await.expect("a response");
        let status = response.status();
        let body = response.into_body().collect().await.expect("a body").to_bytes();
        latencies.push(started.elapsed());
        assert!(status.is_success(), "{subject}: HTTP {status}: {}", String::from_utf8_lossy(&body));
        assert!(body.windows(4).any(|w| w == b"\"hi\""), "{subject}: {}", String::from_utf8_lossy(&body));
    }
    latencies
}

async fn level(address: &str, connections: usize, duration: Duration, subject: &'static str) -> Level {
    let started = Instant::now();
    let until = started + duration;
    let tasks: Vec<_> =
        (0..connections).map(|_| tokio::spawn(connection(address.to_owned(), until, subject))).collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("a connection task"));
    }
    let elapsed = started.elapsed();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    let rps = latencies.len() as f64 / elapsed.as_secs_f64();
    Level { connections, rps, runs: Vec::new(), p50: at(0.50), p99: at(0.99) }
}

/// Measures every subject over HTTP; each level is the run of median throughput among `runs`,
/// taken in turns ([`crate::interleaved`]).
pub fn measure_all(subjects: &[Subject], duration: Duration, runs: usize, settle: &dyn Fn()) -> Vec<HttpResult> {
    let servers: Vec<Server> = subjects.iter().map(start).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    for (server, subject) in servers.iter().zip(subjects) {
        runtime.block_on(level(&server.address, 4, Duration::from_millis(500), subject.name));
    }
    let mut levels: Vec<Vec<Level>> = subjects.iter().map(|_| Vec::new()).collect();
    for connections in CONNECTIONS {
        eprintln!("http: {connections} connections");
        let measured = crate::interleaved(
            subjects.len(),
            runs,
            |level: &Level| level.rps,
            settle,
            |i| runtime.block_on(level(&servers[i].address, connections, duration, subjects[i].name)),
        );
        for (levels, (level, runs)) in levels.iter_mut().zip(measured) {
            levels.push(Level { runs, ..level });
        }
    }
    subjects
        .iter()
        .zip(levels)
        .zip(&servers)
        .map(|((subject, levels), server)| HttpResult {
            name: subject.name,
            levels,
            peak_rss_kib: peak_rss_kib(server.child.id()),
        })
        .collect()
}
