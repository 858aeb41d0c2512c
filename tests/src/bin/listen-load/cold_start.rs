//! Cold start: from spawning a server process to its first answer, `server/discover`, over
//! stdio (a line written to its stdin before it is ready; the pipe holds it) and over HTTP
//! (posted once it says where it listens). The clock starts before the spawn, so that what
//! the operating system does to start the process counts, as it does for a client that
//! starts its server.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_rounds_tests::http::post_mcp;
use mcp_rounds_tests::request;
use serde_json::{Value, json};

/// How long one start may take before the run fails.
const DEADLINE: Duration = Duration::from_secs(30);

/// A server program and how it is started on each transport.
pub struct Program {
    pub label: String,
    pub path: String,
    /// Arguments for stdio; HTTP gets them without `--stdio`, plus `--listen 127.0.0.1:0`.
    pub args: Vec<String>,
    pub token: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

fn discover() -> Value {
    request(json!("cold"), "server/discover", json!({}))
}

fn check(answer: &Value, label: &str) {
    assert!(answer["result"]["supportedVersions"].is_array(), "{label}: not a discover result: {answer}");
}

/// Ends a started server; how it ends is not measured.
fn end(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// One start, to the first answer.
pub fn start(program: &Program, transport: Transport) -> Duration {
    match transport {
        Transport::Stdio => start_stdio(program),
        Transport::Http => start_http(program),
    }
}

fn start_stdio(program: &Program) -> Duration {
    let started = Instant::now();
    let mut child = Command::new(&program.path)
        .args(&program.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.path));
    let mut stdin = child.stdin.take().expect("piped stdin");
    writeln!(stdin, "{}", discover()).expect("write to the server's stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let (sender, answered) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send((Instant::now(), line));
    });
    let (at, line) = answered
        .recv_timeout(DEADLINE)
        .unwrap_or_else(|_| panic!("{}: no answer on stdout within {DEADLINE:?}", program.label));
    let answer: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{}: {e}: {line:?}", program.label));
    check(&answer, &program.label);
    drop(stdin);
    end(child);
    let _ = reader.join();
    at - started
}

fn start_http(program: &Program) -> Duration {
    let started = Instant::now();
    let mut child = Command::new(&program.path)
        .args(program.args.iter().filter(|arg| *arg != "--stdio"))
        .args(["--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.path));
    let stderr = child.stderr.take().expect("piped stderr");
    let (sender, listening) = mpsc::channel();
    // Reads to the end, so that the server never waits on a full pipe.
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.trim().strip_prefix("listening on http://") {
                let _ = sender.send(rest.trim_end_matches("/mcp").to_owned());
            }
        }
    });
    let address = listening
        .recv_timeout(DEADLINE)
        .unwrap_or_else(|_| panic!("{}: no `listening on` line within {DEADLINE:?}", program.label));
    let message = discover();
    let response = post_mcp(&address, program.token.as_deref(), &message);
    let at = Instant::now();
    assert_eq!(response.status, 200, "{}: {}", program.label, String::from_utf8_lossy(&response.body));
    check(&response.json(), &program.label);
    end(child);
    let _ = reader.join();
    at - started
}

/// Starts every program on every transport `starts` times, taking turns so that whatever the
/// machine does meanwhile falls on all alike, after one unmeasured start of each (which seeds
/// a data directory and warms the page cache). Returns the times per program and transport.
pub fn measure(programs: &[Program], starts: usize) -> Vec<(String, Transport, Vec<Duration>)> {
    let kinds: Vec<(usize, Transport)> =
        (0..programs.len()).flat_map(|p| [(p, Transport::Stdio), (p, Transport::Http)]).collect();
    for &(p, transport) in &kinds {
        start(&programs[p], transport);
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(starts); kinds.len()];
    for _ in 0..starts {
        for (k, &(p, transport)) in kinds.iter().enumerate() {
            times[k].push(start(&programs[p], transport));
        }
    }
    kinds.iter().zip(times).map(|(&(p, transport), times)| (programs[p].label.clone(), transport, times)).collect()
}
