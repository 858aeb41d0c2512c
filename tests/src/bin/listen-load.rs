//! Load check for `subscriptions/listen` over Streamable HTTP: holds many idle listen streams
//! open against a server while `tools/call` keeps being answered, and reports the server's
//! memory per idle stream and the call latency with and without the streams.
//!
//! `listen-load --server PATH [--streams N] [--calls N]`; run it through `scripts/listen-load`.

use std::time::{Duration, Instant};

use mcp_rounds_tests::http::{EventStream, HttpProcess, request as http};
use mcp_rounds_tests::request;
use serde_json::{Value, json};

struct Options {
    server: String,
    streams: usize,
    calls: usize,
}

fn options() -> Options {
    let mut options = Options { server: String::new(), streams: 1000, calls: 2000 };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--server" => options.server = value(),
            "--streams" => options.streams = value().parse().expect("--streams N"),
            "--calls" => options.calls = value().parse().expect("--calls N"),
            other => panic!("unknown argument {other}; usage: listen-load --server PATH [--streams N] [--calls N]"),
        }
    }
    assert!(!options.server.is_empty(), "--server PATH is required");
    options
}

fn headers_for(message: &Value) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", message["method"].as_str().unwrap_or_default().to_owned()),
    ];
    if let Some(name) = message["params"]["name"].as_str() {
        headers.push(("Mcp-Name", name.to_owned()));
    }
    headers
}

fn post(address: &str, message: &Value) -> Value {
    let headers = headers_for(message);
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let response = http(address, "POST", &borrowed, message.to_string().as_bytes());
    assert_eq!(response.status, 200, "{}", String::from_utf8_lossy(&response.body));
    response.json()
}

fn open_listen(address: &str, id: usize) -> EventStream {
    let message = request(
        json!(format!("listen-{id}")),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let headers = headers_for(&message);
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let mut stream = EventStream::open(address, &borrowed, message.to_string().as_bytes());
    assert_eq!(stream.status, 200);
    let ack = stream.next_event().expect("the listen is acknowledged");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    stream
}

/// Resident memory of a process in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc status")
}

struct Latency {
    p50: Duration,
    p99: Duration,
    mean: Duration,
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
    let mean = samples.iter().sum::<Duration>() / calls as u32;
    Latency { p50: samples[calls / 2], p99: samples[calls * 99 / 100], mean }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let options = options();
    let notes = std::env::temp_dir();
    let server = HttpProcess::spawn(&options.server, &["--notes", notes.to_str().expect("UTF-8 temp dir")]);
    let address = server.address.clone();

    // Warm up so that the allocator and the runtime have settled before anything is measured.
    call_latency(&address, options.calls / 4);
    let quiet = call_latency(&address, options.calls);
    let rss_before = rss_kib(server.pid());

    let started = Instant::now();
    let streams: Vec<EventStream> = (0..options.streams).map(|i| open_listen(&address, i)).collect();
    let opening = started.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    let rss_idle = rss_kib(server.pid());
    let open_now = post(&address, &request(json!("count"), "tools/call", json!({"name": "listeners"})));
    assert_eq!(open_now["result"]["content"][0]["text"], options.streams.to_string(), "every stream is open");

    let loaded = call_latency(&address, options.calls);
    let rss_after = rss_kib(server.pid());

    // One announcement reaches every stream, each tagged with its own subscription.
    let mut streams = streams;
    let started = Instant::now();
    post(
        &address,
        &request(json!("announce"), "tools/call", json!({"name": "announce", "arguments": {"kind": "tools"}})),
    );
    for (i, stream) in streams.iter_mut().enumerate() {
        let event = stream.next_event().expect("the event arrives");
        assert_eq!(event["method"], "notifications/tools/list_changed");
        assert_eq!(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], format!("listen-{i}"));
    }
    let fan_out = started.elapsed();
    drop(streams);

    let per_stream = (rss_idle.saturating_sub(rss_before)) as f64 * 1024.0 / options.streams as f64;
    println!("idle listen streams: {}", options.streams);
    println!(
        "opened in {:.0} ms ({:.0} µs per stream, ack included)",
        opening.as_secs_f64() * 1e3,
        micros(opening) / options.streams as f64
    );
    println!(
        "server RSS: {rss_before} KiB before, {rss_idle} KiB with the streams idle, {rss_after} KiB after the calls"
    );
    println!("memory per idle stream: {:.1} KiB", per_stream / 1024.0);
    println!("one list change reached all {} streams in {:.1} ms", options.streams, fan_out.as_secs_f64() * 1e3);
    println!("tools/call over {} calls, µs        p50      p99     mean", options.calls);
    println!(
        "  no streams open              {:>8.0} {:>8.0} {:>8.0}",
        micros(quiet.p50),
        micros(quiet.p99),
        micros(quiet.mean)
    );
    println!(
        "  {:>5} streams open           {:>8.0} {:>8.0} {:>8.0}",
        options.streams,
        micros(loaded.p50),
        micros(loaded.p99),
        micros(loaded.mean)
    );
    println!(
        "  ratio (loaded / quiet)       {:>8.2} {:>8.2} {:>8.2}",
        micros(loaded.p50) / micros(quiet.p50),
        micros(loaded.p99) / micros(quiet.p99),
        micros(loaded.mean) / micros(quiet.mean)
    );
}
