//! The elicitation lesson's checkpoints over stdio, with a notes_delete written with the
//! macros; and two server processes sharing one SQLite replay store racing on one state.

use std::path::{Path, PathBuf};

use mcp_rounds_tests::stdio::StdioProcess;
use mcp_rounds_tests::{meta, request};
use serde_json::{Value, json};

fn notes_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-rounds-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (id, title) in [
        ("q1", "TPS report Q1"),
        ("cover", "TPS Report cover sheet"),
        ("draft", "Old tps report draft"),
        ("roadmap", "Roadmap"),
    ] {
        std::fs::write(dir.join(format!("{id}.md")), format!("# {title}\n")).unwrap();
    }
    dir
}

fn server(dir: &Path, extra: &[&str]) -> StdioProcess {
    let mut args = vec!["--notes", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    StdioProcess::spawn(env!("CARGO_BIN_EXE_fixture-server"), &args)
}

fn call(id: i64, capabilities: Value, arguments: Value, extra: Value) -> Value {
    let mut params = json!({"name": "notes_delete", "arguments": arguments});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    let mut message = request(json!(id), "tools/call", params);
    message["params"]["_meta"] = meta(capabilities);
    message
}

fn form() -> Value {
    json!({"elicitation": {}})
}

fn ask(server: &mut StdioProcess, id: i64, title: &str) -> (Value, String) {
    let response = server.call(&call(id, form(), json!({"title": title}), json!({})));
    assert_eq!(response["id"], id);
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    (result["inputRequests"].clone(), result["requestState"].as_str().unwrap().to_owned())
}

fn answer(server: &mut StdioProcess, id: i64, title: &str, answers: Value, state: &str) -> Value {
    server.call(&call(id, form(), json!({"title": title}), json!({"inputResponses": answers, "requestState": state})))
}

fn accept(note: &str) -> Value {
    json!({"choice": {"action": "accept", "content": {"note": note, "confirm": true}}})
}

#[test]
fn lesson_checkpoints_hold_over_stdio() {
    let dir = notes_dir("lesson");
    let mut server = server(&dir, &[]);

    // The first call returns the form in inputRequests and a signed state (id 1).
    let (requests, state) = ask(&mut server, 1, "tps report");
    let choice = &requests["choice"];
    assert_eq!(choice["method"], "elicitation/create");
    assert_eq!(choice["params"]["mode"], "form");
    let schema = &choice["params"]["requestedSchema"];
    let offered: Vec<&str> = schema["properties"]["note"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["const"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["cover", "draft", "q1"]);
    assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
    assert_eq!(schema["required"], json!(["note", "confirm"]));

    // A note outside the signed candidates is refused, and the state survives that.
    let outside = answer(&mut server, 2, "tps report", accept("roadmap"), &state);
    assert_eq!(outside["error"]["code"], -32602);
    assert_eq!(outside["error"]["data"]["field"], "inputResponses.choice.note");

    // The same state cannot serve a changed title.
    let changed = answer(&mut server, 3, "roadmap", accept("q1"), &state);
    assert_eq!(changed["error"]["code"], -32602);

    // The accepted retry, with a new id, deletes.
    let deleted = answer(&mut server, 4, "tps report", accept("q1"), &state);
    assert_eq!(deleted["id"], 4);
    assert_eq!(deleted["result"]["resultType"], "complete");
    assert_eq!(deleted["result"]["content"][0]["text"], "Deleted q1.");
    assert!(!dir.join("q1.md").exists());

    // Replaying it is refused.
    let replay = answer(&mut server, 5, "tps report", accept("cover"), &state);
    assert_eq!(replay["error"]["code"], -32602);
    assert!(dir.join("cover.md").exists());

    // Decline leaves the note and is terminal.
    let (_, state) = ask(&mut server, 6, "tps report");
    let declined = answer(&mut server, 7, "tps report", json!({"choice": {"action": "decline"}}), &state);
    assert_eq!(declined["result"]["content"][0]["text"], "Kept; nothing deleted.");
    let after = answer(&mut server, 8, "tps report", accept("cover"), &state);
    assert_eq!(after["error"]["code"], -32602);
    assert!(dir.join("cover.md").exists());

    // Cancel deletes nothing and stays retryable.
    let (_, state) = ask(&mut server, 9, "tps report");
    let cancelled = answer(&mut server, 10, "tps report", json!({"choice": {"action": "cancel"}}), &state);
    assert_eq!(cancelled["result"]["content"][0]["text"], "Cancelled; nothing deleted.");
    let retried = answer(&mut server, 11, "tps report", accept("draft"), &state);
    assert_eq!(retried["result"]["content"][0]["text"], "Deleted draft.");

    // Empty and explicit form declarations work; url-only and none get -32021, exactly.
    for (i, capabilities) in [json!({"elicitation": {"form": {}}}), json!({"elicitation": {}})].into_iter().enumerate()
    {
        let response = server.call(&call(20 + i as i64, capabilities, json!({"title": "tps"}), json!({})));
        assert_eq!(response["result"]["resultType"], "input_required");
    }
    for (i, capabilities) in [json!({"elicitation": {"url": {}}}), json!({})].into_iter().enumerate() {
        let response = server.call(&call(30 + i as i64, capabilities, json!({"title": "tps"}), json!({})));
        assert_eq!(response["error"]["code"], -32021);
        assert_eq!(response["error"]["data"], json!({"requiredCapabilities": {"elicitation": {"form": {}}}}));
    }

    let log = std::fs::read_to_string(dir.join("deleted.log")).unwrap();
    assert_eq!(log.lines().count(), 2, "exactly the two accepted deletions: {log}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_processes_sharing_one_store_execute_one_confirmation_once() {
    let dir = notes_dir("race");
    let db = dir.join("replay.sqlite3");
    let key = "cmFjZS10ZXN0LWtleS10aGF0LWlzLTMyLWJ5dGVzLWxvbmchIQ==";
    let flags = ["--replay-db", db.to_str().unwrap(), "--state-key", key];
    let mut first = server(&dir, &flags);
    let mut second = server(&dir, &flags);
    const ROUNDS: usize = 100;
    for i in 0..ROUNDS {
        let id = format!("race-{i:03}");
        let title = format!("Race marker {i:03}");
        std::fs::write(dir.join(format!("{id}.md")), format!("# {title}\n")).unwrap();
        let base = (i * 10) as i64;
        let (_, state) = ask(&mut first, base, &title);
        // Both processes get the same accepted retry at once.
        let retry = call(
            base + 1,
            form(),
            json!({"title": title}),
            json!({"inputResponses": accept(&id), "requestState": state}),
        );
        first.send(&retry);
        second.send(&retry);
        let (a, b) = (first.recv(), second.recv());
        let wins = [&a, &b].iter().filter(|r| r["result"]["content"][0]["text"] == format!("Deleted {id}.")).count();
        let refusals = [&a, &b].iter().filter(|r| r["error"]["code"] == -32602).count();
        assert_eq!((wins, refusals), (1, 1), "round {i}: exactly one process wins: {a} / {b}");
    }
    let log = std::fs::read_to_string(dir.join("deleted.log")).unwrap();
    let mut ids: Vec<&str> =
        log.lines().map(|l| l.split(' ').next().unwrap()).filter(|id| id.starts_with("race-")).collect();
    assert_eq!(ids.len(), ROUNDS, "each confirmation executed once");
    ids.dedup();
    assert_eq!(ids.len(), ROUNDS);
    let winners: std::collections::HashSet<&str> = log.lines().filter_map(|l| l.split(' ').nth(1)).collect();
    assert_eq!(winners.len(), 2, "both processes won some races, so both really raced");
    drop((first, second));
    let _ = std::fs::remove_dir_all(&dir);
}
