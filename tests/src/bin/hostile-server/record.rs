//! What the server counted and what reached the other origin, served as `GET /_record`. All of
//! it stays in memory: a fixture lives for one test.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde_json::{Map, Value, json};

/// How much of each request body elsewhere keeps.
pub const KEPT_BODY: usize = 64 * 1024;

/// The scenarios whose bodies are counted in `bytes_sent`.
pub const STREAMED: [&str; 7] =
    ["big-json", "big-sse-line", "big-sse-event", "big-sse-id", "sse-retry", "drip", "legacy-flood"];

/// The counters, all reported (zero until something happens), so a test can read any of them.
pub const COUNTERS: [&str; 13] = [
    "rounds",
    "task_gets",
    "task_updates",
    "task_cancels",
    "legacy_sessions",
    "legacy_requests_sent",
    "legacy_answers",
    "legacy_answer_results",
    "legacy_answer_errors",
    "nopkce_authorize",
    "nopkce_token",
    "harvest_authorize",
    "harvest_token",
];

/// One request that reached the other origin.
pub struct Visit {
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: Vec<(String, String)>,
    /// The first [`KEPT_BODY`] bytes.
    pub body: Vec<u8>,
    /// The whole body's length.
    pub body_bytes: u64,
}

#[derive(Default)]
struct State {
    bytes_sent: BTreeMap<String, u64>,
    counters: BTreeMap<&'static str, u64>,
    requests: BTreeMap<String, u64>,
    elsewhere: Vec<Visit>,
}

/// The record, shared by every connection.
#[derive(Default)]
pub struct Record {
    state: Mutex<State>,
}

impl Record {
    fn state(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere must not hide what was recorded before it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `bytes` to what `scenario` handed to connections.
    pub fn sent(&self, scenario: &str, bytes: u64) {
        *self.state().bytes_sent.entry(scenario.to_owned()).or_default() += bytes;
    }

    /// Adds one to `counter` (one of [`COUNTERS`]) and returns its new value.
    pub fn count(&self, counter: &'static str) -> u64 {
        let mut state = self.state();
        let value = state.counters.entry(counter).or_default();
        *value += 1;
        *value
    }

    /// Adds `n` to `counter` (one of [`COUNTERS`]).
    pub fn add(&self, counter: &'static str, n: u64) {
        *self.state().counters.entry(counter).or_default() += n;
    }

    /// Counts a message reaching `scenario`'s endpoint.
    pub fn request(&self, scenario: &str) {
        *self.state().requests.entry(scenario.to_owned()).or_default() += 1;
    }

    /// Keeps a request that reached the other origin.
    pub fn visit(&self, visit: Visit) {
        self.state().elsewhere.push(visit);
    }

    /// Everything, as `GET /_record` serves it.
    pub fn to_json(&self) -> Value {
        let state = self.state();
        let mut bytes_sent: Map<String, Value> = STREAMED.iter().map(|s| ((*s).to_owned(), json!(0))).collect();
        for (scenario, bytes) in &state.bytes_sent {
            bytes_sent.insert(scenario.clone(), json!(bytes));
        }
        let mut out = Map::new();
        out.insert("bytes_sent".into(), Value::Object(bytes_sent));
        for counter in COUNTERS {
            out.insert(counter.into(), json!(state.counters.get(counter).copied().unwrap_or(0)));
        }
        out.insert("requests".into(), json!(state.requests));
        let elsewhere: Vec<Value> = state
            .elsewhere
            .iter()
            .map(|visit| {
                let mut headers = Map::new();
                for (name, value) in &visit.headers {
                    match headers.get_mut(name) {
                        // A repeated header reads as one, its values joined as HTTP allows.
                        Some(Value::String(seen)) => {
                            seen.push_str(", ");
                            seen.push_str(value);
                        }
                        _ => {
                            headers.insert(name.clone(), json!(value));
                        }
                    }
                }
                json!({
                    "method": visit.method,
                    "path": visit.path,
                    "query": visit.query,
                    "headers": headers,
                    "body": String::from_utf8_lossy(&visit.body),
                    "body_bytes": visit.body_bytes,
                })
            })
            .collect();
        out.insert("elsewhere".into(), Value::Array(elsewhere));
        Value::Object(out)
    }
}
