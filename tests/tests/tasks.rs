//! The tasks extension end to end against the fixture server: a task tool answered directly or
//! as a task depending on what the request declared, polling to every end state, cooperative
//! cancellation, rounds inside a task answered with `tasks/update`, tasks on listen streams,
//! one principal's tasks hidden from another, and task records surviving a restart of the
//! server: a task that was running is reported failed, a task waiting for input resumes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcp_rounds_tests::http::{HttpProcess, request as http};
use mcp_rounds_tests::stdio::{StdioProcess, answer_to, event, stream_of};
use mcp_rounds_tests::tasks::{TASKS, await_task};
use mcp_rounds_tests::{meta, wait};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_fixture-server");
/// The task lease of the restart test.
const LEASE_MS: u64 = 600;

fn with_tasks() -> Value {
    json!({"elicitation": {}, "extensions": {TASKS: {}}})
}

fn message(id: i64, method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: i64, name: &str, arguments: Value, capabilities: Value) -> Value {
    message(id, "tools/call", json!({"name": name, "arguments": arguments}), capabilities)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-rounds-tasks-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A notification of a stream an earlier [`Client::wait_for`] opened: they stay open.
fn from_an_earlier_wait(message: &Value) -> bool {
    message.get("id").is_none() && stream_of(message).as_str().is_some_and(|s| s.starts_with("wait-"))
}

struct Client {
    server: StdioProcess,
    next: i64,
}

impl Client {
    fn start(args: &[&str]) -> Self {
        Client { server: StdioProcess::spawn(BIN, args), next: 100 }
    }

    fn call(&mut self, message: &Value) -> Value {
        self.server.call_past(message, &from_an_earlier_wait)
    }

    fn ask(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        self.call(&message(self.next, method, params, with_tasks()))
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let answer = self.ask(method, params);
        answer.get("result").cloned().unwrap_or_else(|| panic!("{method} failed: {answer}"))
    }

    fn start_task(&mut self, name: &str, arguments: Value) -> String {
        let created = self.result("tools/call", json!({"name": name, "arguments": arguments}));
        assert_eq!(created["resultType"], "task", "{created}");
        created["taskId"].as_str().expect("a task id").to_owned()
    }

    fn get(&mut self, task: &str) -> Value {
        self.result("tasks/get", json!({"taskId": task}))
    }

    /// Waits, on a listen stream, until the task is `status`.
    fn wait_for(&mut self, task: &str, status: &str) -> Value {
        self.next += 1;
        await_task(&mut self.server, &format!("wait-{}", self.next), task, status, &from_an_earlier_wait)
    }
}

#[test]
fn a_task_tool_is_a_task_only_for_a_client_that_declared_the_extension() {
    let dir = scratch("lifecycle");
    let mut client = Client::start(&["--tasks", "--notes", dir.to_str().unwrap()]);

    let discover = client.result("server/discover", json!({}));
    assert_eq!(discover["capabilities"]["extensions"][TASKS], json!({}));

    let plain = client.call(&call(1, "slow_task", json!({"ms": 50, "label": "plain"}), json!({})));
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    assert_eq!(plain["result"]["content"][0]["text"], "plain done after 50 ms");

    let created = client.result("tools/call", json!({"name": "slow_task", "arguments": {"ms": 300, "label": "t"}}));
    assert_eq!(created["status"], "working");
    assert!(created["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0), "{created}");
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'));
    for absent in ["result", "error", "inputRequests", "requestState"] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    let task = created["taskId"].as_str().unwrap().to_owned();
    let at_once = client.get(&task);
    assert!(
        at_once["status"] == "working" || at_once["status"] == "completed",
        "durable before the answer went out: {at_once}"
    );
    let done = client.wait_for(&task, "completed");
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "t done after 300 ms");
    assert!(done["lastUpdatedAt"].as_str().unwrap() >= done["createdAt"].as_str().unwrap());

    // Required-task tools refuse a client without the extension, naming it.
    let refused = client.call(&call(2, "asking_task", json!({}), json!({"elicitation": {}})));
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(refused["error"]["data"]["requiredCapabilities"]["extensions"][TASKS], json!({}));
    let refused = client.call(&message(3, "tasks/get", json!({"taskId": task}), json!({})));
    assert_eq!(refused["error"]["code"], -32021, "the capability is checked before the task is looked up");
    let unknown = client.ask("tasks/get", json!({"taskId": "no-such-task"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let removed = client.ask("tasks/list", json!({}));
    assert_eq!(removed["error"]["code"], -32601);
}

#[test]
fn cancelling_a_task_signals_the_tool_and_the_cancellation_stands() {
    let dir = scratch("cancel");
    let mut client = Client::start(&["--tasks", "--notes", dir.to_str().unwrap()]);
    let task = client.start_task("slow_task", json!({"ms": 60_000, "label": "long"}));
    let ack = client.result("tasks/cancel", json!({"taskId": task}));
    assert_eq!(ack, json!({"resultType": "complete"}));
    let cancelled = client.get(&task);
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(cancelled.get("result").is_none() && cancelled.get("error").is_none());

    // The tool leaves a marker when it sees the cancellation, then ends with its own error.
    wait::for_file(&dir.join("long.cancelled"));
    // That end does not undo the cancellation. The worker records (here: drops) it right after
    // the marker, without waiting for anything, but sends nothing a test could wait for: the
    // task is read once the marker is there.
    assert_eq!(client.get(&task)["status"], "cancelled");
    assert_eq!(client.result("tasks/cancel", json!({"taskId": task})), json!({"resultType": "complete"}));
}

#[test]
fn rounds_inside_a_task_are_answered_with_tasks_update_and_keys_never_repeat() {
    let dir = scratch("rounds");
    let mut client = Client::start(&["--tasks", "--notes", dir.to_str().unwrap()]);
    let task = client.start_task("asking_task", json!({}));
    let waiting = client.wait_for(&task, "input_required");
    let requests = waiting["inputRequests"].as_object().expect("inputRequests is an object");
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["go"]);
    assert_eq!(requests["go"]["method"], "elicitation/create");
    assert!(waiting.get("requestState").is_none(), "the round's state stays on the server");

    let ack =
        client.result("tasks/update", json!({"taskId": task, "inputResponses": {"unknown": {"action": "cancel"}}}));
    assert_eq!(ack, json!({"resultType": "complete"}));
    assert_eq!(client.get(&task)["status"], "input_required", "keys it is not waiting for are ignored");

    let accept = json!({"action": "accept", "content": {"go": true}});
    client.result("tasks/update", json!({"taskId": task, "inputResponses": {"go": accept}}));
    let second = client.wait_for(&task, "input_required");
    let keys: Vec<&String> = second["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["go~2"], "the second round's key differs from the first's: {second}");
    client.result("tasks/update", json!({"taskId": task, "inputResponses": {"go": accept}}));
    assert_eq!(client.get(&task)["status"], "input_required", "the first round's key no longer answers");

    // A malformed answer is refused by the round's validation: the task fails with -32602.
    let bad = client.start_task("asking_task", json!({}));
    client.wait_for(&bad, "input_required");
    client.result(
        "tasks/update",
        json!({"taskId": bad, "inputResponses": {"go": {"action": "accept", "content": {"go": "yes"}}}}),
    );
    let failed = client.wait_for(&bad, "failed");
    assert_eq!(failed["error"]["code"], -32602, "{failed}");

    client.result("tasks/update", json!({"taskId": task, "inputResponses": {"go~2": accept}}));
    let done = client.wait_for(&task, "completed");
    assert_eq!(done["result"]["content"][0]["text"], "went on twice");
}

#[test]
fn listen_streams_carry_the_tasks_they_asked_for() {
    let dir = scratch("listen");
    let mut client = Client::start(&["--tasks", "--notes", dir.to_str().unwrap()]);
    let task = client.start_task("slow_task", json!({"ms": 60_000, "label": "heard"}));
    let next = client.start_task("slow_task", json!({"ms": 60_000, "label": "next"}));

    let refused =
        client.call(&message(1, "subscriptions/listen", json!({"notifications": {"taskIds": [task]}}), json!({})));
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    client.server.send(&message(
        2,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [task, next, "someone-elses"]}}),
        with_tasks(),
    ));
    let ack = client.server.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([task, next]), "only tasks the caller can see");
    let about = |task: &str| {
        let task = task.to_owned();
        move |m: &Value| event("notifications/tasks", json!(2))(m) && m["params"]["taskId"] == task.as_str()
    };
    // A change made after the stream opened: the cancellation (and its answer, in either order).
    client.server.send(&message(3, "tasks/cancel", json!({"taskId": task}), with_tasks()));
    let mut seen = client.server.recv_until(&[&answer_to(json!(3)), &about(&task)]);
    let event = seen.iter().find(|m| about(&task)(m)).unwrap().clone();
    assert_eq!(event["params"]["status"], "cancelled");
    assert_eq!(event["params"]["statusMessage"], "Cancelled by the client");
    // The tool sees the cancellation and ends after it; then a change of the other task. The
    // stream delivers in order: a second event about the first would come before this one.
    wait::for_file(&dir.join("heard.cancelled"));
    client.server.send(&message(4, "tasks/cancel", json!({"taskId": next}), with_tasks()));
    seen.extend(client.server.recv_until(&[&answer_to(json!(4)), &about(&next)]));
    let events: Vec<(&Value, &Value)> = seen
        .iter()
        .filter(|m| m.get("method").is_some())
        .map(|m| (&m["params"]["taskId"], &m["params"]["status"]))
        .collect();
    assert_eq!(
        events,
        [(&json!(task), &json!("cancelled")), (&json!(next), &json!("cancelled"))],
        "one change, one event"
    );
}

#[test]
fn one_principals_tasks_do_not_exist_for_another() {
    let dir = scratch("principals");
    let server = HttpProcess::spawn(
        BIN,
        &["--tasks", "--notes", dir.to_str().unwrap(), "--token", "tok-a=alice", "--token", "tok-b=bob"],
    );
    let post = |token: &str, body: &Value| {
        let method = body["method"].as_str().unwrap().to_owned();
        let name = body["params"]["name"].as_str().or(body["params"]["taskId"].as_str()).map(str::to_owned);
        let mut headers = vec![
            ("Content-Type", "application/json".to_owned()),
            ("Accept", "application/json, text/event-stream".to_owned()),
            ("Authorization", format!("Bearer {token}")),
            ("MCP-Protocol-Version", "2026-07-28".to_owned()),
            ("Mcp-Method", method),
        ];
        if let Some(name) = name {
            headers.push(("Mcp-Name", name));
        }
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        http(&server.address, "POST", &headers, body.to_string().as_bytes()).json()
    };
    let created = post("tok-a", &call(1, "slow_task", json!({"ms": 60_000, "label": "mine"}), with_tasks()));
    let task = created["result"]["taskId"].as_str().expect("a task").to_owned();
    for method in ["tasks/get", "tasks/cancel"] {
        let theirs = post("tok-b", &message(2, method, json!({"taskId": task}), with_tasks()));
        assert_eq!(theirs["error"]["code"], -32602, "{method}: {theirs}");
    }
    let mine = post("tok-a", &message(3, "tasks/get", json!({"taskId": task}), with_tasks()));
    assert_eq!(mine["result"]["status"], "working", "bob's cancel did nothing: {mine}");
    post("tok-a", &message(4, "tasks/cancel", json!({"taskId": task}), with_tasks()));
}

#[test]
fn task_records_survive_a_restart_running_ones_fail_waiting_ones_resume() {
    let dir = scratch("restart");
    let db = dir.join("tasks.sqlite3");
    let lease = LEASE_MS.to_string();
    let args = ["--task-db", db.to_str().unwrap(), "--task-lease-ms", &lease, "--notes", dir.to_str().unwrap()];

    let mut first = Client::start(&args);
    let running = first.start_task("slow_task", json!({"ms": 60_000, "label": "interrupted"}));
    let waiting = first.start_task("asking_task", json!({}));
    first.wait_for(&waiting, "input_required");
    drop(first); // killed, not shut down
    // The running task's lease was last renewed before the kill, so it has run out a lease
    // later (plus a millisecond for rounding, one for the clocks). Nothing announces that: the
    // next instance finds out when asked, so this waits for the moment itself.
    let expired = Instant::now() + Duration::from_millis(LEASE_MS + 2);

    let mut second = Client::start(&args);
    wait::until(expired);
    let failed = second.get(&running);
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed["error"]["message"].as_str().unwrap().contains("stopped before it finished"), "{failed}");
    assert!(failed["statusMessage"].is_string());

    let still = second.get(&waiting);
    assert_eq!(still["status"], "input_required", "a task waiting for answers waits across restarts");
    let accept = json!({"action": "accept", "content": {"go": true}});
    second.result("tasks/update", json!({"taskId": waiting, "inputResponses": {"go": accept}}));
    second.wait_for(&waiting, "input_required");
    second.result("tasks/update", json!({"taskId": waiting, "inputResponses": {"go~2": accept}}));
    let done = second.wait_for(&waiting, "completed");
    assert_eq!(done["result"]["content"][0]["text"], "went on twice", "resumed on the new process");
}

#[test]
fn a_cancellation_made_on_another_instance_reaches_the_running_tool() {
    let dir = scratch("elsewhere");
    let db = dir.join("tasks.sqlite3");
    let args = ["--task-db", db.to_str().unwrap(), "--task-lease-ms", "1000", "--notes", dir.to_str().unwrap()];
    let mut running_here = Client::start(&args);
    let mut elsewhere = Client::start(&args);
    let task = running_here.start_task("slow_task", json!({"ms": 60_000, "label": "remote"}));
    assert_eq!(elsewhere.get(&task)["status"], "working", "the other instance sees it");
    assert_eq!(elsewhere.result("tasks/cancel", json!({"taskId": task})), json!({"resultType": "complete"}));
    // The instance running it sees the cancellation when it next renews the lease, and the
    // tool leaves a marker.
    wait::for_file(&dir.join("remote.cancelled"));
    assert_eq!(running_here.get(&task)["status"], "cancelled");
}

#[test]
fn a_task_sends_no_progress_for_a_request_already_answered() {
    let dir = scratch("progress");
    let mut client = Client::start(&["--tasks", "--notes", dir.to_str().unwrap()]);
    let with_token = |id: i64, capabilities: Value| {
        let mut request = call(id, "slow_task", json!({"ms": 200, "label": "p"}), capabilities);
        request["params"]["_meta"]["progressToken"] = json!("tok");
        request
    };
    // An ordinary call: progress, then the answer.
    client.server.send(&with_token(1, json!({})));
    let mut progress = 0;
    let answer = loop {
        let message = client.server.recv();
        if message["method"] == "notifications/progress" {
            progress += 1;
            continue;
        }
        break message;
    };
    assert_eq!(progress, 2);
    assert_eq!(answer["result"]["content"][0]["text"], "p done after 200 ms");

    // As a task: the answer is the task, and the request hears nothing more.
    let created = client.server.call(&with_token(2, with_tasks()));
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    // Progress the tool reported would come before the task's end, and the wait for that end
    // fails on any message it did not ask for.
    let done = await_task(&mut client.server, "done", &task, "completed", &|_| false);
    assert_eq!(done["result"]["content"][0]["text"], "p done after 200 ms");
}
