//! Measures the benchmark server written with mcp-rounds, rmcp and the Python SDK, and the
//! ceiling, in one run on one machine, and writes `docs/benchmarks.md`.
//!
//! Run it through `bench/run` (which builds everything first).

mod build_cost;
mod http;
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
    /// Skip the HTTP measurements.
    #[arg(long)]
    skip_http: bool,
    /// Measure only these servers (by report name), e.g. for profiling.
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
}

fn subjects(options: &Options) -> Vec<Subject> {
    let bin = |name: &str| format!("target/release/{name}");
    let baseline = options.baseline.as_ref().map(|path| Subject {
        name: BASELINE,
        command: vec![path.display().to_string()],
        rounds: true,
    });
    baseline.into_iter().chain([
        Subject { name: "mcp-rounds", command: vec![bin("rounds-server")], rounds: true },
        Subject { name: "rmcp", command: vec![bin("rmcp-server")], rounds: true },
        Subject {
            name: "Python SDK",
            command: vec![options.python.display().to_string(), "python/server.py".into()],
            rounds: true,
        },
        Subject { name: "ceiling", command: vec![bin("ceiling-server")], rounds: false },
    ])
    .collect()
}

/// The report name of the `--baseline` build.
pub const BASELINE: &str = "mcp-rounds baseline";

fn main() {
    let options = Options::parse();
    let subjects: Vec<Subject> = subjects(&options)
        .into_iter()
        .filter(|s| options.only.is_empty() || options.only.iter().any(|o| o == s.name))
        .collect();
    let mut report = report::Report::new(&options);

    for subject in &subjects {
        eprintln!("stdio: {}", subject.name);
        report.stdio.push(stdio::measure(subject, options.duration(), options.runs.max(1)));
    }
    for subject in subjects.iter().filter(|_| !options.skip_http) {
        eprintln!("http: {}", subject.name);
        report.http.push(http::measure(subject, options.duration(), options.runs.max(1)));
    }
    if !options.skip_build_cost {
        eprintln!("build cost");
        report.build = Some(build_cost::measure());
    }
    let text = report.render();
    std::fs::write(&options.out, &text).unwrap_or_else(|e| panic!("cannot write {}: {e}", options.out.display()));
    println!("{text}");
}
