//! Clients: the same server (the mcp-rounds `rounds-server`, over stdio) driven by three
//! clients, one at a time: mcp-rounds' (`rounds-client`), rmcp's (`rmcp-client`) and the Python
//! SDK's (`python/client.py`). Each client program loads the server in one mode for the
//! measured stretch and reports what it completed, the wall time and its own CPU time (see
//! `src/bin/shared/driver.rs`); this runs them in turns and reports each client's rate, its
//! CPU time per call and, under callgrind, its instructions per call.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Deserialize;

use crate::stdio::WINDOW;

/// The `--only` name that selects every client row.
pub const ONLY: &str = "clients";

/// The loads each client is measured at, by their client programs' `--mode`.
pub const MODES: [&str; 3] = ["sequential", "concurrent", "two-round"];

/// One client under test.
pub struct Subject {
    /// Its name in the report.
    pub name: &'static str,
    /// The command that starts it (its options and the server's command line are appended).
    pub command: Vec<String>,
    /// Whether its instructions are counted under callgrind (not the interpreter's).
    pub counted: bool,
}

impl Subject {
    /// Its `--only` name: `mcp-rounds client`, `rmcp client`, `Python SDK client`.
    pub fn only_name(&self) -> String {
        format!("{} client", self.name)
    }
}

/// The three clients, in the order of the report.
pub fn subjects(python: &Path) -> Vec<Subject> {
    let bin = |name: &str| vec![format!("target/release/{name}")];
    vec![
        Subject { name: "mcp-rounds", command: bin("rounds-client"), counted: true },
        Subject { name: "rmcp", command: bin("rmcp-client"), counted: true },
        Subject {
            name: "Python SDK",
            command: vec![python.display().to_string(), "python/client.py".into()],
            counted: false,
        },
    ]
}

/// The server every client drives.
fn server() -> [String; 2] {
    ["target/release/rounds-server".into(), "--stdio".into()]
}

/// What a client program prints at the end of its run.
#[derive(Deserialize)]
struct Line {
    completed: u64,
    elapsed: f64,
    cpu: f64,
}

/// One client's figures at one load.
pub struct Row {
    /// Calls (or exchanges) per second: the median run's.
    pub rate: f64,
    /// Every run's rate, in the order they were taken (for [`crate::paired`]).
    pub rates: Vec<f64>,
    /// Every run's CPU seconds of the client per call (or exchange), in the same order.
    pub cpu: Vec<f64>,
}

/// One client's figures.
pub struct ClientResult {
    pub name: &'static str,
    /// By [`MODES`].
    pub rows: Vec<Row>,
    /// Instructions per echo call and per two-round exchange, when counted.
    pub instructions: Option<(f64, f64)>,
}

/// Runs `subject` against the server, `wrapper` (callgrind) before its command: `mode` for
/// `load` (`--seconds S` or `--count N`).
fn run(subject: &Subject, mode: &str, load: &[String], wrapper: &[String]) -> Line {
    let argv: Vec<&String> = wrapper.iter().chain(&subject.command).collect();
    let output = Command::new(argv[0])
        .args(&argv[1..])
        .args(["--mode", mode])
        .args(load)
        .arg("--")
        .args(server())
        .stdin(Stdio::null())
        .stderr(if wrapper.is_empty() { Stdio::inherit() } else { Stdio::null() })
        .output()
        .unwrap_or_else(|e| panic!("cannot start the {} client: {e}", subject.name));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the {} client failed ({}) in {mode}: {stdout}", subject.name, output.status);
    let line = stdout.lines().rev().find(|l| l.starts_with('{')).unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("the {} client printed {stdout:?}: {e}", subject.name))
}

/// Measures every client at every load, each figure the median of `runs` taken in turns
/// ([`crate::interleaved`]), each run a fresh client process and server after a warm-up.
pub fn measure_all(subjects: &[Subject], duration: Duration, runs: usize) -> Vec<ClientResult> {
    let load = ["--seconds".to_owned(), duration.as_secs_f64().to_string(), "--warm-up".into(), "0.4".into()];
    let mut rows: Vec<Vec<Row>> = subjects.iter().map(|_| Vec::new()).collect();
    for mode in MODES {
        eprintln!("clients: {mode}");
        let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); subjects.len()];
        let measured = crate::interleaved(
            subjects.len(),
            runs,
            |rate: &f64| *rate,
            &|| {},
            |i| {
                let line = run(&subjects[i], mode, &load, &[]);
                cpu[i].push(line.cpu / line.completed.max(1) as f64);
                line.completed as f64 / line.elapsed
            },
        );
        for ((row, (rate, rates)), cpu) in rows.iter_mut().zip(measured).zip(cpu) {
            row.push(Row { rate, rates, cpu });
        }
    }
    subjects
        .iter()
        .zip(rows)
        .map(|(subject, rows)| ClientResult { name: subject.name, rows, instructions: None })
        .collect()
}

/// Echo calls made before the ones counted, and the ones counted; the same for two-round
/// exchanges (as for the servers' counts in [`crate::instructions`]).
const FIRST: u64 = 1_000;
const MEASURED: u64 = 5_000;
const FIRST_EXCHANGES: u64 = 200;
const MEASURED_EXCHANGES: u64 = 1_000;

/// Counts, under callgrind, the instructions of each client that is [`Subject::counted`] per
/// echo call (one at a time) and per two-round exchange: the client alone (the server it
/// starts is not traced), the difference of two runs of different lengths over the calls
/// between them, so that start-up and shutdown cancel out.
pub fn count_instructions(subjects: &[Subject], results: &mut [ClientResult]) {
    let dir = std::env::temp_dir().join(format!("mcp-rounds-bench-clients-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for callgrind's output");
    for (subject, result) in subjects.iter().zip(results).filter(|(s, _)| s.counted) {
        eprintln!("clients: instructions of the {} client", subject.name);
        let per = |mode: &str, first: u64, measured: u64| {
            let total = |count: u64| {
                let out = dir.join(format!("{}-{mode}-{count}", subject.name.replace(' ', "_")));
                let wrapper = [
                    "valgrind".to_owned(),
                    "--tool=callgrind".into(),
                    format!("--callgrind-out-file={}", out.display()),
                ];
                run(subject, mode, &["--count".to_owned(), count.to_string()], &wrapper);
                crate::instructions::read_total(&out)
            };
            let (fewer, more) = (total(first), total(first + measured));
            let each = (more as f64 - fewer as f64) / measured as f64;
            eprintln!("clients: {} client, {mode}: {each:.0} instructions each", subject.name);
            each
        };
        result.instructions =
            Some((per("sequential", FIRST, MEASURED), per("two-round", FIRST_EXCHANGES, MEASURED_EXCHANGES)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The column headings of the loads, by [`MODES`].
fn labels() -> [String; 3] {
    ["echo, one at a time".into(), format!("echo, {WINDOW} in flight"), "two-round exchange".into()]
}

fn ratio(value: f64) -> String {
    if value.is_finite() && value > 0.0 { format!("{value:.2}×") } else { "–".into() }
}

/// The report's section on clients.
pub fn render(out: &mut String, results: &[ClientResult]) {
    if results.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Clients\n");
    let _ = writeln!(
        out,
        "The same server (the mcp-rounds one above, over stdio) driven by mcp-rounds' client, rmcp's client \
         and the Python SDK's client, each a program of its own (`bench/src/bin/rounds-client.rs`, \
         `rmcp-client.rs`, `bench/python/client.py`) that starts the server as its child, settles on \
         2026-07-28 with `server/discover` and calls the tools through its framework's own API: `echo` one \
         call at a time, `echo` from {WINDOW} tasks at once, and `confirm_echo` one exchange at a time, its \
         `input_required` answered by the client's own round loop (its handler fills in the form, the call \
         goes again with the answer and the state). Every answer is checked. Each run is a fresh client \
         and server after a 0.4 s warm-up, the clients taking turns as the servers do above. The Rust clients run on \
         `#[tokio::main]`'s multi-thread runtime, as a program using them would. The CPU time \
         is the client process's own (user and system, all its threads), per call, or per exchange of two \
         calls; the server's is not in it.\n"
    );
    let _ = writeln!(
        out,
        "| client | echo calls per s, one at a time | echo calls per s, {WINDOW} in flight | two-round exchanges per s |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for r in results {
        let cells: Vec<String> = r.rows.iter().map(|row| format!("{:.0}", row.rate)).collect();
        let _ = writeln!(out, "| {} | {} |", r.name, cells.join(" | "));
    }
    let _ =
        writeln!(out, "\nThe client's CPU µs per call (per exchange in the last column), the median over the runs:\n");
    let _ = writeln!(out, "| client | {} |", labels().join(" | "));
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for r in results {
        let cells: Vec<String> =
            r.rows.iter().map(|row| format!("{:.1}", crate::cpu::median(&row.cpu) * 1e6)).collect();
        let _ = writeln!(out, "| {} | {} |", r.name, cells.join(" | "));
    }
    if let Some(ours) = results.iter().find(|r| r.name == "mcp-rounds") {
        let _ = writeln!(
            out,
            "\nPaired per run: the rate of mcp-rounds' client over the other's, and the other's CPU time per \
             call over ours (above 1×, ours is ahead on both):\n"
        );
        let _ = writeln!(out, "| ratio | {} |", labels().join(" | "));
        let _ = writeln!(out, "|---|---:|---:|---:|");
        for other in results.iter().filter(|r| r.name != "mcp-rounds") {
            let rates: Vec<String> =
                ours.rows.iter().zip(&other.rows).map(|(a, b)| ratio(crate::paired(&a.rates, &b.rates))).collect();
            let cpu: Vec<String> =
                ours.rows.iter().zip(&other.rows).map(|(a, b)| ratio(crate::paired(&b.cpu, &a.cpu))).collect();
            let _ = writeln!(out, "| rate: mcp-rounds ÷ {} | {} |", other.name, rates.join(" | "));
            let _ = writeln!(out, "| CPU per call: {} ÷ mcp-rounds | {} |", other.name, cpu.join(" | "));
        }
    }
    let counted: Vec<&ClientResult> = results.iter().filter(|r| r.instructions.is_some()).collect();
    if !counted.is_empty() {
        let _ = writeln!(
            out,
            "\nInstructions of the client per echo call (one at a time) and per two-round exchange, counted by \
             callgrind in the client alone over {MEASURED} calls after {FIRST}, and {MEASURED_EXCHANGES} \
             exchanges after {FIRST_EXCHANGES} (the Python SDK's interpreter is not counted):\n"
        );
        let _ = writeln!(out, "| client | echo call | two-round exchange |");
        let _ = writeln!(out, "|---|---:|---:|");
        for r in &counted {
            let (echo, exchange) = r.instructions.unwrap_or_default();
            let _ = writeln!(out, "| {} | {:.1}k | {:.1}k |", r.name, echo / 1e3, exchange / 1e3);
        }
        if let Some((echo, exchange)) = results.iter().find(|r| r.name == "mcp-rounds").and_then(|r| r.instructions) {
            for r in counted.iter().filter(|r| r.name != "mcp-rounds") {
                let (e, x) = r.instructions.unwrap_or_default();
                let _ = writeln!(out, "| {} ÷ mcp-rounds | {} | {} |", r.name, ratio(e / echo), ratio(x / exchange));
            }
        }
    }
    let _ = writeln!(out);
}

/// Whether mcp-rounds' client is at least as fast as rmcp's at every load, paired per run: the
/// line for the report's targets.
pub fn target(results: &[ClientResult]) -> Option<(bool, String)> {
    let ours = results.iter().find(|r| r.name == "mcp-rounds")?;
    let rmcp = results.iter().find(|r| r.name == "rmcp")?;
    let ratios: Vec<f64> = ours.rows.iter().zip(&rmcp.rows).map(|(a, b)| crate::paired(&a.rates, &b.rates)).collect();
    let shown: Vec<String> = labels().iter().zip(&ratios).map(|(l, r)| format!("{l} {r:.2}×")).collect();
    Some((ratios.iter().all(|r| *r >= 1.0), shown.join(", ")))
}
