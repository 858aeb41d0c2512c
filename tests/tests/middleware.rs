//! The framework's own layers around dispatch, on both transports: a rate limit per principal,
//! a timeout per call, and an audit log.

use std::path::PathBuf;

use mcp_rounds_tests::http::{HttpProcess, post_mcp};
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

fn echo(id: i64, text: &str) -> Value {
    request(json!(id), "tools/call", json!({"name": "echo", "arguments": {"text": text}}))
}

fn sleep(id: i64, ms: u64) -> Value {
    request(json!(id), "tools/call", json!({"name": "sleep", "arguments": {"ms": ms}}))
}

fn stdio(args: &[&str]) -> StdioProcess {
    let notes = std::env::temp_dir();
    let mut all = vec!["--notes", notes.to_str().unwrap()];
    all.extend_from_slice(args);
    StdioProcess::spawn(FIXTURE, &all)
}

fn http(args: &[&str]) -> HttpProcess {
    let notes = std::env::temp_dir();
    let mut all = vec!["--notes", notes.to_str().unwrap(), "--token", "alice-token=alice", "--token", "bob-token=bob"];
    all.extend_from_slice(args);
    HttpProcess::spawn(FIXTURE, &all)
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {response}"))
}

#[test]
fn the_rate_limit_refuses_what_is_over_a_principals_allowance_on_stdio() {
    let mut server = stdio(&["--rate-limit", "2/60"]);
    assert_eq!(text(&server.call(&echo(1, "one"))), "one");
    assert_eq!(text(&server.call(&echo(2, "two"))), "two");
    let refused = server.call(&echo(3, "three"));
    assert_eq!(refused["id"], 3);
    assert_eq!(refused["error"]["code"], -31429, "{refused}");
    let retry = refused["error"]["data"]["retryAfterMs"].as_u64().unwrap();
    assert!((1..=30_000).contains(&retry), "one request comes back every 30 s: {retry}");
    // Every method counts, not only tools.
    let listed = server.call(&request(json!(4), "tools/list", json!({})));
    assert_eq!(listed["error"]["code"], -31429);
}

#[test]
fn the_rate_limit_is_per_principal_and_says_when_to_retry_over_http() {
    let server = http(&["--rate-limit", "2/60"]);
    let a = &server.address;
    for id in 1..=2 {
        let response = post_mcp(a, Some("alice-token"), &echo(id, "hi"));
        assert_eq!(response.status, 200);
    }
    let refused = post_mcp(a, Some("alice-token"), &echo(3, "hi"));
    assert_eq!(refused.status, 429);
    let retry: u64 = refused.header("retry-after").expect("a Retry-After header").parse().unwrap();
    assert!((1..=30).contains(&retry), "{retry}");
    assert_eq!(refused.json()["error"]["code"], -31429);
    assert_eq!(refused.json()["id"], 3);
    // Bob has an allowance of his own.
    let bob = post_mcp(a, Some("bob-token"), &echo(4, "bob"));
    assert_eq!((bob.status, text(&bob.json()).to_owned()), (200, "bob".to_owned()));
}

#[test]
fn a_call_past_the_timeout_is_a_tool_error_and_the_server_keeps_answering_on_stdio() {
    let mut server = stdio(&["--timeout-ms", "300"]);
    let timed_out = server.call(&sleep(1, 60_000));
    assert_eq!(timed_out["result"]["isError"], true, "{timed_out}");
    assert_eq!(text(&timed_out), "The tool did not finish within 300ms; it was stopped");
    assert_eq!(text(&server.call(&sleep(2, 1))), "slept 1 ms", "a call within the limit finishes");
    assert_eq!(text(&server.call(&echo(3, "still here"))), "still here");
}

#[test]
fn a_call_past_the_timeout_is_a_tool_error_and_the_server_keeps_answering_over_http() {
    let server = http(&["--timeout-ms", "300"]);
    let timed_out = post_mcp(&server.address, Some("alice-token"), &sleep(1, 60_000));
    assert_eq!(timed_out.status, 200);
    assert_eq!(timed_out.json()["result"]["isError"], true);
    assert_eq!(text(&timed_out.json()), "The tool did not finish within 300ms; it was stopped");
    let echoed = post_mcp(&server.address, Some("alice-token"), &echo(2, "still here"));
    assert_eq!(text(&echoed.json()), "still here");
}

/// A fresh audit log file for one test.
fn audit_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("mcp-rounds-audit-{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn audit_lines(path: &PathBuf) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// The requests both audit tests send: a call, a tool's own failure, an unknown tool and an
/// unknown method. A record is written before its answer goes out, so every record is in the
/// file once the last answer has arrived.
fn audited_requests() -> Vec<Value> {
    vec![
        echo(1, "s3cret-argument"),
        request(json!(2), "tools/call", json!({"name": "fail"})),
        request(json!(3), "tools/call", json!({"name": "no_such_tool"})),
        request(json!(4), "no/such/method", json!({})),
    ]
}

fn assert_audited(path: &PathBuf, principal: Value) {
    let lines = audit_lines(path);
    let seen: Vec<(Value, Value, Value)> =
        lines.iter().map(|l| (l["method"].clone(), l["target"].clone(), l["outcome"].clone())).collect();
    assert_eq!(
        seen,
        [
            (json!("tools/call"), json!("echo"), json!("Completed")),
            (json!("tools/call"), json!("fail"), json!("ToolError")),
            (json!("tools/call"), json!("no_such_tool"), json!("Error(-32602)")),
            (json!("no/such/method"), Value::Null, json!("Error(-32601)")),
        ]
    );
    assert!(lines.iter().all(|l| l["principal"] == principal), "{lines:?}");
    assert_eq!(lines.iter().map(|l| l["requestId"].clone()).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let text = std::fs::read_to_string(path).unwrap();
    assert!(!text.contains("s3cret-argument"), "no argument value is audited: {text}");
}

#[test]
fn every_request_is_audited_without_its_arguments_on_stdio() {
    let path = audit_file("stdio");
    let mut server = stdio(&["--audit", path.to_str().unwrap()]);
    for message in audited_requests() {
        server.call(&message);
    }
    assert_audited(&path, Value::Null);
}

#[test]
fn every_request_is_audited_without_its_arguments_over_http() {
    let path = audit_file("http");
    let server = http(&["--audit", path.to_str().unwrap()]);
    for message in audited_requests() {
        post_mcp(&server.address, Some("bob-token"), &message);
    }
    assert_audited(&path, json!("bob"));
}

#[test]
fn an_audited_rate_limit_records_the_refusal() {
    let path = audit_file("limited");
    // The audit layer is added last, so it sees what the rate limit refuses.
    let mut server = stdio(&["--rate-limit", "1/60", "--audit", path.to_str().unwrap()]);
    server.call(&echo(1, "once"));
    let refused = server.call(&echo(2, "twice"));
    assert_eq!(refused["error"]["code"], -31429);
    let outcomes: Vec<Value> = audit_lines(&path).iter().map(|l| l["outcome"].clone()).collect();
    assert_eq!(outcomes, [json!("Completed"), json!("Error(-31429)")]);
}
