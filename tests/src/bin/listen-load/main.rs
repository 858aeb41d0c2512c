//! Scale on one instance: holds ever more idle `subscriptions/listen` streams open over
//! Streamable HTTP against one server and, at each count, reports the server's memory per
//! idle stream (its resident memory with the streams open, less without, per stream), how
//! long one change takes to reach every stream (per stream, from sending the change to the
//! stream receiving it, over several changes), the server's CPU time per notification
//! delivered, and the `tools/call` latency with the streams open next to none; then how long
//! a server takes from being spawned to its first answer, over stdio and over HTTP. Measuring
//! one instance at each count, rather than a fresh one, is the point: what a server holds for
//! its streams, and whether its calls slow down, shows only while they stay open.
//!
//! `listen-load --server PATH [--notes-server PATH] [--streams N[,N...]] [--calls N]
//! [--changes N] [--starts N]`; run it through `scripts/listen-load`, which raises the limit
//! on open files that this many sockets need.

mod cold_start;
mod streams;

use std::time::{Duration, Instant};

use cold_start::{Program, Transport};
use mcp_rounds_tests::http::{HttpProcess, post_mcp};
use mcp_rounds_tests::notes::NotesData;
use mcp_rounds_tests::request;
use serde_json::{Value, json};
use streams::Streams;

const USAGE: &str = "usage: listen-load --server PATH [--notes-server PATH] [--streams N[,N...]] [--calls N] \
                     [--changes N] [--starts N]";

struct Options {
    server: String,
    notes_server: Option<String>,
    /// Stream counts to measure at, in increasing order, on the same server.
    streams: Vec<usize>,
    calls: usize,
    changes: usize,
    starts: usize,
}

fn options() -> Options {
    let mut options = Options {
        server: String::new(),
        notes_server: None,
        streams: vec![1000, 10_000],
        calls: 2000,
        changes: 10,
        starts: 20,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value; {USAGE}"));
        let number =
            |text: String| text.parse::<usize>().unwrap_or_else(|_| panic!("{text:?} is not a count; {USAGE}"));
        match arg.as_str() {
            "--server" => options.server = value(),
            "--notes-server" => options.notes_server = Some(value()),
            "--streams" => options.streams = value().split(',').map(|n| number(n.to_owned())).collect(),
            "--calls" => options.calls = number(value()),
            "--changes" => options.changes = number(value()),
            "--starts" => options.starts = number(value()),
            other => panic!("unknown argument {other}; {USAGE}"),
        }
    }
    assert!(!options.server.is_empty(), "--server PATH is required; {USAGE}");
    assert!(options.streams.windows(2).all(|w| w[0] < w[1]), "--streams counts go up; {USAGE}");
    assert!(options.streams.first().is_some_and(|n| *n > 0), "--streams needs a count above 0");
    assert!(options.calls >= 100, "--calls needs at least 100 for a p99");
    options
}

fn post(address: &str, message: &Value) -> Value {
    let response = post_mcp(address, None, message);
    assert_eq!(response.status, 200, "{}", String::from_utf8_lossy(&response.body));
    response.json()
}

/// A line of `/proc/<pid>/status` or `/proc/self/limits`, as a number.
fn proc_number(file: &str, prefix: &str, field: usize) -> u64 {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {file}: {e}"));
    text.lines()
        .find_map(|line| line.strip_prefix(prefix))
        .and_then(|rest| rest.split_whitespace().nth(field))
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no {prefix} in {file}"))
}

/// Resident memory of a process in KiB.
fn rss_kib(pid: u32) -> u64 {
    proc_number(&format!("/proc/{pid}/status"), "VmRSS:", 0)
}

/// CPU time a process has used so far, all its threads, user and kernel.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc stat");
    // After the command's name, which may hold spaces: utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')').expect("a stat line").1.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    // The kernel counts these in USER_HZ, 100 per second on Linux.
    Duration::from_millis(ticks * 10)
}

/// Both ends hold a socket per stream, and the server inherits this process's limit.
fn check_open_files(streams: usize) {
    let limit = proc_number("/proc/self/limits", "Max open files", 0);
    let needed = streams as u64 + 64;
    assert!(limit >= needed, "{streams} streams need about {needed} open files; the limit is {limit}");
}

/// The sample at quantile `q` (nearest rank) of sorted samples.
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

struct Latency {
    p50: Duration,
    p99: Duration,
}

fn call_latency(address: &str, calls: usize) -> Latency {
    let mut samples = Vec::with_capacity(calls);
    for i in 0..calls {
        let message = request(json!(i), "tools/call", json!({"name": "add", "arguments": {"a": i, "b": 1}}));
        let started = Instant::now();
        let answer = post(address, &message);
        samples.push(started.elapsed());
        assert_eq!(answer["result"]["structuredContent"]["sum"], json!((i + 1) as f64), "{answer}");
    }
    samples.sort();
    Latency { p50: quantile(&samples, 0.5), p99: quantile(&samples, 0.99) }
}

/// What was measured with `streams` streams open.
struct Level {
    streams: usize,
    /// Opening time per stream, acknowledgement included.
    opening: Duration,
    rss_kib: u64,
    calls: Latency,
    /// From sending the change to each stream receiving it, over every change.
    fan_out: Vec<Duration>,
    /// How long the announcing call took to be answered.
    announce: Vec<Duration>,
    /// The server's CPU time over all the changes, per notification delivered.
    cpu_per_delivery: Duration,
}

fn listeners(address: &str) -> usize {
    let answer = post(address, &request(json!("count"), "tools/call", json!({"name": "listeners"})));
    answer["result"]["content"][0]["text"].as_str().and_then(|t| t.parse().ok()).expect("a count of listeners")
}

fn measure_level(
    address: &str,
    pid: u32,
    runtime: &tokio::runtime::Runtime,
    streams: &mut Streams,
    count: usize,
    options: &Options,
) -> Level {
    let already = streams.len();
    let started = Instant::now();
    streams.open_up_to(runtime, count, Duration::from_secs(300));
    let opening = started.elapsed() / (count - already) as u32;
    // Every stream is counted by the server once acknowledged.
    assert_eq!(listeners(address), count, "every stream is open");
    let rss_kib = rss_kib(pid);
    let calls = call_latency(address, options.calls);
    let mut fan_out = Vec::with_capacity(count * options.changes);
    let mut announce = Vec::with_capacity(options.changes);
    let change = request(json!("announce"), "tools/call", json!({"name": "announce", "arguments": {"kind": "tools"}}));
    let cpu_before = cpu_time(pid);
    for _ in 0..options.changes {
        let sent = Instant::now();
        let answer = post(address, &change);
        announce.push(sent.elapsed());
        assert_eq!(answer["result"]["content"][0]["text"], "announced tools", "{answer}");
        let arrivals = streams.arrivals(runtime, Duration::from_secs(120));
        fan_out.extend(arrivals.iter().map(|at| at.saturating_duration_since(sent)));
    }
    let cpu_per_delivery = (cpu_time(pid) - cpu_before) / (count * options.changes) as u32;
    fan_out.sort();
    announce.sort();
    Level { streams: count, opening, rss_kib, calls, fan_out, announce, cpu_per_delivery }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn report_streams(options: &Options, quiet: &Latency, rss_before: u64, levels: &[Level]) {
    println!("Server RSS with no stream open: {rss_before} KiB.");
    println!();
    println!(
        "| open streams | opening, µs per stream | server RSS, MiB | per idle stream, KiB | fan-out p50, ms | \
         p99, ms | max, ms | change answered, p50 ms | server CPU per delivery, µs | `tools/call` p50, µs | p99, µs |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| 0 | – | {:.1} | – | – | – | – | – | – | {:.0} | {:.0} |",
        rss_before as f64 / 1024.0,
        micros(quiet.p50),
        micros(quiet.p99)
    );
    for level in levels {
        let per_stream = level.rss_kib.saturating_sub(rss_before) as f64 / level.streams as f64;
        println!(
            "| {} | {:.0} | {:.1} | {:.2} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1} | {:.0} | {:.0} |",
            level.streams,
            micros(level.opening),
            level.rss_kib as f64 / 1024.0,
            per_stream,
            ms(quantile(&level.fan_out, 0.5)),
            ms(quantile(&level.fan_out, 0.99)),
            ms(*level.fan_out.last().expect("samples")),
            ms(quantile(&level.announce, 0.5)),
            micros(level.cpu_per_delivery),
            micros(level.calls.p50),
            micros(level.calls.p99),
        );
    }
    println!();
    println!(
        "Fan-out over {} changes per row ({} samples at {} streams); `tools/call` over {} calls, one at a time, \
         a connection each.",
        options.changes,
        options.changes * levels.last().map_or(0, |l| l.streams),
        levels.last().map_or(0, |l| l.streams),
        options.calls
    );
}

fn report_starts(starts: usize, measured: &[(String, Transport, Vec<Duration>)]) {
    println!();
    println!("Cold start to the first answer (`server/discover`), {starts} starts each:");
    println!();
    println!("| server | transport | median, ms | p90, ms | max, ms |");
    println!("|---|---|---:|---:|---:|");
    for (label, transport, times) in measured {
        let mut sorted = times.clone();
        sorted.sort();
        let transport = match transport {
            Transport::Stdio => "stdio",
            Transport::Http => "HTTP",
        };
        println!(
            "| {label} | {transport} | {:.1} | {:.1} | {:.1} |",
            ms(quantile(&sorted, 0.5)),
            ms(quantile(&sorted, 0.9)),
            ms(*sorted.last().expect("samples"))
        );
    }
}

fn cold_starts(options: &Options) -> Vec<(String, Transport, Vec<Duration>)> {
    let mut programs =
        vec![Program { label: "fixture-server".into(), path: options.server.clone(), args: Vec::new(), token: None }];
    // Removed when dropped.
    let data = NotesData::new("listen-load");
    if let Some(path) = &options.notes_server {
        // Seeded first: only starts on a seeded directory count.
        data.seed(path.as_ref());
        programs.push(Program {
            label: "notes-server".into(),
            path: path.clone(),
            args: vec!["--data".into(), data.arg().to_owned(), "--stdio".into()],
            token: Some(data.token()),
        });
    }
    cold_start::measure(&programs, options.starts)
}

fn main() {
    let options = options();
    check_open_files(*options.streams.last().expect("a count"));
    let notes = std::env::temp_dir();
    let server = HttpProcess::spawn(&options.server, &["--notes", notes.to_str().expect("UTF-8 temp dir")]);
    let address = server.address.clone();
    // Two threads, like the server's: the client must not take the machine from it.
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");

    // Warm up so that the allocator and the runtime have settled before anything is measured.
    call_latency(&address, options.calls / 4);
    let quiet = call_latency(&address, options.calls);
    let rss_before = rss_kib(server.pid());

    let mut streams = Streams::new(&address);
    let levels: Vec<Level> = options
        .streams
        .iter()
        .map(|&count| measure_level(&address, server.pid(), &runtime, &mut streams, count, &options))
        .collect();
    streams.close(&runtime);
    drop(server);

    report_streams(&options, &quiet, rss_before, &levels);
    if options.starts > 0 {
        report_starts(options.starts, &cold_starts(&options));
    }
}
