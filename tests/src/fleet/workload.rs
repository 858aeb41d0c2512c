//! The workload: concurrent clients through the load balancer doing what users of the notes
//! server do (create, edit, read, two-round deletes with their confirmation, exports that become
//! tasks) while listen streams follow every note. Each worker owns its slots (notes of its own),
//! so that the order of everything done to one note is known; what each request got back,
//! "lost" included, goes to the record.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use super::client::{Answer, Mcp, message};
use super::record::{Call, Clock, Op, Recorder, Task};

/// How hard and how long the workload runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Concurrent workers.
    pub workers: usize,
    /// Notes per worker.
    pub slots: usize,
    /// Listen streams held open (each listens again when it ends).
    pub streams: usize,
    /// How often an export task is started.
    pub export_every: Duration,
    /// How long one request may take before its answer counts as lost.
    pub timeout: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            workers: 4,
            slots: 4,
            streams: 3,
            export_every: Duration::from_millis(1500),
            timeout: Duration::from_secs(40),
        }
    }
}

/// The title of worker `worker`'s slot `slot`; its id is the same in lowercase with dashes.
pub fn slot_title(worker: usize, slot: usize) -> String {
    format!("Fleet w{worker} s{slot}")
}

/// The id the notes server gives `slot_title`.
pub fn slot_id(worker: usize, slot: usize) -> String {
    format!("fleet-w{worker}-s{slot}")
}

/// The body of version `version` of note `id`: long enough that a note cut short shows, and
/// naming its version at both ends.
pub fn body(id: &str, version: u32) -> String {
    let filler = format!("{id} v{version} ").repeat(40);
    format!("{id} v{version} begins\n\n{filler}\n\n{id} v{version} ends")
}

/// The whole text of a note as the server writes it.
pub fn note_text(title: &str, id: &str, version: u32) -> String {
    format!("# {title}\n\n{}\n", body(id, version))
}

/// A small deterministic generator: runs differ only in timing, never in what is chosen.
pub struct Dice(u64);

impl Dice {
    /// Seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Dice(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// What the worker believes of one of its notes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Known {
    Absent,
    Present,
    Unsure,
}

/// A delete confirmation kept to send again later.
struct Held {
    slot: usize,
    state: usize,
    request: Value,
}

/// What every worker shares.
#[derive(Clone)]
pub struct Shared {
    /// The client.
    pub mcp: Mcp,
    /// The clock.
    pub clock: Clock,
    /// The record.
    pub recorder: Recorder,
    /// The workspace's URI.
    pub workspace: String,
    /// Set when the workload should stop.
    pub stop: Arc<AtomicBool>,
    /// The settings.
    pub settings: Settings,
}

impl Shared {
    async fn send(&self, worker: usize, op: Op, request: &Value) -> Answer {
        let sent = self.clock.now();
        let answer = self.mcp.send(request, self.settings.timeout).await;
        let id = request["id"].as_str().unwrap_or_default().to_owned();
        self.recorder.call(Call { worker, op, sent, answered: self.clock.now(), answer: answer.clone(), request: id });
        answer
    }

    fn tool(&self, id: String, name: &str, arguments: Value, capabilities: Value) -> Value {
        message(&id, "tools/call", json!({"name": name, "arguments": arguments}), capabilities)
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// Whether a tool call's answer is a result that is not an error.
pub fn succeeded(answer: &Answer) -> bool {
    answer.result().is_some_and(|r| r["isError"] != json!(true))
}

/// Whether a tool call's answer is a tool error (the tool ran and refused).
pub fn tool_error(answer: &Answer) -> bool {
    answer.result().is_some_and(|r| r["isError"] == json!(true))
}

/// How long to wait before sending a refused request again: what the answer says, or a moment.
fn backoff(answer: &Answer) -> Duration {
    let said = match answer {
        Answer::Reply { message: Some(m), .. } => m["error"]["data"]["retryAfterMs"].as_u64(),
        _ => None,
    };
    Duration::from_millis(said.unwrap_or(200).min(2000))
}

/// One worker: until told to stop, picks one of its notes and does something to it.
pub async fn worker(shared: Shared, worker: usize) {
    let mut dice = Dice::new(worker as u64 + 1);
    let mut known = vec![Known::Absent; shared.settings.slots];
    let mut versions = vec![0u32; shared.settings.slots];
    let mut held: Option<Held> = None;
    let mut n = 0;
    while !shared.stopping() {
        n += 1;
        let slot = dice.below(known.len());
        let (title, id) = (slot_title(worker, slot), slot_id(worker, slot));
        let request_id = format!("w{worker}-{n}");
        let workspace = shared.workspace.clone();
        if let Some(kept) = held.take_if(|_| dice.below(4) == 0) {
            // A client that sends a finished confirmation again (a retry after a timeout, a
            // user pressing twice): it must be refused, and change nothing.
            let op = Op::Confirm { slot: slot_id(worker, kept.slot), state: kept.state, replay: true };
            let answer = shared.send(worker, op, &kept.request).await;
            if succeeded(&answer) {
                known[kept.slot] = Known::Unsure;
            }
            continue;
        }
        match known[slot] {
            Known::Unsure => {
                let args = json!({"workspaceUri": workspace, "id": id});
                let answer = shared
                    .send(
                        worker,
                        Op::Read { slot: id.clone() },
                        &shared.tool(request_id, "notes_read", args, json!({})),
                    )
                    .await;
                known[slot] = if succeeded(&answer) {
                    Known::Present
                } else if tool_error(&answer) {
                    Known::Absent
                } else {
                    Known::Unsure
                };
            }
            Known::Absent => {
                versions[slot] += 1;
                let version = versions[slot];
                let args = json!({"workspaceUri": workspace, "title": title, "body": body(&id, version)});
                let op = Op::Create { slot: id.clone(), version };
                let answer = shared.send(worker, op, &shared.tool(request_id, "notes_create", args, json!({}))).await;
                known[slot] = if succeeded(&answer) {
                    Known::Present
                } else if tool_error(&answer) || matches!(answer.status(), Some(503)) {
                    Known::Absent
                } else {
                    Known::Unsure
                };
            }
            Known::Present => match dice.below(10) {
                0..=3 => {
                    versions[slot] += 1;
                    let version = versions[slot];
                    let args = json!({"workspaceUri": workspace, "id": id, "body": body(&id, version)});
                    let op = Op::Edit { slot: id.clone(), version };
                    let answer = shared.send(worker, op, &shared.tool(request_id, "notes_edit", args, json!({}))).await;
                    if !succeeded(&answer) {
                        known[slot] = Known::Unsure;
                    }
                }
                4..=6 => {
                    let args = json!({"workspaceUri": workspace, "id": id});
                    let op = Op::Read { slot: id.clone() };
                    let answer = shared.send(worker, op, &shared.tool(request_id, "notes_read", args, json!({}))).await;
                    if !succeeded(&answer) {
                        known[slot] = Known::Unsure;
                    }
                }
                _ => {
                    let outcome = delete(&shared, worker, slot, &request_id, &mut dice).await;
                    known[slot] = outcome.known;
                    if let Some(kept) = outcome.held {
                        held = Some(kept);
                    }
                }
            },
        }
    }
}

struct Deleted {
    known: Known,
    held: Option<Held>,
}

/// A two-round delete: ask, then confirm with the state, sending the confirmation again while
/// the answer says to try again or never came.
async fn delete(shared: &Shared, worker: usize, slot: usize, request_id: &str, dice: &mut Dice) -> Deleted {
    let (title, id) = (slot_title(worker, slot), slot_id(worker, slot));
    let elicitation = json!({"elicitation": {}});
    let arguments = json!({"workspaceUri": shared.workspace, "title": title});
    let ask = shared.tool(format!("{request_id}-ask"), "notes_delete", arguments.clone(), elicitation.clone());
    let asked = shared.send(worker, Op::Ask { slot: id.clone() }, &ask).await;
    let Some(state) = asked.result().and_then(|r| r["requestState"].as_str()).map(str::to_owned) else {
        let known = if tool_error(&asked) { Known::Absent } else { Known::Unsure };
        return Deleted { known, held: None };
    };
    let number = shared.recorder.state(&state, shared.clock.now());
    let confirm = message(
        &format!("{request_id}-confirm"),
        "tools/call",
        json!({
            "name": "notes_delete",
            "arguments": arguments,
            "inputResponses": {"choice": {"action": "accept", "content": {"note": id, "confirm": true}}},
            "requestState": state,
        }),
        elicitation,
    );
    shared.recorder.confirm(number, &confirm);
    let mut confirm = confirm;
    for attempt in 0..6 {
        confirm["id"] = json!(format!("{request_id}-confirm-{attempt}"));
        let op = Op::Confirm { slot: id.clone(), state: number, replay: false };
        let answer = shared.send(worker, op, &confirm).await;
        if succeeded(&answer) {
            let held = (dice.below(3) == 0).then(|| Held { slot, state: number, request: confirm.clone() });
            return Deleted { known: Known::Absent, held };
        }
        let again = matches!(answer, Answer::Lost(_)) || matches!(answer.status(), Some(502..=504));
        if !again || shared.stopping() {
            return Deleted { known: Known::Unsure, held: None };
        }
        tokio::time::sleep(backoff(&answer)).await;
    }
    Deleted { known: Known::Unsure, held: None }
}

/// Starts an export every so often and follows each task to its end through the balancer.
pub async fn exporter(shared: Shared) {
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let mut n = 0;
    while !shared.stopping() {
        n += 1;
        let request_id = format!("export-{n}");
        let request =
            shared.tool(request_id.clone(), "notes_export", json!({"workspaceUri": shared.workspace}), tasks.clone());
        let created = shared.clock.now();
        let answer = shared.send(usize::MAX, Op::Export, &request).await;
        if let Some(task) = answer.result().and_then(|r| r["taskId"].as_str()) {
            shared.recorder.task(Task {
                id: task.to_owned(),
                created_by: answer.served_by().map(str::to_owned),
                created,
                request: request_id,
            });
        }
        tokio::time::sleep(shared.settings.export_every).await;
    }
}

/// `tasks/get` of `task` (through whatever `shared.mcp` points at), recorded.
pub async fn task_status(shared: &Shared, task: &str, label: &str) -> Answer {
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let request = message(label, "tasks/get", json!({"taskId": task}), tasks);
    shared.send(usize::MAX, Op::TaskGet { task: task.to_owned() }, &request).await
}
