//! What the workload did and saw, with times in milliseconds since the run started: every
//! request and its answer, every listen stream and its events, every task, every fault. The
//! checker reads only this and the data left on disk.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use serde_json::Value;

use super::client::Answer;

/// Milliseconds since the run started.
#[derive(Clone)]
pub struct Clock(Instant, SystemTime);

impl Clock {
    /// Starts counting now.
    pub fn start() -> Self {
        Clock(Instant::now(), SystemTime::now())
    }

    /// Milliseconds since the start.
    pub fn now(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }

    /// A wall-clock time (a server's timestamp, say) on this clock.
    pub fn of_wall(&self, time: SystemTime) -> f64 {
        match time.duration_since(self.1) {
            Ok(after) => after.as_secs_f64() * 1000.0,
            Err(before) => -before.duration().as_secs_f64() * 1000.0,
        }
    }
}

/// What a request was for.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `notes_create` of a slot's note with its version-th body.
    Create { slot: String, version: u32 },
    /// `notes_edit` of a slot's note to its version-th body.
    Edit { slot: String, version: u32 },
    /// `notes_read` of a slot's note.
    Read { slot: String },
    /// The first round of `notes_delete`: asks which note and for the confirmation.
    Ask { slot: String },
    /// The second round: the confirmation with state number `state` (an index into
    /// [`Journal::states`]); `replay` when the client had already sent it and been answered.
    Confirm { slot: String, state: usize, replay: bool },
    /// `notes_export`, which becomes a task.
    Export,
    /// `tasks/get` of a task.
    TaskGet { task: String },
    /// `resources/list` by the client of a stream that ended, catching up.
    List,
}

/// One request and what came of it.
#[derive(Clone, Debug)]
pub struct Call {
    /// The worker that sent it.
    pub worker: usize,
    /// What it was for.
    pub op: Op,
    /// When it was sent.
    pub sent: f64,
    /// When its answer (or the loss of it) came.
    pub answered: f64,
    /// The answer.
    pub answer: Answer,
    /// The JSON-RPC id of the request.
    pub request: String,
}

/// A change event a stream delivered.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `notifications/resources/list_changed`.
    ListChanged,
    /// `notifications/resources/updated` for this URI.
    Updated(String),
}

/// How a stream ended.
#[derive(Clone, Debug, PartialEq)]
pub enum End {
    /// The server ended it with its result: the client listens again.
    Result,
    /// The connection ended or failed without a result (an instance or the proxy died).
    Dropped(String),
    /// The workload closed it at the end of the run.
    Closed,
}

/// One listen stream.
#[derive(Clone, Debug, Default)]
pub struct Stream {
    /// When its acknowledgement came.
    pub acknowledged: Option<f64>,
    /// The instance serving it.
    pub served_by: Option<String>,
    /// Its events, with when each came.
    pub events: Vec<(f64, Event)>,
    /// When and how it ended.
    pub ended: Option<(f64, End)>,
    /// Which of the workload's stream clients held it.
    pub follower: usize,
    /// When, after it ended, its client had listed the notes again.
    pub relisted: Option<f64>,
}

/// A task the workload started.
#[derive(Clone, Debug)]
pub struct Task {
    /// Its id.
    pub id: String,
    /// The instance that created it.
    pub created_by: Option<String>,
    /// When it was asked for.
    pub created: f64,
    /// The id of the request that created it.
    pub request: String,
}

/// A task as one instance showed it at the end.
#[derive(Clone, Debug)]
pub struct TaskEnd {
    /// The task.
    pub task: String,
    /// The instance asked.
    pub instance: String,
    /// Its status there.
    pub status: Option<String>,
    /// The tool's result, when completed.
    pub result: Option<Value>,
    /// The error, when failed.
    pub error: Option<Value>,
    /// When it last changed (its `lastUpdatedAt`, on the run's clock).
    pub updated: Option<f64>,
}

/// A fault injected, and when the fleet was whole again.
#[derive(Clone, Debug)]
pub struct Fault {
    /// What it was (`kill n2`, `postgres restart`, …).
    pub what: String,
    /// When it began.
    pub began: f64,
    /// When the fault itself was over (the instance restarted, the database up again).
    pub ended: f64,
    /// When every instance was up in the load balancer and a request succeeded again.
    pub recovered: Option<f64>,
    /// The fault's steps (a rotation's phases), each with when it was done.
    pub phases: Vec<(String, f64)>,
    /// What the fault itself found wrong (a state accepted after a crash, say).
    pub violations: Vec<String>,
    /// What shows that the fault met work in flight, besides the record's calls.
    pub evidence: Vec<String>,
}

/// Everything recorded in one run.
#[derive(Clone, Debug, Default)]
pub struct Journal {
    /// Every request.
    pub calls: Vec<Call>,
    /// Every listen stream.
    pub streams: Vec<Stream>,
    /// Every `requestState` the workload was given, in order, with when it came.
    pub states: Vec<(String, f64)>,
    /// Every task created.
    pub tasks: Vec<Task>,
    /// Every fault.
    pub faults: Vec<Fault>,
    /// Each task as each instance showed it at the end.
    pub task_ends: Vec<TaskEnd>,
    /// The confirmation request sent with each state, by state number.
    pub confirms: BTreeMap<usize, Value>,
    /// How many times the export answering each request ran (by request id).
    pub export_runs: BTreeMap<String, usize>,
    /// When the workload stopped and the streams were told to close.
    pub closing: Option<f64>,
}

/// The journal, shared by the workers.
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Journal>>);

impl Recorder {
    /// Records a request.
    pub fn call(&self, call: Call) {
        self.0.lock().unwrap().calls.push(call);
    }

    /// Records a state given at `at`; its number.
    pub fn state(&self, state: &str, at: f64) -> usize {
        let mut journal = self.0.lock().unwrap();
        journal.states.push((state.to_owned(), at));
        journal.states.len() - 1
    }

    /// Starts recording a stream held by client `follower`; its number.
    pub fn stream(&self, follower: usize) -> usize {
        let mut journal = self.0.lock().unwrap();
        journal.streams.push(Stream { follower, ..Stream::default() });
        journal.streams.len() - 1
    }

    /// Updates stream `index`.
    pub fn update_stream(&self, index: usize, update: impl FnOnce(&mut Stream)) {
        update(&mut self.0.lock().unwrap().streams[index]);
    }

    /// Records a task.
    pub fn task(&self, task: Task) {
        self.0.lock().unwrap().tasks.push(task);
    }

    /// Records a fault.
    pub fn fault(&self, fault: Fault) {
        self.0.lock().unwrap().faults.push(fault);
    }

    /// Records a task as an instance showed it at the end.
    pub fn task_end(&self, end: TaskEnd) {
        self.0.lock().unwrap().task_ends.push(end);
    }

    /// Records the confirmation sent with state number `state`.
    pub fn confirm(&self, state: usize, request: &Value) {
        self.0.lock().unwrap().confirms.insert(state, request.clone());
    }

    /// Changes the journal.
    pub fn update(&self, update: impl FnOnce(&mut Journal)) {
        update(&mut self.0.lock().unwrap());
    }

    /// A copy of everything so far.
    pub fn journal(&self) -> Journal {
        self.0.lock().unwrap().clone()
    }
}
