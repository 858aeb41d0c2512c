//! kill -9 at any moment, and a crash between a confirmed delete and the claim that records
//! it. The server is killed while creates, edits, a delete confirmation and an export task are
//! in flight, then started again on the same data, on SQLite and on PostgreSQL. Whatever the
//! moment: every acknowledged write is there, every note reads whole (never a half-written
//! file), a confirmation deletes once and is not usable again, the trash holds exactly what was
//! deleted, and no task is left `working`.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;
use mcp_rounds_tests::stdio::StdioProcess;
use mcp_rounds_tests::tasks::{TASKS, task_request};
use mcp_rounds_tests::{postgres, request};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

fn with_form(mut message: Value) -> Value {
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    message
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
    assert_eq!(trashed(&dir.join("workspace")).len(), 1);

    // Back up: the confirmation whose claim was never recorded is recorded at start, so the
    // same retry is refused and deletes nothing more.
    let mut server = StdioProcess::spawn(BIN, &args);
    let again = server.call(&retry(3));
    assert_eq!(again["error"]["code"], -32602, "{again}");
    assert_eq!(trashed(&dir.join("workspace")).len(), 1, "deleted once");
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
    assert_eq!(trashed(&dir.join("workspace")).len(), 1, "the earlier delete is reported, not repeated");
    let replay = survivor.call(&retry);
    assert_eq!(replay["error"]["code"], -32602, "now the claim is recorded: {replay}");
    drop(survivor);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where the replay store and the tasks live.
#[derive(Clone)]
enum Store {
    Sqlite,
    Postgres(String),
}

fn start(data: &DataDir, store: &Store) -> StdioProcess {
    let mut args = vec!["--data", data.arg(), "--stdio"];
    if let Store::Postgres(url) = store {
        args.extend(["--database", url.as_str()]);
    }
    let mut server = StdioProcess::spawn(BIN, &args);
    let ready = server.call(&request(json!("ready"), "server/discover", json!({})));
    assert!(ready["result"].is_object(), "{ready}");
    server
}

fn stores(name: &str) -> Vec<(&'static str, Store)> {
    let database = postgres::fresh_database(&format!("notes_crash_{name}_{}", std::process::id()));
    vec![("sqlite", Store::Sqlite), ("postgres", Store::Postgres(database))]
}

/// A body long enough that writing it is not one instant.
fn body(tag: &str) -> String {
    (0..400).map(|line| format!("{tag}: line {line} of a note that must never be read half-written\n")).collect()
}

/// The text of note `id` as `notes_read` gives it (`# title`, a blank line, the body).
fn read(server: &mut StdioProcess, workspace: &str, id: &str) -> String {
    let read = server.call(&tool(9_000, "notes_read", json!({"workspaceUri": workspace, "id": id}), json!({})));
    let text = read["result"]["content"][0]["text"].as_str();
    text.unwrap_or_else(|| panic!("note {id} does not read: {}", &read.to_string()[..300.min(read.to_string().len())]))
        .to_owned()
}

/// Whether `text` is a whole note with body `body`.
fn holds(text: &str, body: &str) -> bool {
    text.starts_with("# ") && text.trim_end().ends_with(body.trim_end())
}

/// Every note in the workspace reads whole: its body is one of `bodies` (what was ever
/// written), never a mixture or a prefix.
fn assert_every_note_whole(server: &mut StdioProcess, data: &DataDir, bodies: &[String]) {
    let workspace = data.workspace_uri();
    let listed = server.call(&tool(9_001, "notes_list", json!({"workspaceUri": workspace}), json!({})));
    let notes = listed["result"]["structuredContent"]["notes"].as_array().unwrap_or_else(|| panic!("{listed}")).clone();
    for note in notes {
        let id = note["id"].as_str().unwrap();
        if !id.starts_with("crash-") {
            continue;
        }
        let text = read(server, &workspace, id);
        assert!(bodies.iter().any(|b| holds(&text, b)), "note {id} is not whole: {} bytes", text.len());
    }
}

#[test]
fn creates_and_edits_killed_midway_are_there_whole_or_not_at_all() {
    for (label, store) in stores("writes") {
        let data = DataDir::seeded(&format!("crash-writes-{label}"));
        let workspace = data.workspace_uri();
        let mut bodies = Vec::new();
        let mut server = start(&data, &store);
        // Notes to edit, acknowledged before the crash.
        for n in 0..20 {
            let b = body(&format!("first {n}"));
            let created = server.call(&tool(
                n,
                "notes_create",
                json!({"workspaceUri": workspace, "title": format!("crash {n}"), "body": b}),
                json!({}),
            ));
            assert_eq!(created["result"]["structuredContent"]["id"], format!("crash-{n}"), "{created}");
            bodies.push(b);
        }
        // 60 writes at once (new notes and edits of the 20), killed after the 15th answer.
        let mut sent = HashMap::new();
        for n in 0..60i64 {
            let id = 100 + n;
            let message = if n % 2 == 0 {
                let b = body(&format!("new {n}"));
                let args = json!({"workspaceUri": workspace, "title": format!("crash new {n}"), "body": b});
                sent.insert(id, (format!("crash-new-{n}"), b));
                tool(id, "notes_create", args, json!({}))
            } else {
                let b = body(&format!("edited {n}"));
                let note = format!("crash-{}", n / 3);
                let args = json!({"workspaceUri": workspace, "id": note, "body": b});
                sent.insert(id, (note, b));
                tool(id, "notes_edit", args, json!({}))
            };
            server.send(&message);
        }
        bodies.extend(sent.values().map(|(_, b)| b.clone()));
        let acknowledged: Vec<i64> = (0..15).map(|_| server.recv()["id"].as_i64().unwrap()).collect();
        drop(server); // SIGKILL

        let mut server = start(&data, &store);
        for id in &acknowledged {
            let (note, b) = &sent[id];
            let text = read(&mut server, &workspace, note);
            // An edit acknowledged may since have been overwritten by a later edit of the same note.
            let later_edit = sent.iter().any(|(other, (n, _))| other > id && n == note);
            assert!(holds(&text, b) || later_edit, "{label}: acknowledged write {id} to {note} lost");
        }
        assert_every_note_whole(&mut server, &data, &bodies);
        let strays: Vec<_> = std::fs::read_dir(data.workspace())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".tmp"))
            .collect();
        eprintln!("{label}: {} unfinished writes left", strays.len());
    }
}

fn trashed(workspace: &Path) -> Vec<String> {
    std::fs::read_dir(workspace.join(".trash"))
        .map(|entries| entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

#[test]
fn a_confirmation_killed_midway_deletes_once_and_is_not_usable_again() {
    for (label, store) in stores("delete") {
        let data = DataDir::seeded(&format!("crash-delete-{label}"));
        let workspace = data.workspace_uri();
        let mut server = start(&data, &store);
        let first = delete_call(1, &workspace, "cover sheet");
        let (_, state) = input_required(&server.call(&first));
        let confirm = retry(&first, 2, accept("tps-report-cover-sheet"), &state);
        server.send(&confirm);
        drop(server); // SIGKILL, with the confirmation just sent

        let mut server = start(&data, &store);
        let again = server.call(&retry(&first, 3, accept("tps-report-cover-sheet"), &state));
        let deleted_now = again["result"]["content"][0]["text"].as_str().is_some_and(|t| t.starts_with("Deleted"));
        let refused = again["error"]["code"] == -32602;
        assert!(deleted_now || refused, "{label}: {again}");
        assert!(!data.workspace().join("tps-report-cover-sheet.md").exists(), "{label}: the note is gone");
        assert_eq!(trashed(&data.workspace()).len(), 1, "{label}: in the trash exactly once");
        // Whatever happened before, the confirmation is spent now.
        let third = server.call(&retry(&first, 4, accept("tps-report-cover-sheet"), &state));
        assert_state_refused(&third);
        assert_eq!(trashed(&data.workspace()).len(), 1, "{label}: deleted once");
    }
}

#[test]
fn a_task_killed_midway_is_never_left_working() {
    for (label, store) in stores("task") {
        let data = DataDir::seeded(&format!("crash-task-{label}"));
        let workspace = data.workspace_uri();
        // Enough notes that the export is still running when the process dies.
        for n in 0..1500 {
            std::fs::write(data.workspace().join(format!("bulk-{n}.md")), format!("# Bulk {n}\n\n{}", body("bulk")))
                .unwrap();
        }
        let mut server = start(&data, &store);
        let mut export = tool(1, "notes_export", json!({"workspaceUri": workspace}), json!({}));
        export["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"extensions": {TASKS: {}}});
        let created = server.call(&export);
        let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{label}: {created}")).to_owned();
        drop(server); // SIGKILL

        // Back up, the task ends: completed if it finished first, else failed once its
        // instance's lease runs out. Never `working` for good.
        let mut server = start(&data, &store);
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            let got = server.call(&task_request(json!(2), "tasks/get", json!({"taskId": task})));
            let status = got["result"]["status"].as_str().unwrap_or_else(|| panic!("{label}: {got}")).to_owned();
            if status != "working" {
                break status;
            }
            assert!(Instant::now() < deadline, "{label}: the task is still working a minute after its process died");
            // Ask again once the server has answered something else: no fixed pause.
            server.call(&request(json!("tick"), "server/discover", json!({})));
        };
        assert!(status == "completed" || status == "failed", "{label}: {status}");
    }
}
