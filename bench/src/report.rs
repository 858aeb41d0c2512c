//! `docs/benchmarks.md`: the figures, the ratios against each peer and the ceiling, the
//! machine, and the command that reproduces them.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Duration;

use crate::Options;
use crate::build_cost::BuildCost;
use crate::http::HttpResult;
use crate::stdio::{StdioResult, WINDOW};

/// Everything measured in one run.
pub struct Report {
    seconds: f64,
    runs: usize,
    pub stdio: Vec<StdioResult>,
    pub http: Vec<HttpResult>,
    pub build: Option<Vec<BuildCost>>,
    /// Instructions per request, when counted.
    pub instructions: Vec<crate::instructions::Counted>,
    /// What the stand-in collector received from the OTLP row.
    pub exported: crate::collector::Exported,
    /// The CPU time telemetry costs over stdio, measured side by side.
    pub telemetry_cpu: Option<crate::stdio::CpuCost>,
    /// The clients driving the mcp-rounds server.
    pub clients: Vec<crate::clients::ClientResult>,
}

fn first_line(command: &str, args: &[&str]) -> String {
    Command::new(command)
        .args(args)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(if o.stdout.is_empty() { &o.stderr } else { &o.stdout }).trim().to_owned())
        .and_then(|s| s.lines().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model =
        cpuinfo.lines().find_map(|l| l.strip_prefix("model name")).map(|m| m.trim_start_matches([' ', '\t', ':']));
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or("unknown".into(), |kib| format!("{:.1} GiB", kib as f64 / 1024.0 / 1024.0));
    format!(
        "- CPU: {} ({cores} cores available)\n- memory: {memory}\n- OS: {}\n- Rust: {}\n- Python: {}\n",
        model.unwrap_or("unknown"),
        first_line("uname", &["-sr"]),
        first_line("rustc", &["--version"]),
        first_line("python3", &["--version"]),
    )
}

/// `a` ÷ `b`, run by run ([`crate::paired`]).
fn ratio(a: &[f64], b: &[f64]) -> String {
    let paired = crate::paired(a, b);
    if paired.is_finite() && paired > 0.0 { format!("{paired:.2}×") } else { "–".into() }
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

impl Report {
    pub fn new(options: &Options) -> Self {
        Report {
            seconds: options.seconds,
            runs: options.runs.max(1),
            stdio: Vec::new(),
            http: Vec::new(),
            build: None,
            instructions: Vec::new(),
            exported: Default::default(),
            telemetry_cpu: None,
            clients: Vec::new(),
        }
    }

    fn stdio_of(&self, name: &str) -> Option<&StdioResult> {
        self.stdio.iter().find(|r| r.name == name)
    }

    fn http_of(&self, name: &str) -> Option<&HttpResult> {
        self.http.iter().find(|r| r.name == name)
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# Benchmarks\n");
        let _ = writeln!(
            out,
            "The same small server (an `echo` tool and a two-round `confirm_echo` tool that asks a form \
             first) written with mcp-rounds, with rmcp 3.11 and with the Python SDK (`mcp` 2.3.0), measured \
             in one run on one machine, next to the ceiling: a loop that only parses each message and writes \
             a fixed answer (stdio), and over HTTP a bare axum handler returning a fixed body without reading \
             the request, and one that reads and parses the body and answers with its id (\"ceiling (parsing \
             body)\", the same work as the stdio ceiling). Every server \
             speaks protocol 2026-07-28 without a handshake; every answer is checked. Each figure is the \
             median of {} runs of {} s, each on a freshly started server after a warm-up, the servers taking \
             turns (each run starts with the next one), so that the machine drifting, and what one process \
             happens to get, affect them alike; a ratio is the median of the \
             ratios within each run. Higher is better except for latency and memory. The load generator \
             runs on the same machine as the server.\n",
            self.runs, self.seconds
        );
        if !self.clients.is_empty() {
            let _ = writeln!(
                out,
                "The section \"Clients\" turns it around: the mcp-rounds server driven by mcp-rounds' client, \
                 rmcp's and the Python SDK's.\n"
            );
        }
        let _ = writeln!(out, "Produced by `bench/run` (see `bench/README.md`) on:\n\n{}", machine());
        let baseline = self
            .stdio
            .iter()
            .map(|r| r.name)
            .chain(self.http.iter().map(|r| r.name))
            .any(|name| name == crate::BASELINE)
            || self.instructions.iter().any(|c| c.name == crate::BASELINE);
        if baseline {
            let _ = writeln!(
                out,
                "\"{}\" is another build of the mcp-rounds server given to this run (`--baseline`), \
                 typically the commit before a change, measured beside it.\n",
                crate::BASELINE
            );
        }

        if !self.stdio.is_empty() {
            self.render_stdio(&mut out);
        }
        if !self.http.is_empty() {
            self.render_http(&mut out);
        }

        let _ = writeln!(out);
        crate::cpu::render(&mut out, &self.cpu_rows());
        crate::instructions::render(&mut out, &self.instructions);
        crate::clients::render(&mut out, &self.clients);

        if let Some(rows) = self.telemetry_rows() {
            let _ = writeln!(out, "## Telemetry\n");
            let _ = writeln!(
                out,
                "The same mcp-rounds server exporting its telemetry over OTLP/HTTP to a stand-in collector on \
                 loopback (which received {} export requests, {:.1} MiB, during the run): spans and metrics with \
                 `OTEL_EXPORTER_OTLP_ENDPOINT` set and every other `OTEL_*` variable at its default (every request \
                 sampled), and with 1% of the traces sampled (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`, \
                 `OTEL_TRACES_SAMPLER_ARG=0.01`) as a busy production server would run; metrics are recorded for \
                 every request either way.\n",
                self.exported.requests,
                self.exported.bytes as f64 / 1024.0 / 1024.0
            );
            let _ =
                writeln!(out, "| echo row | mcp-rounds | + OTLP, 1% sampled | ratio | + OTLP, all sampled | ratio |");
            let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
            for row in rows {
                let _ = writeln!(
                    out,
                    "| {} | {:.0} | {:.0} | {} | {} | {} |",
                    row.label,
                    row.plain.0,
                    row.sampled.0,
                    ratio(row.sampled.1, row.plain.1),
                    row.all.map_or("–".into(), |all| format!("{:.0}", all.0)),
                    row.all.map_or("–".into(), |all| ratio(all.1, row.plain.1))
                );
            }
            if let Some(cost) = &self.telemetry_cpu {
                cost.render(&mut out, ("mcp-rounds", crate::OTEL_SAMPLED));
            }
        }

        if let Some(build) = &self.build {
            let _ = writeln!(out, "\n## Build cost\n");
            let _ = writeln!(
                out,
                "A 20-tool stdio server (each tool takes three arguments), dev profile, with the same dependency \
                 versions: built from an empty target directory, then again after editing one tool's body.\n"
            );
            let _ = writeln!(out, "| framework | clean build s | incremental build s |");
            let _ = writeln!(out, "|---|---:|---:|");
            for b in build {
                let _ =
                    writeln!(out, "| {} | {:.1} | {:.2} |", b.name, b.clean.as_secs_f64(), b.incremental.as_secs_f64());
            }
        }

        let _ = writeln!(out, "\n## Targets\n");
        for line in self.targets() {
            let _ = writeln!(out, "- {line}");
        }
        out
    }

    /// The stdio section.
    fn render_stdio(&self, out: &mut String) {
        let _ = writeln!(out, "## stdio\n");
        let _ = writeln!(
            out,
            "| server | `tools/call` per s, one at a time | `tools/call` per s, {WINDOW} in flight | two-round exchanges per s |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|");
        for r in &self.stdio {
            let rounds = r.rounds.map_or("n/a".into(), |v| format!("{v:.0}"));
            let _ = writeln!(out, "| {} | {:.0} | {:.0} | {rounds} |", r.name, r.sequential, r.pipelined);
        }
        if let Some(ours) = self.stdio_of("mcp-rounds") {
            let _ = writeln!(out);
            let _ = writeln!(out, "| ratio | one at a time | in flight | two-round |");
            let _ = writeln!(out, "|---|---:|---:|---:|");
            for peer in [crate::BASELINE, "rmcp", "Python SDK"] {
                if let Some(p) = self.stdio_of(peer) {
                    let _ = writeln!(
                        out,
                        "| mcp-rounds ÷ {peer} | {} | {} | {} |",
                        ratio(&ours.runs.sequential, &p.runs.sequential),
                        ratio(&ours.runs.pipelined, &p.runs.pipelined),
                        ratio(&ours.runs.rounds, &p.runs.rounds)
                    );
                }
            }
            if let Some(c) = self.stdio_of("ceiling") {
                let _ = writeln!(
                    out,
                    "| ceiling ÷ mcp-rounds | {} | {} | – |",
                    ratio(&c.runs.sequential, &ours.runs.sequential),
                    ratio(&c.runs.pipelined, &ours.runs.pipelined)
                );
            }
        }
    }

    /// The Streamable HTTP section, with each server's peak memory.
    fn render_http(&self, out: &mut String) {
        let _ = writeln!(out, "\n## Streamable HTTP\n");
        let _ = writeln!(
            out,
            "`tools/call` of `echo` over keep-alive connections, each sending its next call when the last is answered.\n"
        );
        let _ = writeln!(out, "| server | connections | requests per s | p50 ms | p99 ms | p99.9 ms |");
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
        for r in &self.http {
            for level in &r.levels {
                let _ = writeln!(
                    out,
                    "| {} | {} | {:.0} | {} | {} | {} |",
                    r.name,
                    level.connections,
                    level.rps,
                    ms(level.p50),
                    ms(level.p99),
                    ms(level.p999)
                );
            }
        }
        if let Some(ours) = self.http_of("mcp-rounds") {
            let _ = writeln!(
                out,
                "\n| ratio of requests per s | {} |",
                crate::http::CONNECTIONS.map(|c| format!("{c} conn.")).join(" | ")
            );
            let _ = writeln!(out, "|---|{}", "---:|".repeat(crate::http::CONNECTIONS.len()));
            let row = |label: String, f: &dyn Fn(usize) -> String| {
                let cells: Vec<String> = (0..crate::http::CONNECTIONS.len()).map(f).collect();
                format!("| {label} | {} |", cells.join(" | "))
            };
            for peer in [crate::BASELINE, "rmcp", "Python SDK"] {
                if let Some(p) = self.http_of(peer) {
                    let _ = writeln!(
                        out,
                        "{}",
                        row(format!("mcp-rounds ÷ {peer}"), &|i| ratio(&ours.levels[i].runs, &p.levels[i].runs))
                    );
                }
            }
            for ceiling in ["ceiling", crate::CEILING_PARSING] {
                if let Some(c) = self.http_of(ceiling) {
                    let _ = writeln!(
                        out,
                        "{}",
                        row(format!("{ceiling} ÷ mcp-rounds"), &|i| ratio(&c.levels[i].runs, &ours.levels[i].runs))
                    );
                }
            }
            if let Some(c) = self.http_of("ceiling") {
                let _ = writeln!(
                    out,
                    "{}",
                    row("p99: mcp-rounds ÷ ceiling".into(), &|i| ratio(
                        &ours.levels[i].p99_runs,
                        &c.levels[i].p99_runs
                    ))
                );
            }
        }
        let _ = writeln!(
            out,
            "\nPeak resident memory of each server (the most any of its processes reached in the HTTP runs):\n"
        );
        let _ = writeln!(out, "| server | peak memory |");
        let _ = writeln!(out, "|---|---:|");
        for r in &self.http {
            let _ = writeln!(out, "| {} | {:.1} MiB |", r.name, r.peak_rss_kib as f64 / 1024.0);
        }
    }

    /// The echo rows without OTLP export, with 1% sampled and with every request sampled.
    /// Every server's CPU time per call in each row it was measured in over both
    /// transports (the HTTP-only ceiling is left out).
    fn cpu_rows(&self) -> Vec<crate::cpu::Rows<'_>> {
        if self.stdio.is_empty() {
            return self
                .http
                .iter()
                .map(|http| crate::cpu::Rows {
                    name: http.name,
                    rows: http
                        .levels
                        .iter()
                        .map(|l| (format!("HTTP, {} conn.", l.connections), &l.cpu_runs[..]))
                        .collect(),
                })
                .collect();
        }
        self.stdio
            .iter()
            .filter_map(|stdio| {
                let mut rows = vec![
                    ("stdio, one at a time".to_owned(), &stdio.runs.sequential_cpu[..]),
                    (format!("stdio, {WINDOW} in flight"), &stdio.runs.pipelined_cpu[..]),
                    ("stdio, two-round".to_owned(), &stdio.runs.rounds_cpu[..]),
                ];
                if let Some(http) = self.http_of(stdio.name) {
                    rows.extend(
                        http.levels.iter().map(|l| (format!("HTTP, {} conn.", l.connections), &l.cpu_runs[..])),
                    );
                } else if !self.http.is_empty() {
                    return None;
                }
                Some(crate::cpu::Rows { name: stdio.name, rows })
            })
            .collect()
    }

    fn telemetry_rows(&self) -> Option<Vec<TelemetryRow<'_>>> {
        let mut rows = Vec::new();
        let stdio = (self.stdio_of("mcp-rounds"), self.stdio_of(crate::OTEL_SAMPLED), self.stdio_of(crate::OTEL));
        if let (Some(plain), Some(sampled), all) = stdio {
            rows.push(TelemetryRow {
                label: "stdio, one at a time".to_owned(),
                plain: (plain.sequential, &plain.runs.sequential),
                sampled: (sampled.sequential, &sampled.runs.sequential),
                all: all.map(|all| (all.sequential, &all.runs.sequential[..])),
            });
            rows.push(TelemetryRow {
                label: format!("stdio, {WINDOW} in flight"),
                plain: (plain.pipelined, &plain.runs.pipelined),
                sampled: (sampled.pipelined, &sampled.runs.pipelined),
                all: all.map(|all| (all.pipelined, &all.runs.pipelined[..])),
            });
        }
        let http = (self.http_of("mcp-rounds"), self.http_of(crate::OTEL_SAMPLED), self.http_of(crate::OTEL));
        if let (Some(plain), Some(sampled), all) = http {
            for (i, (a, b)) in plain.levels.iter().zip(&sampled.levels).enumerate() {
                let c = all.and_then(|all| all.levels.get(i));
                rows.push(TelemetryRow {
                    label: format!("HTTP, {} connections", a.connections),
                    plain: (a.rps, &a.runs),
                    sampled: (b.rps, &b.runs),
                    all: c.map(|c| (c.rps, &c.runs[..])),
                });
            }
        }
        (!rows.is_empty()).then_some(rows)
    }

    /// Each target of the benchmark issue, met or not, from the figures above.
    fn targets(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let verdict = |ok: bool| if ok { "met" } else { "**missed**" };
        if let Some((ok, ratios)) = crate::clients::target(&self.clients) {
            lines.push(format!(
                "mcp-rounds' client at least as fast as rmcp's at every load, paired per run ({ratios}): {}",
                verdict(ok)
            ));
        }
        if let (Some(ours), Some(rmcp)) = (self.stdio_of("mcp-rounds"), self.stdio_of("rmcp")) {
            let ok = ours.sequential > rmcp.sequential
                && ours.pipelined > rmcp.pipelined
                && ours.rounds.unwrap_or(0.0) > rmcp.rounds.unwrap_or(0.0);
            lines.push(format!("ahead of rmcp on every stdio row: {}", verdict(ok)));
        }
        if let (Some(ours), Some(rmcp)) = (self.http_of("mcp-rounds"), self.http_of("rmcp")) {
            let ok = ours.levels.iter().zip(&rmcp.levels).all(|(a, b)| a.rps > b.rps);
            lines.push(format!("ahead of rmcp on every HTTP row: {}", verdict(ok)));
        }
        if let (Some(ours), Some(c)) = (self.stdio_of("mcp-rounds"), self.stdio_of("ceiling")) {
            let one = crate::paired(&c.runs.sequential, &ours.runs.sequential);
            lines
                .push(format!("stdio one at a time within 1.15× of the ceiling ({one:.2}×): {}", verdict(one <= 1.15)));
            let worst = one.max(crate::paired(&c.runs.pipelined, &ours.runs.pipelined));
            lines.push(format!("within 1.3× of the stdio ceiling (worst {worst:.2}×): {}", verdict(worst <= 1.3)));
        }
        if let (Some(ours), Some(c)) = (self.http_of("mcp-rounds"), self.http_of(crate::CEILING_PARSING)) {
            let worst =
                ours.levels.iter().zip(&c.levels).map(|(a, b)| crate::paired(&b.runs, &a.runs)).fold(0.0, f64::max);
            lines.push(format!(
                "HTTP requests per s within 1.2× of the body-parsing ceiling at every level (worst {worst:.2}×): {}",
                verdict(worst <= 1.2)
            ));
        }
        if let (Some(ours), Some(c)) = (self.http_of("mcp-rounds"), self.http_of("ceiling")) {
            let worst =
                ours.levels.iter().zip(&c.levels).map(|(a, b)| crate::paired(&b.runs, &a.runs)).fold(0.0, f64::max);
            lines.push(format!("within 1.3× of the bare HTTP ceiling (worst {worst:.2}×): {}", verdict(worst <= 1.3)));
            if let (Some(a), Some(b)) = (ours.levels.last(), c.levels.last()) {
                let tail = crate::paired(&a.p99_runs, &b.p99_runs);
                lines.push(format!(
                    "p99 at {} connections within 1.5× of the bare ceiling's ({tail:.2}×): {}",
                    a.connections,
                    verdict(tail <= 1.5)
                ));
            }
        }
        if let Some(rows) = self.telemetry_rows() {
            let worst = rows.iter().map(|row| 1.0 - crate::paired(row.sampled.1, row.plain.1)).fold(f64::MIN, f64::max);
            let wall_clock = format!("wall-clock echo rows, paired per run: worst {:.1}%", worst * 100.0);
            let counted = crate::instructions::telemetry_overhead(&self.instructions);
            let instructions = counted.map_or_else(String::new, |(stdio, http)| {
                format!("; instructions: {:+.2}% over stdio, {:+.2}% over HTTP", stdio * 100.0, http * 100.0)
            });
            // The wall-clock rows, a few runs each on a shared machine, do not resolve a few
            // percent. The instruction count does, but a call's added instructions miss the
            // instruction cache more than the rest: the CPU time measured side by side is the
            // measure, when there is one.
            match &self.telemetry_cpu {
                Some(cost) => {
                    let [one, in_flight] = cost.overheads();
                    lines.push(format!(
                        "OTLP export (1% of traces sampled, every request in the metrics) costs an echo call at most \
                         5% of the server's CPU time: {:+.1}% one at a time, {:+.1}% with {WINDOW} in flight over \
                         stdio, side by side ({wall_clock}{instructions}): {}",
                        one * 100.0,
                        in_flight * 100.0,
                        verdict(one.max(in_flight) <= 0.05)
                    ))
                }
                None if let Some((stdio, http)) = counted => lines.push(format!(
                    "OTLP export (1% of traces sampled, every request in the metrics) costs an echo call at most \
                         5% of its instructions ({wall_clock}{instructions}): {}",
                    verdict(stdio.max(http) <= 0.05)
                )),
                None => lines.push(format!(
                    "OTLP export (1% of traces sampled, every request in the metrics) costs the echo rows at most \
                     5% ({wall_clock}): {}",
                    verdict(worst <= 0.05)
                )),
            }
        }
        if let Some(build) = &self.build
            && let (Some(ours), Some(rmcp)) =
                (build.iter().find(|b| b.name == "twenty-rounds"), build.iter().find(|b| b.name == "twenty-rmcp"))
        {
            lines.push(format!(
                "incremental build no slower than rmcp ({:.2} s vs {:.2} s): {}",
                ours.incremental.as_secs_f64(),
                rmcp.incremental.as_secs_f64(),
                verdict(ours.incremental <= rmcp.incremental)
            ));
        }
        lines
    }
}

/// One echo row of the telemetry table: each server's median and runs.
struct TelemetryRow<'a> {
    label: String,
    plain: (f64, &'a [f64]),
    sampled: (f64, &'a [f64]),
    /// Absent when that server was not measured.
    all: Option<(f64, &'a [f64])>,
}
