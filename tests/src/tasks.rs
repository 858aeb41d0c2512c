//! Waiting for a task on a stdio server without polling it: a listen stream names the task,
//! and the server sends `notifications/tasks` on every change of its status.

use serde_json::{Value, json};

use crate::stdio::{StdioProcess, answer_to, stream_of};

/// The tasks extension.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A request that declares the tasks extension.
pub fn task_request(id: Value, method: &str, params: Value) -> Value {
    let mut message = crate::request(id, method, params);
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"extensions": {TASKS: {}}});
    message
}

fn result_of(answer: Value) -> Value {
    answer.get("result").cloned().unwrap_or_else(|| panic!("tasks/get failed: {answer}"))
}

/// Waits until `task` is `status`, and returns it as `tasks/get` shows it then.
///
/// A listen stream with the id `listen` (one the caller uses for nothing else) follows the
/// task, which is read once after the stream is acknowledged, in case it got there before.
/// The stream is left open, so its notifications may still come after this returns (one about
/// the change the reading already showed, say): the caller reads past them. It is not
/// cancelled: a stream cancelled while busy may still be answered (with -32603). Any other
/// message is a failure unless `expected` allows it (notifications of the caller's earlier
/// streams, say): nothing else was asked for.
pub fn await_task(
    server: &mut StdioProcess,
    listen: &str,
    task: &str,
    status: &str,
    expected: &dyn Fn(&Value) -> bool,
) -> Value {
    let (stream, get, again) = (json!(listen), json!(format!("{listen}: get")), json!(format!("{listen}: again")));
    let ours = |message: &Value| match message.get("method") {
        Some(_) => *stream_of(message) == stream,
        None => message["id"] == get || message["id"] == again,
    };
    let heard_about = |message: &Value| ours(message) && message["method"] == "notifications/tasks";
    let acknowledged =
        |message: &Value| ours(message) && message["method"] == "notifications/subscriptions/acknowledged";
    let heard = |message: &Value| heard_about(message) && message["params"]["status"] == status;
    // A task that ended otherwise will not get there: no need to wait for that.
    let ended = |seen: &Value| ["completed", "failed", "cancelled"].iter().any(|end| seen["status"] == *end);
    let settled = |message: &Value| heard(message) || (heard_about(message) && ended(&message["params"]));
    server.send(&task_request(stream.clone(), "subscriptions/listen", json!({"notifications": {"taskIds": [task]}})));
    let mut read = server.recv_until(&[&acknowledged]);
    server.send(&task_request(get.clone(), "tasks/get", json!({"taskId": task})));
    read.extend(server.recv_until(&[&answer_to(get.clone())]));
    let mut got = result_of(read.last().cloned().expect("the answer"));
    if got["status"] != status && !ended(&got) && !read.iter().any(settled) {
        read.extend(server.recv_until(&[&settled]));
    }
    if got["status"] != status {
        // The stream told of it after the first reading: read it again for all it holds now.
        server.send(&task_request(again.clone(), "tasks/get", json!({"taskId": task})));
        read.extend(server.recv_until(&[&answer_to(again.clone())]));
        got = result_of(read.last().cloned().expect("the answer"));
        assert_eq!(got["status"], status, "{task} did not become {status}: {got}");
    }
    let unexpected: Vec<&Value> = read.iter().filter(|m| !ours(m) && !expected(m)).collect();
    assert!(unexpected.is_empty(), "while waiting for {task} to be {status}: {unexpected:?}");
    got
}
