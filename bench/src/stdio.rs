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
    let calls = one_at_a_time(process, subject, next, |_| started.elapsed() < duration);
    calls as f64 / started.elapsed().as_secs_f64()
}

/// Echo calls one at a time while `more(calls made)` says so; the calls made.
fn one_at_a_time(process: &mut Process, subject: &Subject, next: &mut u64, more: impl Fn(u64) -> bool) -> u64 {
    let mut calls = 0u64;
    while more(calls) {
        *next += 1;
        process.send(&echo_call(*next));
        check_echo(&process.recv(), subject);
        calls += 1;
    }
    calls
}

fn pipelined(process: &mut Process, subject: &Subject, duration: Duration, next: &mut u64) -> f64 {
    let started = Instant::now();
    let calls = in_flight(process, subject, next, |_| started.elapsed() < duration);
    calls as f64 / started.elapsed().as_secs_f64()
}

/// Echo calls with up to [`WINDOW`] in flight, sending while `more(calls sent)` says so, then
/// draining; the calls answered.
fn in_flight(process: &mut Process, subject: &Subject, next: &mut u64, more: impl Fn(u64) -> bool) -> u64 {
    let (mut sent, mut received) = (0u64, 0u64);
    // Keep the window full; stop sending when told, then drain.
    loop {
        let sending = more(sent);
        if !sending && received == sent {
            break;
        }
        let mut batch = String::new();
        while sent - received < WINDOW as u64 && more(sent) {
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
    received
}

fn rounds(process: &mut Process, subject: &Subject, duration: Duration, next: &mut u64) -> f64 {
    let started = Instant::now();
    let mut exchanges = 0u64;
    while started.elapsed() < duration {
        exchange(process, subject, next);
        exchanges += 1;
    }
    exchanges as f64 / started.elapsed().as_secs_f64()
}

/// One two-round exchange: the call, its `input_required`, and the retry with the answer and
/// the state echoed.
fn exchange(process: &mut Process, subject: &Subject, next: &mut u64) {
    *next += 1;
    process.send(&confirm_call(*next, None));
    let asked = process.recv();
    assert_eq!(asked["result"]["resultType"], "input_required", "{} answered {asked}", subject.name);
    let state = asked["result"]["requestState"].as_str().expect("a requestState").to_owned();
    *next += 1;
    process.send(&confirm_call(*next, Some(&state)));
    check_echo(&process.recv(), subject);
}

/// Starts `subject`, makes `exchanges` two-round exchanges one at a time, closes its input
/// and waits for it to exit.
pub fn exchanges_then_close(subject: &Subject, exchanges: u64) {
    let mut process = Process::start(subject);
    let mut next = 0;
    for _ in 0..exchanges {
        exchange(&mut process, subject, &mut next);
    }
    drop(process.stdin.take());
    let status = process.child.wait().expect("the server exits");
    assert!(status.success(), "{} ended with {status} at the end of its input", subject.name);
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

/// Calls in each of [`cpu_cost`]'s stretches one at a time, and with [`WINDOW`] in flight.
const ONE_AT_A_TIME: u64 = 1_500;
const IN_FLIGHT: u64 = 15_000;

/// The CPU time per echo call of two servers measured side by side, the second ÷ the first.
pub struct CpuCost {
    /// Seconds per call one at a time, then with [`WINDOW`] in flight: (first, second).
    pub one_at_a_time: (f64, f64),
    pub in_flight: (f64, f64),
    /// The second server's CPU time outside the measured stretches (its exporter at work), per
    /// call, already spread over the figures above.
    pub background: f64,
    /// Stretches each server was measured in, per row.
    pub stretches: usize,
}

/// What telemetry costs a server over stdio, in CPU time: `plain` and `observed` both run for
/// the whole measurement and take turns, many times, at short stretches of each row, so that
/// whatever the machine does meanwhile falls on both alike (the wall-clock rows above, a few
/// runs each, move by more than the few percent this is about). What the observed server does
/// between its turns (its exporter converting and sending what it queued) is counted against
/// it too: after the last turn, this waits for its exporter's next export.
pub fn cpu_cost(plain: &Subject, observed: &Subject, stretches: usize, exported: &dyn Fn() -> u64) -> CpuCost {
    let subjects = [plain, observed];
    let mut next = 0;
    let mut processes: Vec<Process> = subjects.iter().map(|s| Process::start(s)).collect();
    for (process, subject) in processes.iter_mut().zip(subjects) {
        sequential(process, subject, WARM_UP, &mut next);
    }
    let totals: Vec<crate::cpu::Meter> = processes.iter().map(|p| crate::cpu::Meter::start(p.child.id())).collect();
    // Seconds of CPU spent in each row's stretches, by server.
    let mut spent = [[0.0f64; 2]; 2];
    for stretch in 0..stretches {
        for turn in 0..2 {
            // Each goes first in every other stretch.
            let i = (stretch + turn) % 2;
            let (process, subject) = (&mut processes[i], subjects[i]);
            let meter = crate::cpu::Meter::start(process.child.id());
            one_at_a_time(process, subject, &mut next, |calls| calls < ONE_AT_A_TIME);
            spent[0][i] += meter.seconds();
            let meter = crate::cpu::Meter::start(process.child.id());
            in_flight(process, subject, &mut next, |sent| sent < IN_FLIGHT);
            spent[1][i] += meter.seconds();
        }
    }
    // The spans the observed server queued in its last stretches are converted and sent at its
    // next scheduled export.
    let before = exported();
    let deadline = Instant::now() + Duration::from_secs(15);
    while exported() == before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let calls = stretches as u64 * (ONE_AT_A_TIME + IN_FLIGHT);
    let background: Vec<f64> =
        (0..2).map(|i| (totals[i].per(calls) - (spent[0][i] + spent[1][i]) / calls as f64).max(0.0)).collect();
    let per = |row: usize, each: u64, i: usize| spent[row][i] / (stretches as u64 * each) as f64 + background[i];
    CpuCost {
        one_at_a_time: (per(0, ONE_AT_A_TIME, 0), per(0, ONE_AT_A_TIME, 1)),
        in_flight: (per(1, IN_FLIGHT, 0), per(1, IN_FLIGHT, 1)),
        background: background[1],
        stretches,
    }
}

impl CpuCost {
    /// The rows' ratios, the second server's over the first's, less one.
    pub fn overheads(&self) -> [f64; 2] {
        [self.one_at_a_time.1 / self.one_at_a_time.0 - 1.0, self.in_flight.1 / self.in_flight.0 - 1.0]
    }

    /// Its table in the report, with the names of the two servers.
    pub fn render(&self, out: &mut String, names: (&str, &str)) {
        use std::fmt::Write as _;
        let _ = writeln!(
            out,
            "\nWhat it costs in CPU time, the measure the target below is judged by: the two servers ran side \
             by side for the whole measurement and took turns {} times at each row, in short stretches \
             ({ONE_AT_A_TIME} calls one at a time, {IN_FLIGHT} with {WINDOW} in flight), so that whatever else the machine did fell \
             on both alike. The exporting server's work outside its turns (its exporter converting and sending \
             what it queued, when not within a turn: {:.2} µs a call) is counted against it. CPU µs per call:\n",
            self.stretches,
            self.background * 1e6
        );
        let _ = writeln!(out, "| row | {} | {} | ratio |", names.0, names.1);
        let _ = writeln!(out, "|---|---:|---:|---:|");
        for (label, (a, b)) in [("stdio, one at a time", self.one_at_a_time), ("stdio, in flight", self.in_flight)] {
            let _ = writeln!(out, "| {label} | {:.2} | {:.2} | {:.3}× |", a * 1e6, b * 1e6, b / a);
        }
    }
}
