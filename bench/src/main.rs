//! Measures the benchmark server written with mcp-rounds, rmcp and the Python SDK, and the
//! ceiling, and the mcp-rounds server driven by the three frameworks' clients, in one run on
//! one machine, and writes `docs/benchmarks.md`.
//!
//! Run it through `bench/run` (which builds everything first).

mod build_cost;
mod clients;
mod collector;
mod cpu;
mod http;
mod instructions;
mod report;
mod stdio;

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

/// Options of a run.
#[derive(Parser, Clone)]
pub struct Options {
    /// Where the report goes.
    #[arg(long, default_value = "../docs/benchmarks.md")]
    out: PathBuf,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// The Python interpreter that has the `mcp` package.
    #[arg(long, default_value = "../target/test-venv/bin/python")]
    python: PathBuf,
    /// Skip the build-cost measurement (it rebuilds two servers from scratch).
    #[arg(long)]
    skip_build_cost: bool,
    /// Runs per figure; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Skip the stdio measurements.
    #[arg(long)]
    skip_stdio: bool,
    /// Skip the HTTP measurements.
    #[arg(long)]
    skip_http: bool,
    /// Skip counting instructions per request under callgrind.
    #[arg(long)]
    skip_instructions: bool,
    /// Skip the client rows (three clients driving the mcp-rounds server over stdio).
    #[arg(long)]
    skip_clients: bool,
    /// Measure only these servers (by report name), e.g. for profiling; `clients` for the
    /// client rows, or one client by `mcp-rounds client`, `rmcp client`, `Python SDK client`.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Also measure this build of the mcp-rounds server (e.g. from the commit before a change),
    /// reported as "mcp-rounds baseline", so that a change is measured against its own past in
    /// the same run as the peers.
    #[arg(long)]
    baseline: Option<PathBuf>,
}

impl Options {
    fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.seconds)
    }
}

/// One server under test.
#[derive(Clone)]
pub struct Subject {
    /// Its name in the report.
    pub name: &'static str,
    /// The command that starts it (the transport flag is appended).
    pub command: Vec<String>,
    /// Whether it implements the two-round tool (the ceiling does not).
    pub rounds: bool,
    /// Environment variables it runs with.
    pub env: Vec<(&'static str, String)>,
    /// Whether it is measured over stdio too (the body-parsing ceiling is HTTP's alone).
    pub stdio: bool,
}

fn subjects(options: &Options, collector: &str) -> Vec<Subject> {
    let bin = |name: &str| format!("target/release/{name}");
    let subject = |name, command: Vec<String>, rounds| Subject { name, command, rounds, env: Vec::new(), stdio: true };
    let baseline = options.baseline.as_ref().map(|path| subject(BASELINE, vec![path.display().to_string()], true));
    baseline
        .into_iter()
        .chain([
            subject("mcp-rounds", vec![bin("rounds-server")], true),
            Subject { env: exporting(collector, None), ..subject(OTEL, vec![bin("rounds-server")], true) },
            Subject {
                env: exporting(collector, Some("0.01")),
                ..subject(OTEL_SAMPLED, vec![bin("rounds-server")], true)
            },
            subject("rmcp", vec![bin("rmcp-server")], true),
            subject("Python SDK", vec![options.python.display().to_string(), "python/server.py".into()], true),
            subject("ceiling", vec![bin("ceiling-server")], false),
            Subject {
                stdio: false,
                ..subject(CEILING_PARSING, vec![bin("ceiling-server"), "--parse-body".into()], false)
            },
        ])
        .collect()
}

/// The environment that makes the mcp-rounds server export to `collector`, sampling `ratio`
/// of the requests (`None`: the default sampler, every request).
fn exporting(collector: &str, ratio: Option<&str>) -> Vec<(&'static str, String)> {
    let mut env = vec![("OTEL_EXPORTER_OTLP_ENDPOINT", collector.to_owned()), ("OTEL_SERVICE_NAME", "bench".into())];
    if let Some(ratio) = ratio {
        env.push(("OTEL_TRACES_SAMPLER", "parentbased_traceidratio".into()));
        env.push(("OTEL_TRACES_SAMPLER_ARG", ratio.into()));
    }
    env
}

/// How `other` is set against mcp-rounds in a table of ratios: a build of our own (baseline,
/// exporting) over ours, ours over anyone else's. The label, and whether ours is on top.
pub fn against_ours(other: &str) -> (String, bool) {
    if other.starts_with("mcp-rounds") {
        (format!("{other} ÷ mcp-rounds"), false)
    } else {
        (format!("mcp-rounds ÷ {other}"), true)
    }
}

/// Turns each of the telemetry's CPU measurement's two servers takes ([`stdio::cpu_cost`]).
const TELEMETRY_STRETCHES: usize = 40;

/// The report name of the mcp-rounds server exporting every request's spans over OTLP.
pub const OTEL: &str = "mcp-rounds + OTLP";
/// The report name of the mcp-rounds server exporting 1% of the requests' spans over OTLP.
pub const OTEL_SAMPLED: &str = "mcp-rounds + OTLP 1%";

/// The report name of the HTTP ceiling that reads and parses each body and answers with its
/// id, as the stdio ceiling does: the fair bound for a server that must read the request.
pub const CEILING_PARSING: &str = "ceiling (parsing body)";

/// The report name of the `--baseline` build.
pub const BASELINE: &str = "mcp-rounds baseline";

/// Measures each of `count` subjects `runs` times and keeps, for each, the run `by` puts in the
/// middle, with every run's `by` in the order they were taken. The subjects take turns, each
/// run starting one further along, so that the machine drifting during the run, or the
/// advantage of going first, falls on all of them alike: their ratios are what the report is
/// for, and [`paired`] reads them run by run.
/// `settle` runs after each turn, so that what a server still does after its turn (exporting
/// the telemetry it queued) is not counted against the next one.
pub fn interleaved<T>(
    count: usize,
    runs: usize,
    by: impl Fn(&T) -> f64,
    settle: &dyn Fn(),
    mut measure: impl FnMut(usize) -> T,
) -> Vec<(T, Vec<f64>)> {
    let mut tries: Vec<Vec<T>> = (0..count).map(|_| Vec::with_capacity(runs)).collect();
    for run in 0..runs {
        for turn in 0..count {
            let subject = (run + turn) % count;
            let measured = measure(subject);
            eprintln!("  run {run}, subject {subject}: {:.0}", by(&measured));
            tries[subject].push(measured);
            settle();
        }
    }
    tries
        .into_iter()
        .map(|mut runs| {
            let each = runs.iter().map(&by).collect();
            runs.sort_by(|a, b| by(a).total_cmp(&by(b)));
            (runs.swap_remove(runs.len() / 2), each)
        })
        .collect()
}

/// The median, over the runs, of `a`'s figure divided by `b`'s in the same run: two subjects
/// measured within moments of each other share whatever the machine was doing then, which
/// the ratio of two medians (each taken at another moment) does not.
pub fn paired(a: &[f64], b: &[f64]) -> f64 {
    let mut ratios: Vec<f64> = a.iter().zip(b).filter(|(_, b)| **b > 0.0).map(|(a, b)| a / b).collect();
    if ratios.is_empty() {
        return f64::NAN;
    }
    ratios.sort_by(f64::total_cmp);
    let middle = ratios.len() / 2;
    if ratios.len() % 2 == 1 { ratios[middle] } else { (ratios[middle - 1] + ratios[middle]) / 2.0 }
}

fn main() {
    let options = Options::parse();
    let collector = collector::Collector::start();
    let subjects: Vec<Subject> = subjects(&options, &collector.endpoint())
        .into_iter()
        .filter(|s| options.only.is_empty() || options.only.iter().any(|o| o == s.name))
        .collect();
    let clients: Vec<clients::Subject> = clients::subjects(&options.python)
        .into_iter()
        .filter(|c| options.only.is_empty() || options.only.iter().any(|o| *o == clients::ONLY || *o == c.only_name()))
        .filter(|_| !options.skip_clients)
        .collect();
    let mut report = report::Report::new(&options);

    let settle = || collector.wait_quiet();
    let over_stdio: Vec<Subject> = subjects.iter().filter(|s| s.stdio).cloned().collect();
    // `--only` naming client rows alone measures no server.
    let servers = !subjects.is_empty();
    if servers && !options.skip_stdio {
        report.stdio = stdio::measure_all(&over_stdio, options.duration(), options.runs.max(1), &settle);
    }
    if !options.skip_stdio
        && let (Some(plain), Some(observed)) =
            (over_stdio.iter().find(|s| s.name == "mcp-rounds"), over_stdio.iter().find(|s| s.name == OTEL_SAMPLED))
    {
        eprintln!("stdio: what telemetry costs in CPU time, in {TELEMETRY_STRETCHES} stretches each");
        report.telemetry_cpu =
            Some(stdio::cpu_cost(plain, observed, TELEMETRY_STRETCHES, &|| collector.received().requests));
    }
    if servers && !options.skip_http {
        report.http = http::measure_all(&subjects, options.duration(), options.runs.max(1), &settle);
    }
    if !clients.is_empty() {
        report.clients = clients::measure_all(&clients, options.duration(), options.runs.max(1));
    }
    if !options.skip_instructions && (servers || !clients.is_empty()) {
        if instructions::available() {
            if servers {
                report.instructions = instructions::measure_all(&subjects);
            }
            clients::count_instructions(&clients, &mut report.clients);
        } else {
            eprintln!("instructions: valgrind is not installed, skipped");
        }
    }
    if !options.skip_build_cost {
        eprintln!("build cost");
        report.build = Some(build_cost::measure());
    }
    report.exported = collector.received();
    let text = report.render();
    std::fs::write(&options.out, &text).unwrap_or_else(|e| panic!("cannot write {}: {e}", options.out.display()));
    println!("{text}");
}
