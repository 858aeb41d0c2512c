//! A crash between a confirmed delete and the claim that records it: nothing is deleted twice,
//! and the confirmation is not usable again once the server is back.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

fn with_form(mut message: Value) -> Value {
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    message
}

fn trashed(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("workspace/.trash"))
        .map(|entries| entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

#[test]
fn a_crash_after_the_delete_neither_deletes_twice_nor_loses_the_claim() {
    let dir: PathBuf = std::env::temp_dir().join(format!("notes-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.to_str().unwrap().to_owned();
    let args = ["--data", data.as_str(), "--stdio"];

    let mut doomed = StdioProcess::spawn_with_env(BIN, &args, &[("NOTES_TEST_CRASH_AFTER_DELETE", "1")]);
    let workspace = {
        doomed.call(&request(json!(0), "server/discover", json!({})));
        format!("file://{}/workspace", std::fs::canonicalize(&dir).unwrap().display())
    };
    let arguments = json!({"workspaceUri": workspace, "title": "cover sheet"});
    let asked = doomed.call(&with_form(request(
        json!(1),
        "tools/call",
        json!({"name": "notes_delete", "arguments": arguments}),
    )));
    let state = asked["result"]["requestState"].as_str().expect("a form first").to_owned();
    let retry = |id: i64| {
        with_form(request(
            json!(id),
            "tools/call",
            json!({
                "name": "notes_delete",
                "arguments": arguments,
                "inputResponses": {"choice": {"action": "accept", "content": {"note": "tps-report-cover-sheet", "confirm": true}}},
                "requestState": state,
            }),
        ))
    };
    doomed.send(&retry(2));
    let status = doomed.wait_exit(Duration::from_secs(10)).expect("the server died after the delete");
    assert!(!status.success());
    assert!(!dir.join("workspace/tps-report-cover-sheet.md").exists(), "the delete happened");
    assert_eq!(trashed(&dir).len(), 1);

    // Back up: the confirmation whose claim was never recorded is recorded at start, so the
    // same retry is refused and deletes nothing more.
    let mut server = StdioProcess::spawn(BIN, &args);
    let again = server.call(&retry(3));
    assert_eq!(again["error"]["code"], -32602, "{again}");
    assert_eq!(trashed(&dir).len(), 1, "deleted once");
    let notes: Vec<String> = std::fs::read_dir(dir.join("workspace"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert_eq!(notes.len(), 6, "five seeded notes left, and the symlink: {notes:?}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_retry_that_finds_its_own_earlier_delete_reports_it_without_deleting_again() {
    let dir: PathBuf = std::env::temp_dir().join(format!("notes-crash-retry-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.to_str().unwrap().to_owned();
    let args = ["--data", data.as_str(), "--stdio"];
    let mut doomed = StdioProcess::spawn_with_env(BIN, &args, &[("NOTES_TEST_CRASH_AFTER_DELETE", "1")]);
    doomed.call(&request(json!(0), "server/discover", json!({})));
    // A second process that was already running when the first one crashed: it did not run
    // the start-up recovery, so the claim is free there and the retry runs the tool again.
    let mut survivor = StdioProcess::spawn(BIN, &args);
    survivor.call(&request(json!(0), "server/discover", json!({})));
    let workspace = format!("file://{}/workspace", std::fs::canonicalize(&dir).unwrap().display());
    let arguments = json!({"workspaceUri": workspace, "title": "draft"});
    let asked = doomed.call(&with_form(request(
        json!(1),
        "tools/call",
        json!({"name": "notes_delete", "arguments": arguments}),
    )));
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = with_form(request(
        json!(2),
        "tools/call",
        json!({
            "name": "notes_delete",
            "arguments": arguments,
            "inputResponses": {"choice": {"action": "accept", "content": {"note": "tps-report-draft-old", "confirm": true}}},
            "requestState": state,
        }),
    ));
    doomed.send(&retry);
    doomed.wait_exit(Duration::from_secs(10)).expect("the server died after the delete");

    let answer = survivor.call(&retry);
    assert_eq!(answer["result"]["content"][0]["text"], "Deleted tps-report-draft-old.", "{answer}");
    assert_eq!(trashed(&dir).len(), 1, "the earlier delete is reported, not repeated");
    let replay = survivor.call(&retry);
    assert_eq!(replay["error"]["code"], -32602, "now the claim is recorded: {replay}");
    drop(survivor);
    let _ = std::fs::remove_dir_all(&dir);
}
