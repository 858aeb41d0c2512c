//! Instructions per request, counted by callgrind: the figure that does not move with what
//! else the machine is doing. Wall-clock runs on a shared two-core machine swing by ±10% and
//! more from one run to the next (the same binary against itself included), which hides a
//! difference of a few percent; the instruction count of the same binary on the same input
//! is the same every time. It leaves out what the kernel does (reads, writes, wake-ups),
//! which the wall-clock rows include.
//!
//! Each server answers `FIRST` and then `FIRST + MEASURED` echo calls (`MEASURED_SAMPLED` for
//! a server that samples its traces at random), one at a time, in two runs under callgrind; the
//! difference of the two totals over all its threads, divided by the calls measured, is what
//! one more call costs, start-up and shutdown cancelled out.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::Subject;

/// Calls answered before the ones counted.
const FIRST: u64 = 1_000;
/// Calls counted.
const MEASURED: u64 = 5_000;
/// Two-round exchanges made before the ones counted, and the ones counted: each signs,
/// verifies and claims a `requestState`, some forty times the work of an echo call.
const FIRST_EXCHANGES: u64 = 200;
const MEASURED_EXCHANGES: u64 = 1_000;
/// Calls counted for a server that samples its traces at random. It keeps 1% of its requests,
/// each ~35k instructions dearer; over 200000 calls how many it keeps (±45 of 2000) and how
/// many batches go out within the count (~8, each an HTTP request of ~2.5M instructions) move
/// its figure by under 0.05%. The count is also long enough for an allocator that takes tens
/// of thousands of calls to settle (one did, until a request stopped allocating a progress
/// marker it did not need: over 25000 calls it read ~400 instructions low).
const MEASURED_SAMPLED: u64 = 200_000;

/// Whether `subject` samples its traces at random.
fn samples(subject: &Subject) -> bool {
    subject.env.iter().any(|(name, _)| *name == "OTEL_TRACES_SAMPLER_ARG")
}

/// The calls made before the ones counted, and the ones counted, of `subject` over `transport`.
fn counts(subject: &Subject, transport: Transport) -> (u64, u64) {
    match transport {
        Transport::Rounds => (FIRST_EXCHANGES, MEASURED_EXCHANGES),
        _ if samples(subject) => (FIRST, MEASURED_SAMPLED),
        _ => (FIRST, MEASURED),
    }
}

/// One server's instructions per echo call, and per two-round exchange.
pub struct Counted {
    pub name: &'static str,
    pub stdio: Option<f64>,
    pub http: Option<f64>,
    /// Per two-round exchange over stdio; for the servers that have the two-round tool and
    /// do not sample at random (whose count over this few exchanges would move with how many
    /// it keeps).
    pub rounds: Option<f64>,
}

/// Whether callgrind is there to count with.
pub fn available() -> bool {
    Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Counts every subject but the Python SDK (an interpreter under callgrind would take an hour
/// to say what the wall-clock rows already say).
pub fn measure_all(subjects: &[Subject]) -> Vec<Counted> {
    let dir = std::env::temp_dir().join(format!("mcp-rounds-bench-callgrind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for callgrind's output");
    let counted = subjects
        .iter()
        .filter(|subject| subject.name != "Python SDK")
        .map(|subject| {
            eprintln!("instructions: {}", subject.name);
            Counted {
                name: subject.name,
                stdio: subject.stdio.then(|| per_call(&dir, subject, Transport::Stdio)),
                http: Some(per_call(&dir, subject, Transport::Http)),
                rounds: (subject.rounds && subject.stdio && !samples(subject))
                    .then(|| per_call(&dir, subject, Transport::Rounds)),
            }
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    counted
}

#[derive(Clone, Copy)]
enum Transport {
    Stdio,
    Http,
    /// Two-round exchanges over stdio.
    Rounds,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "HTTP",
            Transport::Rounds => "stdio, two-round",
        }
    }
}

fn per_call(dir: &Path, subject: &Subject, transport: Transport) -> f64 {
    let (first, measured) = counts(subject, transport);
    let fewer = total(dir, subject, transport, first);
    let more = total(dir, subject, transport, first + measured);
    let per_call = (more as f64 - fewer as f64) / measured as f64;
    eprintln!("instructions: {} over {}: {per_call:.0} per call", subject.name, transport.name());
    per_call
}

/// `subject` run under callgrind, answering `calls` echo calls over `transport`; the
/// instructions all its threads executed.
fn total(dir: &Path, subject: &Subject, transport: Transport, calls: u64) -> u64 {
    let name = format!("{}-{}", subject.name, transport.name()).replace([' ', '(', ')', '%', '+', ','], "_");
    let out = dir.join(format!("{name}-{calls}"));
    let mut counted = subject.clone();
    counted.command =
        ["valgrind".to_owned(), "--tool=callgrind".to_owned(), format!("--callgrind-out-file={}", out.display())]
            .into_iter()
            .chain(subject.command.iter().cloned())
            .collect();
    if counted.env.iter().any(|(name, _)| *name == "OTEL_EXPORTER_OTLP_ENDPOINT") {
        // Under callgrind the threads take turns: a bounded span queue would drop spans the
        // exporter has not taken yet, and their export would go uncounted.
        counted.env.push(("OTEL_BSP_MAX_QUEUE_SIZE", "1000000".into()));
        // And the server runs some 50 times slower, while the export timers keep real time:
        // every few thousand calls one would send a batch of a few spans, whose fixed cost (an
        // HTTP request, ~2.5M instructions) a busy server spreads over a full batch of 512.
        // Exports then go out when a batch is full, and at shutdown, as on a busy server.
        counted.env.push(("OTEL_BSP_SCHEDULE_DELAY", "86400000".into()));
        counted.env.push(("OTEL_METRIC_EXPORT_INTERVAL", "86400000".into()));
    }
    match transport {
        Transport::Stdio => crate::stdio::calls_then_close(&counted, calls),
        Transport::Http => crate::http::calls_then_interrupt(&counted, calls),
        Transport::Rounds => crate::stdio::exchanges_then_close(&counted, calls),
    }
    read_total(&out)
}

pub fn read_total(path: &Path) -> u64 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("no callgrind output {}: {e}", path.display()));
    text.lines()
        .find_map(|line| line.strip_prefix("totals:").or_else(|| line.strip_prefix("summary:")))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no total in {}", path.display()))
}

/// The report's section on instructions.
pub fn render(out: &mut String, counted: &[Counted]) {
    if counted.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Instructions per request\n");
    let _ = writeln!(
        out,
        "What one more `tools/call` of `echo`, answered one at a time, costs each server in instructions, \
         all its threads together (the exporter's included), counted by callgrind over {MEASURED} calls \
         after {FIRST} ({MEASURED_SAMPLED} for the server that samples 1% of its traces, whose count then \
         moves by under 0.05% with how many requests it happens to keep): the same \
         every time for the same binary, where the wall-clock rows above move by several percent from \
         run to run. The kernel's share (reads, writes, wake-ups) is not in it. A server exporting \
         telemetry sends its spans when a batch of 512 is full, as a busy server does, not on its export \
         timers, which under callgrind's slowdown would send a batch of a few spans every few thousand \
         calls. The last column is a whole two-round exchange of `confirm_echo` over stdio (its call, \
         `input_required`, and the retry with the answer and the state echoed), counted over \
         {MEASURED_EXCHANGES} exchanges after {FIRST_EXCHANGES}.\n"
    );
    let _ = writeln!(out, "| server | stdio | HTTP | stdio, two-round exchange |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let cell = |count: Option<f64>| count.map_or("–".into(), |count| format!("{:.1}k", count / 1e3));
    for c in counted {
        let _ = writeln!(out, "| {} | {} | {} | {} |", c.name, cell(c.stdio), cell(c.http), cell(c.rounds));
    }
    let Some(ours) = counted.iter().find(|c| c.name == "mcp-rounds") else { return };
    let _ = writeln!(out, "\n| compared | stdio | HTTP | stdio, two-round exchange |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "–".into(),
    };
    for c in counted.iter().filter(|c| c.name != "mcp-rounds") {
        let (label, ours_first) = crate::against_ours(c.name);
        let (stdio, http, rounds) = if ours_first {
            (ratio(ours.stdio, c.stdio), ratio(ours.http, c.http), ratio(ours.rounds, c.rounds))
        } else {
            (ratio(c.stdio, ours.stdio), ratio(c.http, ours.http), ratio(c.rounds, ours.rounds))
        };
        let _ = writeln!(out, "| {label} | {stdio} | {http} | {rounds} |");
    }
    let _ = writeln!(out);
}

/// The extra instructions OTLP export at 1% sampling costs an echo call, as a share of the
/// call without it, on each transport.
pub fn telemetry_overhead(counted: &[Counted]) -> Option<(f64, f64)> {
    let ours = counted.iter().find(|c| c.name == "mcp-rounds")?;
    let sampled = counted.iter().find(|c| c.name == crate::OTEL_SAMPLED)?;
    Some((sampled.stdio? / ours.stdio? - 1.0, sampled.http? / ours.http? - 1.0))
}
