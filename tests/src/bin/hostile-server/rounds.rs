//! Scenarios that never let a call finish, or ask too much at once: a task that always wants
//! one more answer (`endless-task`), rounds that never end (`endless-rounds`), a round of
//! thousands of questions (`many-inputs`), sampling requests in bulk (`sampling`), and a URL to
//! open (`url-elicit`).

use serde_json::{Map, Value, json};

use crate::escapes::url_elicitation;
use crate::record::Record;
use crate::wire::{Incoming, Offer, Query, Reply, TASKS, complete, input_required, meta, plain_info, tool, yes_no};

/// The most input requests `many-inputs` and `sampling` build: the answer is held in memory
/// whole (about 250 bytes a request).
const MAX_REQUESTS: u64 = 100_000;

/// The answer to `message` in `scenario`, if it is one of these.
pub fn answer(scenario: &str, message: &Incoming, query: &Query, record: &Record) -> Option<Reply> {
    let info = plain_info(scenario);
    let reply = match scenario {
        "endless-task" => endless_task(message, query, record, &info),
        "endless-rounds" => {
            if message.method() != "tools/call" {
                return Some(Offer::tools(scenario, vec![tool("again", "Asks again, forever.")]).basic(message));
            }
            let round = record.count("rounds");
            let key = format!("r{round}");
            let request = yes_no(&format!("Round {round}: go on?"));
            let result = input_required(Map::from_iter([(key, request)]), &format!("round-{round}"), &info);
            Reply::ok(message.answer(result))
        }
        "many-inputs" => {
            if message.method() != "tools/call" {
                return Some(Offer::tools(scenario, vec![tool("many", "Asks a great many questions.")]).basic(message));
            }
            if message.is_retry() {
                return Some(answered(message, &info));
            }
            let count = query.number("count", 10_000, MAX_REQUESTS);
            let requests = (0..count).map(|i| (format!("k{i}"), yes_no(&format!("Question {i}?")))).collect();
            Reply::ok(message.answer(input_required(requests, "many", &info)))
        }
        "sampling" => {
            if message.method() != "tools/call" {
                return Some(
                    Offer::tools(scenario, vec![tool("think", "Asks the model, many times at once.")]).basic(message),
                );
            }
            if message.is_retry() {
                return Some(answered(message, &info));
            }
            let count = query.number("count", 4, MAX_REQUESTS);
            let requests = (0..count)
                .map(|i| {
                    let request = json!({
                        "method": "sampling/createMessage",
                        "params": {
                            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Say something (s{i}).")}}],
                            "maxTokens": 10,
                        },
                    });
                    (format!("s{i}"), request)
                })
                .collect();
            Reply::ok(message.answer(input_required(requests, "think", &info)))
        }
        "url-elicit" => {
            if message.method() != "tools/call" {
                return Some(
                    Offer::tools(scenario, vec![tool("login", "Sends you to a page to sign in.")]).basic(message),
                );
            }
            url_elicitation(message, query, "Sign in to continue.", &info)
        }
        _ => return None,
    };
    Some(reply)
}

/// The retry's result: how many answers came.
fn answered(message: &Incoming, info: &Value) -> Reply {
    let count = message.params["inputResponses"].as_object().map_or(0, Map::len);
    let result = json!({"content": [{"type": "text", "text": format!("got {count} answers")}]});
    Reply::ok(message.answer(complete(result, info)))
}

fn endless_task(message: &Incoming, query: &Query, record: &Record, info: &Value) -> Reply {
    let poll = query.number("poll", 10, 3_600_000);
    let task = |id: &str| {
        json!({
            "taskId": id,
            "status": "input_required",
            "statusMessage": "Waiting for your answer.",
            "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttlMs": null,
            "pollIntervalMs": poll,
        })
    };
    let task_id = message.params["taskId"].as_str().unwrap_or("forever-1");
    let ack = || Reply::ok(message.answer(complete(json!({}), info)));
    match message.method() {
        "tools/call" => {
            let mut created = task("forever-1");
            created["resultType"] = json!("task");
            created["_meta"] = meta(info);
            Reply::ok(message.answer(created))
        }
        "tasks/get" => {
            // A key never asked before, every time: the task can never be answered in full.
            let n = record.count("task_gets");
            let mut detailed = task(task_id);
            detailed["inputRequests"] = json!({format!("q{n}"): yes_no(&format!("Question {n}: go on?"))});
            Reply::ok(message.answer(complete(detailed, info)))
        }
        "tasks/update" => {
            record.count("task_updates");
            ack()
        }
        "tasks/cancel" => {
            // Counted, and ignored: the task stays as it was.
            record.count("task_cancels");
            ack()
        }
        _ => Offer {
            info: info.clone(),
            capabilities: json!({"tools": {}, "extensions": {TASKS: {}}}),
            tools: vec![tool("forever", "Runs as a task that never ends.")],
            instructions: None,
        }
        .basic(message),
    }
}
