//! What the command takes from a server, at most: a message up to `--max-message-size` (32 MiB
//! unless told), read as it comes and refused once over, in little memory; ten rounds of a task;
//! 64 input requests in a round.

use serde_json::{Map, Value, json};

use crate::{Scratch, common, hostile, run, run_env, wait_for_record};

const MIB: u64 = 1024 * 1024;

/// What the command's memory may peak at while a 512 MiB answer comes (it peaked at ~1.5 GiB
/// when it read answers whole).
const MAX_PEAK_KIB: u64 = 256 * 1024;

/// The number in `record[pointer]`.
fn number(record: &Value, pointer: &str) -> u64 {
    record.pointer(pointer).and_then(Value::as_u64).unwrap_or_else(|| panic!("{pointer} in {record:#}"))
}

#[test]
fn an_answer_over_the_size_limit_is_refused_as_it_comes_in_little_memory() {
    let server = hostile();
    // 512 MiB each: one JSON body sent in chunks, the same with its length declared, an event
    // whose line never ends, an event of 1 KiB lines that never ends.
    for (scenario, counted) in [
        ("big-json", "big-json"),
        ("big-json?length=declared", "big-json"),
        ("big-sse-line", "big-sse-line"),
        ("big-sse-event", "big-sse-event"),
    ] {
        let pointer = format!("/bytes_sent/{counted}");
        let before = number(&server.record(), &pointer);
        let ran = run(&["tools", "call", "big", "--url", &server.url(scenario)]);
        assert_eq!(ran.code, 3, "{scenario}: {}", ran.said());
        assert!(
            ran.stderr.contains("tools/call: the server sent a message larger than the limit of 32 MiB")
                && ran.stderr.contains("--max-message-size"),
            "{scenario}: {}",
            ran.said()
        );
        let sent = number(&server.record(), &pointer) - before;
        assert!(sent < 64 * MIB, "{scenario}: the server got to send {} MiB of 512", sent / MIB);
        assert!(ran.peak_kib > 0 && ran.peak_kib < MAX_PEAK_KIB, "{scenario}: peaked at {} KiB", ran.peak_kib);
    }

    // A child server's line of 512 MiB on stdio.
    let child = vec![common::hostile_server().display().to_string(), "--stdio".into(), "big-json".into()];
    let ran = run_env(&["tools", "call", "big"], &child, &[]);
    assert_eq!(ran.code, 3, "stdio: {}", ran.said());
    assert!(ran.stderr.contains("a message larger than the limit of 32 MiB"), "stdio: {}", ran.said());
    assert!(ran.peak_kib > 0 && ran.peak_kib < MAX_PEAK_KIB, "stdio: peaked at {} KiB", ran.peak_kib);
}

#[test]
fn max_message_size_moves_the_limit_and_names_itself_when_wrong() {
    let server = hostile();
    let two_mib = server.url(&format!("big-json?bytes={}", 2 * MIB));
    let lowered = run(&["tools", "call", "big", "--max-message-size", "1MiB", "--url", &two_mib]);
    assert_eq!(lowered.code, 3, "{}", lowered.said());
    assert!(lowered.stderr.contains("a message larger than the limit of 1 MiB"), "{}", lowered.said());

    let raised = run(&["tools", "call", "big", "--max-message-size", "1GiB", "--url", &two_mib]);
    assert_eq!(raised.code, 0, "{}", raised.said());
    let text = raised.out();
    assert!(text.len() > 2 * MIB as usize - 200 && text.trim_end().bytes().all(|b| b == b'a'), "{}", text.len());

    let wrong = run(&["tools", "call", "big", "--max-message-size", "12 parsecs", "--url", &two_mib]);
    assert_eq!(wrong.code, 2, "{}", wrong.said());
    assert!(
        wrong.stderr.contains(
            "'--max-message-size <SIZE>': `12 parsecs` is not a size (bytes, or a number with KiB, MiB or GiB)"
        ),
        "{}",
        wrong.said()
    );
}

#[test]
fn a_task_that_always_asks_again_stops_after_ten_rounds_and_is_cancelled() {
    let server = hostile();
    let scratch = Scratch::new("answers");
    // The task asks `qN` at its Nth poll: every question it could ask in 40 rounds is answered.
    let answers: Map<String, Value> =
        (1..=40).map(|n| (format!("q{n}"), json!({"action": "accept", "content": {"ok": true}}))).collect();
    let file = scratch.file("answers.json", Value::Object(answers).to_string().as_bytes());
    let ran = run(&["tools", "call", "forever", "--answers", &file, "--url", &server.url("endless-task")]);
    assert_eq!(ran.code, 3, "{}", ran.said());
    assert!(ran.stderr.contains("mcp-rounds: tools/call: still asking for input after 10 rounds"), "{}", ran.said());
    let record = wait_for_record(&server, "a tasks/cancel", |r| r["task_cancels"].as_u64() >= Some(1));
    assert_eq!(record["task_updates"], 10, "ten rounds answered, no more: {record:#}");
}

#[test]
fn a_round_of_too_many_input_requests_is_refused_before_any_is_answered() {
    let server = hostile();
    let ran = run(&["tools", "call", "many", "--url", &server.url("many-inputs")]);
    assert_eq!(ran.code, 3, "{}", ran.said());
    assert!(
        ran.stderr.contains("tools/call: the server sent 10000 input requests in one round, over the limit of 64"),
        "{}",
        ran.said()
    );
    assert!(!ran.stderr.contains("declined"), "none declined one by one: {}", ran.said());

    // One over the limit, every one answerable from the file: still none answered.
    let scratch = Scratch::new("many");
    let answers: Map<String, Value> =
        (0..65).map(|n| (format!("k{n}"), json!({"action": "accept", "content": {"ok": true}}))).collect();
    let file = scratch.file("answers.json", Value::Object(answers).to_string().as_bytes());
    let url = server.url("many-inputs?count=65");
    let ran = run(&["tools", "call", "many", "--answers", &file, "--url", &url]);
    assert_eq!(ran.code, 3, "{}", ran.said());
    assert!(ran.stderr.contains("65 input requests in one round, over the limit of 64"), "{}", ran.said());
    assert!(!ran.out().contains("got 65 answers"), "the server never got the answers: {}", ran.said());
}
