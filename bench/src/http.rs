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
    pub p999: Duration,
    /// Each run's p99 in seconds, in the order they were taken (for [`crate::paired`]).
    pub p99_runs: Vec<f64>,
    /// Requests answered in the run.
    pub requests: u64,
    /// Each run's server CPU seconds per request, in the order they were taken.
    pub cpu_runs: Vec<f64>,
}

/// What one server did over HTTP.
pub struct HttpResult {
    pub name: &'static str,
    pub levels: Vec<Level>,
    /// Peak resident memory, in KiB: the most any of its processes reached over its HTTP runs.
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

/// Starts `subject`, makes `calls` echo calls one at a time on one connection, then interrupts
/// it (as Ctrl-C does) and waits for it to exit.
pub fn calls_then_interrupt(subject: &Subject, calls: u64) {
    let mut server = start(subject);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let stream = TcpStream::connect(&server.address).await.expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
        let conn = tokio::spawn(conn);
        for id in 1..=calls {
            let response = sender.send_request(request(&server.address, id)).await.expect("a response");
            let body = response.into_body().collect().await.expect("a body").to_bytes();
            assert!(body.windows(4).any(|w| w == b"\"hi\""), "{}: {}", subject.name, String::from_utf8_lossy(&body));
        }
        drop(sender);
        let _ = conn.await;
    });
    let pid = server.child.id().to_string();
    let interrupted = Command::new("kill").args(["-INT", &pid]).status().expect("kill runs");
    assert!(interrupted.success(), "cannot interrupt {}", subject.name);
    server.child.wait().expect("the server exits");
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
    Level {
        connections,
        rps,
        runs: Vec::new(),
        p50: at(0.50),
        p99: at(0.99),
        p999: at(0.999),
        p99_runs: Vec::new(),
        requests: latencies.len() as u64,
        cpu_runs: Vec::new(),
    }
}

/// Measures every subject over HTTP; each level is the run of median throughput among `runs`,
/// taken in turns ([`crate::interleaved`]), each run on a freshly started and warmed-up
/// server (see [`crate::stdio::measure_all`]).
pub fn measure_all(subjects: &[Subject], duration: Duration, runs: usize, settle: &dyn Fn()) -> Vec<HttpResult> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let mut peaks: Vec<u64> = vec![0; subjects.len()];
    let mut levels: Vec<Vec<Level>> = subjects.iter().map(|_| Vec::new()).collect();
    for connections in CONNECTIONS {
        eprintln!("http: {connections} connections");
        let mut tails: Vec<Vec<f64>> = subjects.iter().map(|_| Vec::new()).collect();
        let mut cpu: Vec<Vec<f64>> = subjects.iter().map(|_| Vec::new()).collect();
        let measured = crate::interleaved(
            subjects.len(),
            runs,
            |level: &Level| level.rps,
            settle,
            |i| {
                let subject = &subjects[i];
                let server = start(subject);
                runtime.block_on(level(&server.address, 4, crate::stdio::WARM_UP, subject.name));
                let meter = crate::cpu::Meter::start(server.child.id());
                let level = runtime.block_on(level(&server.address, connections, duration, subject.name));
                cpu[i].push(meter.per(level.requests));
                peaks[i] = peaks[i].max(peak_rss_kib(server.child.id()));
                tails[i].push(level.p99.as_secs_f64());
                level
            },
        );
        for (((levels, (level, runs)), p99_runs), cpu_runs) in levels.iter_mut().zip(measured).zip(tails).zip(cpu) {
            levels.push(Level { runs, p99_runs, cpu_runs, ..level });
        }
    }
    subjects
        .iter()
        .zip(levels)
        .zip(peaks)
        .map(|((subject, levels), peak_rss_kib)| HttpResult { name: subject.name, levels, peak_rss_kib })
        .collect()
}
