//! Three notes-server instances behind one PostgreSQL: a confirmation fired at all of them at
//! once is executed exactly once, and a change made through one reaches listeners on another.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use mcp_rounds_tests::stdio::StdioProcess;
use mcp_rounds_tests::tasks::{await_task, task_request};
use mcp_rounds_tests::{postgres, request};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

struct Instances {
    dir: PathBuf,
    servers: Vec<StdioProcess>,
}

impl Drop for Instances {
    fn drop(&mut self) {
        self.servers.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start(name: &str, count: usize) -> Instances {
    let dir = std::env::temp_dir().join(format!("notes-scale-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let database = postgres::fresh_database(&format!("notes_scale_{name}_{}", std::process::id()));
    let data = dir.to_str().unwrap().to_owned();
    // The first instance seeds the data directory (and its shared key ring) alone.
    let mut servers = vec![StdioProcess::spawn(BIN, &["--data", &data, "--stdio", "--database", &database])];
    let ready = servers[0].call(&request(json!("ready"), "server/discover", json!({})));
    assert!(ready["result"].is_object(), "{ready}");
    for _ in 1..count {
        servers.push(StdioProcess::spawn(BIN, &["--data", &data, "--stdio", "--database", &database]));
    }
    Instances { dir, servers }
}

fn workspace_uri(dir: &Path) -> String {
    format!("file://{}/workspace", std::fs::canonicalize(dir).unwrap().display())
}

fn with_form(mut message: Value) -> Value {
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    message
}

#[test]
fn one_confirmation_fired_at_three_instances_deletes_exactly_once_every_time() {
    let mut instances = start("race", 3);
    let workspace = workspace_uri(&instances.dir);
    let mut id = 0;
    let mut next_id = || {
        id += 1;
        json!(id)
    };
    for round in 0..100 {
        let title = format!("Race note {round}");
        let created = instances.servers[round % 3].call(&request(
            next_id(),
            "tools/call",
            json!({"name": "notes_create", "arguments": {"workspaceUri": workspace, "title": title, "body": "x"}}),
        ));
        let note = created["result"]["structuredContent"]["id"].as_str().expect("created").to_owned();
        let arguments = json!({"workspaceUri": workspace, "title": title});
        let asked = instances.servers[(round + 1) % 3].call(&with_form(request(
            next_id(),
            "tools/call",
            json!({"name": "notes_delete", "arguments": arguments}),
        )));
        let state = asked["result"]["requestState"].as_str().expect("asks first").to_owned();
        let retry = with_form(request(
            next_id(),
            "tools/call",
            json!({
                "name": "notes_delete",
                "arguments": arguments,
                "inputResponses": {"choice": {"action": "accept", "content": {"note": note, "confirm": true}}},
                "requestState": state,
            }),
        ));

        // Fire at all three at once: each process gets the same bytes at the same moment.
        let barrier = Arc::new(Barrier::new(3));
        let answers: Vec<Value> = std::thread::scope(|scope| {
            let handles: Vec<_> = instances
                .servers
                .iter_mut()
                .map(|server| {
                    let (barrier, retry) = (barrier.clone(), retry.clone());
                    scope.spawn(move || {
                        barrier.wait();
                        server.call(&retry)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let succeeded = answers.iter().filter(|a| a["result"]["isError"].is_null() && a["result"].is_object()).count();
        let refused = answers.iter().filter(|a| a["error"]["code"] == -32602).count();
        assert_eq!((succeeded, refused), (1, 2), "round {round}: {answers:?}");
        assert!(!instances.dir.join(format!("workspace/{note}.md")).exists(), "round {round}: the note is gone");
        let trashed = std::fs::read_dir(instances.dir.join("workspace/.trash"))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(&format!("--{note}.md")))
            .count();
        assert_eq!(trashed, 1, "round {round}: deleted exactly once");
    }
    // Only the race notes were touched: the seeded ones are all still there.
    let left = std::fs::read_dir(instances.dir.join("workspace")).unwrap().count();
    assert_eq!(left, 8, "six seeded notes, the symlink and .trash");
}

#[test]
fn a_listener_on_one_instance_hears_of_a_note_created_through_another() {
    let mut instances = start("listen", 2);
    let workspace = workspace_uri(&instances.dir);
    let listener = &mut instances.servers[1];
    listener.send(&request(
        json!("follow"),
        "subscriptions/listen",
        json!({"notifications": {"resourcesListChanged": true}}),
    ));
    assert_eq!(listener.recv()["method"], "notifications/subscriptions/acknowledged");

    let created = instances.servers[0].call(&request(
        json!(1),
        "tools/call",
        json!({"name": "notes_create", "arguments": {"workspaceUri": workspace, "title": "From elsewhere", "body": "hi"}}),
    ));
    assert!(created["result"]["structuredContent"]["id"].is_string(), "{created}");

    let event = instances.servers[1].recv();
    assert_eq!(event["method"], "notifications/resources/list_changed", "{event}");
    assert_eq!(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "follow");
}

#[test]
fn a_task_started_on_one_instance_is_answered_by_every_other() {
    let mut instances = start("tasks", 3);
    let workspace = workspace_uri(&instances.dir);
    let export = json!({"name": "notes_export", "arguments": {"workspaceUri": workspace}});
    let created = instances.servers[0].call(&task_request(json!(1), "tools/call", export));
    let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {created}")).to_owned();

    // Another instance knows the task, and hears of its end (through the fan-out).
    let done = await_task(&mut instances.servers[2], "watch", &task, "completed", &|_| false);
    assert_eq!(done["result"]["structuredContent"]["count"], 6);
    // Cancelling a finished task from a third instance is acknowledged and changes nothing.
    let ack = instances.servers[1].call(&task_request(json!(3), "tasks/cancel", json!({"taskId": task})));
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    let after = instances.servers[0].call(&task_request(json!(4), "tasks/get", json!({"taskId": task})));
    assert_eq!(after["result"]["status"], "completed");
}
