//! stdio: `tools/call` per second one at a time and pipelined, and complete two-round
//! exchanges per second.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::Subject;

/// What one server did over stdio.
pub struct StdioResult {
    pub name: &'static str,
    /// Calls per second, waiting for each answer before the next call.
    pub sequential: f64,
    /// Calls per second with up to [`WINDOW`] calls in flight.
    pub pipelined: f64,
    /// Complete two-round exchanges per second, one at a time.
    pub rounds: Option<f64>,
    /// Each run's figures, in the order they were taken (for [`crate::paired`]).
    pub runs: StdioRuns,
}

/// Every run's figures of one server over stdio.
pub struct StdioRuns {
    pub sequential: Vec<f64>,
    pub pipelined: Vec<f64>,
    pub rounds: Vec<f64>,
    /// The server's CPU seconds per call in each run: one at a time, pipelined, and in
    /// two-round exchanges (each of an exchange's two calls counted as one).
    pub sequential_cpu: Vec<f64>,
    pub pipelined_cpu: Vec<f64>,
    pub rounds_cpu: Vec<f64>,
}

/// Calls in flight when pipelining.
pub const WINDOW: usize = 256;

/// How long a freshly started server is warmed up before it is measured.
pub const WARM_UP: Duration = Duration::from_millis(400);

struct Process {
    child: Child,
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Process {
    fn start(subject: &Subject) -> Process {
        let mut child = Command::new(&subject.command[0])
            .args(&subject.command[1..])
            .envs(subject.env.iter().map(|(name, value)| (name, value)))
            .arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", subject.name));
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take().expect("piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        Process { child, stdin: Some(stdin), lines }
    }

    fn stdin(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("stdin open")
    }

    fn send(&mut self, message: &str) {
        let stdin = self.stdin();
        stdin.write_all(message.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    fn recv(&self) -> Value {
        let line = self.lines.recv_timeout(Duration::from_secs(30)).expect("an answer within 30 s");
        serde_json::from_str(&line).expect("a JSON answer")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}
    })
}

/// A `tools/call` of `echo` with id `id`.
pub fn echo_call(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"_meta": meta(), "name": "echo", "arguments": {"text": "hi"}}})
    .to_string()
}

fn confirm_call(id: u64, retry: Option<&str>) -> String {
    let mut params = json!({"_meta": meta(), "name": "confirm_echo", "arguments": {"text": "hi"}});
    if let Some(state) = retry {
        params["inputResponses"] = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
        params["requestState"] = json!(state);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

fn check_echo(answer: &Value, subject: &Subject) {
    let text = &answer["result"]["content"][0]["text"];
    assert_eq!(text, "hi", "{} answered {answer}", subject.name);
}

fn sequential(process: &mut Process, subject: &Subject, duration: Duration, next: &mut u64) -> f64 {
    let started = Instant::now();
    let mut calls = 0u64;
    while started.elapsed() < duration {
        *next += 1;
        process.send(&echo_call(*next));
        check_echo(&process.recv(), subject);
        calls += 1;
    }
    calls as f64 / started.elapsed().as_secs_f64()
}

fn pipelined(process: &mut Process, subject: &Subject, duration: Duration, next: &mut u64) -> f64 {
    let started = Instant::now();
    let (mut sent, mut received) = (0u64, 0u64);
    // Keep the window full; stop sending when the time is up, then drain.
    loop {
        let sending = started.elapsed() < duration;
        if !sending && received == sent {
            break;
        }
        let mut batch = String::new();
        while sending && sent - received < WINDOW as u64 {
            *next += 1;
            batch.push_str(&echo_call(*next));
            batch.push('\n');
            sent += 1;
        }
        if !batch.is_empty() {
            process.stdin().write_all(batch.as_bytes()).expect("write");
            process.stdin().flush().expect("flush");
        }
        check_echo(&process.recv(), subject);
        received += 1;
    }
    received as f64 / started.elapsed().as_secs_f64()
}

fn rounds(process: &mut Process, subject: &Subject, duration: Duration, next: &mut u64) -> f64 {
    let started = Instant::now();
    let mut exchanges = 0u64;
    while started.elapsed() < duration {
        *next += 1;
        process.send(&confirm_call(*next, None));
        let asked = process.recv();
        assert_eq!(asked["result"]["resultType"], "input_required", "{} answered {asked}", subject.name);
        let state = asked["result"]["requestState"].as_str().expect("a requestState").to_owned();
        *next += 1;
        process.send(&confirm_call(*next, Some(&state)));
        check_echo(&process.recv(), subject);
        exchanges += 1;
    }
    exchanges as f64 / started.elapsed().as_secs_f64()
}

/// Starts `subject`, makes `calls` echo calls one at a time, closes its input and waits for
/// it to exit, as a server does at the end of its input.
pub fn calls_then_close(subject: &Subject, calls: u64) {
    let mut process = Process::start(subject);
    for id in 1..=calls {
        process.send(&echo_call(id));
        check_echo(&process.recv(), subject);
    }
    drop(process.stdin.take());
    let status = process.child.wait().expect("the server exits");
    assert!(status.success(), "{} ended with {status} at the end of its input", subject.name);
}

/// Measures every subject over stdio, each figure the median of `runs`, taken in turns
/// ([`crate::interleaved`]). Every run starts the server afresh and warms it up: what one
/// process happens to get (where its memory and threads land) then varies from run to run
/// and the median sees through it, instead of weighing on every run of that server alike.
pub fn measure_all(subjects: &[Subject], duration: Duration, runs: usize, settle: &dyn Fn()) -> Vec<StdioResult> {
    let mut next = 0;
    type Row = fn(&mut Process, &Subject, Duration, &mut u64) -> f64;
    let fresh = |i: usize, next: &mut u64| {
        let mut process = Process::start(&subjects[i]);
        // Warm up: first calls pay for lazy initialization in every framework.
        sequential(&mut process, &subjects[i], WARM_UP, next);
        process
    };
    let by_rate = |rate: &f64| *rate;
    let mut cpu: [Vec<Vec<f64>>; 3] = std::array::from_fn(|_| vec![Vec::new(); subjects.len()]);
    // Runs `row` on a fresh server, noting its CPU time per call.
    let mut metered = |i: usize, cpu: &mut Vec<Vec<f64>>, row: Row| {
        let mut process = fresh(i, &mut next);
        let (meter, first) = (crate::cpu::Meter::start(process.child.id()), next);
        let rate = row(&mut process, &subjects[i], duration, &mut next);
        cpu[i].push(meter.per(next - first));
        rate
    };
    eprintln!("stdio: one at a time");
    let [sequential_cpu, pipelined_cpu, rounds_cpu] = &mut cpu;
    let one_at_a_time =
        crate::interleaved(subjects.len(), runs, by_rate, settle, |i| metered(i, sequential_cpu, sequential));
    eprintln!("stdio: {WINDOW} in flight");
    let in_flight = crate::interleaved(subjects.len(), runs, by_rate, settle, |i| metered(i, pipelined_cpu, pipelined));
    eprintln!("stdio: two rounds");
    let two_rounds = crate::interleaved(
        subjects.len(),
        runs,
        |rate: &Option<f64>| rate.unwrap_or(0.0),
        settle,
        |i| subjects[i].rounds.then(|| metered(i, rounds_cpu, rounds)),
    );
    let [sequential_cpu, pipelined_cpu, rounds_cpu] = cpu;
    subjects
        .iter()
        .zip(one_at_a_time.into_iter().zip(in_flight).zip(two_rounds))
        .zip(sequential_cpu.into_iter().zip(pipelined_cpu).zip(rounds_cpu))
        .map(
            |(
                (subject, (((sequential, sequential_runs), (pipelined, pipelined_runs)), (rounds, rounds_runs))),
                ((sequential_cpu, pipelined_cpu), rounds_cpu),
            )| StdioResult {
                name: subject.name,
                sequential,
                pipelined,
                rounds,
                runs: StdioRuns {
                    sequential: sequential_runs,
                    pipelined: pipelined_runs,
                    rounds: rounds_runs,
                    sequential_cpu,
                    pipelined_cpu,
                    rounds_cpu,
                },
            },
        )
        .collect()
}
