//! A tool call played out by the client against a server the fuzzer writes: every answer to
//! `tools/call` and `tasks/get` comes from the input (rounds of forms, URLs, sampling and
//! roots with any `requestState`, results, tasks in every state, errors, text that is not a
//! result, answers over the message limit). Whatever it says, the call ends, without waiting
//! on anything that never comes; it sends at most `max_rounds + 1` calls, and its rounds,
//! those of a task it became included, never pass `max_rounds`; the handler is asked at most
//! `max_input_requests` requests a round, each once; every retry sends back the last round's
//! `requestState` exactly and answers exactly its keys; an answer over the message limit ends
//! the call; and a task the client stops following is cancelled, one it saw end is not.
//!
//! Input: the server's answers as JSON text, one a line (starting with `{`); or what builds
//! the answers and the handler's choices.

#![no_main]

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use mcp_rounds::client::{
    Asking, Client, ClientHandler, ClientTransport, Inbox, Lifecycle, Outbound, OutboundKind, TransportError,
};
use mcp_rounds::future::BoxFuture;
use mcp_rounds::model::{
    CallToolRequestParams, CreateMessageRequestParams, CreateMessageResult, CreateTaskResult, DetailedTask,
    ElicitRequestParams, ElicitResult, InputRequiredResult, ListRootsResult, TaskStatus,
};
use serde_json::{Map, Value, json};

const MAX_ROUNDS: usize = 3;
const MAX_INPUT_REQUESTS: usize = 4;
const MAX_MESSAGE_SIZE: usize = 4096;
/// Longer than any run of polls an input can ask for (each waits at most 30 s, and time is
/// the runtime's own, which skips ahead when everything waits): only a call that waits on
/// something that never comes reaches it.
const HUNG: Duration = Duration::from_secs(24 * 3600);

// ---------------------------------------------------------------------------------------
// The server's side, built from the input.

#[derive(Arbitrary, Debug)]
enum Key {
    Short(u8),
    Text(String),
}

impl Key {
    fn text(&self) -> String {
        match self {
            Key::Short(n) => format!("k{}", n % 8),
            Key::Text(text) => text.clone(),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Field {
    Text { min: Option<u8>, max: Option<u8>, format: Option<u8>, default: Option<String> },
    Number { integer: bool, min: Option<i8>, max: Option<i8>, default: Option<i16> },
    Boolean(Option<bool>),
    Choice(Vec<String>),
    Many { options: Vec<String>, min: Option<u8>, max: Option<u8> },
}

impl Field {
    fn schema(&self) -> Value {
        let mut schema = match self {
            Field::Text { min, max, format, default } => {
                let mut s = json!({"type": "string"});
                if let Some(min) = min {
                    s["minLength"] = json!(min % 8);
                }
                if let Some(max) = max {
                    s["maxLength"] = json!(max % 32);
                }
                if let Some(format) = format {
                    s["format"] = json!(["email", "uri", "date", "date-time"][usize::from(format % 4)]);
                }
                if let Some(default) = default {
                    s["default"] = json!(default);
                }
                s
            }
            Field::Number { integer, min, max, default } => {
                let mut s = json!({"type": if *integer { "integer" } else { "number" }});
                if let Some(min) = min {
                    s["minimum"] = json!(min);
                }
                if let Some(max) = max {
                    s["maximum"] = json!(max);
                }
                if let Some(default) = default {
                    s["default"] = json!(default);
                }
                s
            }
            Field::Boolean(default) => match default {
                Some(default) => json!({"type": "boolean", "default": default}),
                None => json!({"type": "boolean"}),
            },
            Field::Choice(options) => json!({"type": "string", "enum": options}),
            Field::Many { options, min, max } => {
                let mut s = json!({"type": "array", "items": {"type": "string", "enum": options}});
                if let Some(min) = min {
                    s["minItems"] = json!(min % 4);
                }
                if let Some(max) = max {
                    s["maxItems"] = json!(max % 4);
                }
                s
            }
        };
        schema["title"] = json!("a field");
        schema
    }
}

#[derive(Arbitrary, Debug)]
enum Ask {
    Form {
        message: String,
        fields: Vec<(Key, Field)>,
        required: u8,
    },
    Url {
        url: String,
    },
    Sampling,
    Roots,
    /// Anything as params.
    Other {
        method: u8,
        params: String,
    },
}

impl Ask {
    fn request(&self) -> Value {
        match self {
            Ask::Form { message, fields, required } => {
                let properties: Map<String, Value> = fields.iter().map(|(key, f)| (key.text(), f.schema())).collect();
                let required: Vec<&String> = properties
                    .keys()
                    .enumerate()
                    .filter(|(i, _)| required >> (i % 8) & 1 == 1)
                    .map(|(_, k)| k)
                    .collect();
                json!({"method": "elicitation/create", "params": {
                    "mode": "form", "message": message,
                    "requestedSchema": {"type": "object", "properties": properties, "required": required},
                }})
            }
            Ask::Url { url } => json!({"method": "elicitation/create", "params": {
                "mode": "url", "message": "Sign in", "url": url, "elicitationId": "e1",
            }}),
            Ask::Sampling => json!({"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10,
            }}),
            Ask::Roots => json!({"method": "roots/list"}),
            Ask::Other { method, params } => {
                let method = ["elicitation/create", "sampling/createMessage", "roots/list", "tools/call"]
                    [usize::from(method % 4)];
                json!({"method": method, "params": serde_json::from_str::<Value>(params).unwrap_or(json!(params))})
            }
        }
    }
}

fn requests(asks: &[(Key, Ask)]) -> Value {
    Value::Object(asks.iter().map(|(key, ask)| (key.text(), ask.request())).collect())
}

#[derive(Arbitrary, Debug)]
enum State {
    Short(u8),
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum Status {
    Working,
    InputRequired,
    Completed,
    Cancelled,
    Failed,
}

/// What a task's result, once completed, may be.
#[derive(Arbitrary, Debug)]
enum Outcome {
    Complete { text: String, is_error: bool },
    Ask { asks: Vec<(Key, Ask)>, state: Option<State> },
    Other(String),
}

/// One answer of the server, to the next `tools/call` or `tasks/get`.
#[derive(Arbitrary, Debug)]
enum Reply {
    Ask {
        asks: Vec<(Key, Ask)>,
        omit_requests: bool,
        state: Option<State>,
    },
    Complete {
        text: String,
        is_error: bool,
        typed: bool,
    },
    Task {
        task: u8,
        status: Status,
        poll_ms: Option<u16>,
    },
    TaskState {
        task: u8,
        status: Status,
        asks: Vec<(Key, Ask)>,
        result: Option<Outcome>,
        error: Option<i16>,
    },
    Error {
        code: i16,
        message: String,
    },
    /// Any text as the result.
    Text(String),
    /// A complete result padded to about this many bytes past the message limit.
    Oversized(u8),
}

fn ask_result(asks: &[(Key, Ask)], omit_requests: bool, state: &Option<State>) -> Value {
    let mut result = json!({"resultType": "input_required"});
    if !omit_requests {
        result["inputRequests"] = requests(asks);
    }
    match state {
        Some(State::Short(n)) => result["requestState"] = json!(format!("state-{n}")),
        Some(State::Text(text)) => result["requestState"] = json!(text),
        None => {}
    }
    result
}

fn task(task: u8, status: &Status) -> Value {
    let status = match status {
        Status::Working => "working",
        Status::InputRequired => "input_required",
        Status::Completed => "completed",
        Status::Cancelled => "cancelled",
        Status::Failed => "failed",
    };
    json!({
        "taskId": format!("task-{}", task % 4), "status": status,
        "createdAt": "2026-07-28T00:00:00Z", "lastUpdatedAt": "2026-07-28T00:00:01Z", "ttlMs": 60000,
    })
}

impl Reply {
    /// The result, as JSON text; `Err`: a JSON-RPC error.
    fn answer(&self) -> Answer {
        let known = !matches!(self, Reply::Text(_) | Reply::TaskState { result: Some(Outcome::Other(_)), .. });
        Answer { result: self.text(), known }
    }

    fn text(&self) -> Result<String, (i16, String)> {
        Ok(match self {
            Reply::Ask { asks, omit_requests, state } => ask_result(asks, *omit_requests, state).to_string(),
            Reply::Complete { text, is_error, typed } => {
                let mut result = json!({"content": [{"type": "text", "text": text}], "isError": is_error});
                if *typed {
                    result["resultType"] = json!("complete");
                }
                result.to_string()
            }
            Reply::Task { task: id, status, poll_ms } => {
                let mut result = task(*id, status);
                result["resultType"] = json!("task");
                if let Some(poll) = poll_ms {
                    result["pollIntervalMs"] = json!(poll);
                }
                result.to_string()
            }
            Reply::TaskState { task: id, status, asks, result, error } => {
                let mut detailed = task(*id, status);
                detailed["resultType"] = json!("complete");
                if !asks.is_empty() {
                    detailed["inputRequests"] = requests(asks);
                }
                match result {
                    Some(Outcome::Complete { text, is_error }) => {
                        detailed["result"] = json!({"content": [{"type": "text", "text": text}], "isError": is_error});
                    }
                    Some(Outcome::Ask { asks, state }) => detailed["result"] = ask_result(asks, false, state),
                    Some(Outcome::Other(text)) => {
                        detailed["result"] = serde_json::from_str(text).unwrap_or(json!(text));
                    }
                    None => {}
                }
                if let Some(code) = error {
                    detailed["error"] = json!({"code": code, "message": "failed"});
                }
                detailed.to_string()
            }
            Reply::Error { code, message } => return Err((*code, message.clone())),
            Reply::Text(text) => text.clone(),
            Reply::Oversized(past) => {
                let text = "x".repeat(MAX_MESSAGE_SIZE + usize::from(*past));
                json!({"content": [{"type": "text", "text": text}]}).to_string()
            }
        })
    }
}

// ---------------------------------------------------------------------------------------
// What the transport saw, and what it expects next.

/// What the last `input_required` the client was given asked: its retry must send back this.
#[derive(Debug, Clone)]
struct Asked {
    state: Option<String>,
    keys: Option<Vec<String>>,
}

/// One answer of the server: a result as JSON text, or a JSON-RPC error; and whether this
/// harness knows what the client makes of it (text from the fuzzer may read as anything).
#[derive(Debug)]
struct Answer {
    result: Result<String, (i16, String)>,
    known: bool,
}

#[derive(Default, Debug)]
struct Seen {
    answers: VecDeque<Answer>,
    calls: usize,
    updates: usize,
    polls: usize,
    cancels: Vec<String>,
    /// The call's own params, first round's, to compare each retry with.
    first: Option<Value>,
    asked: Option<Asked>,
    task_asked: Vec<String>,
    /// Tasks the client was given and has not seen end; `None` once that can no longer be
    /// known (text that may or may not read as a task).
    live: Option<Vec<String>>,
    /// A message over the limit went to the client: nothing but a cancel may follow.
    over_limit: bool,
    violations: Vec<String>,
}

impl Seen {
    fn violation(&mut self, what: String) {
        self.violations.push(what);
    }

    /// Learns what the client will make of `result`, the answer to `method`.
    fn given(&mut self, method: &str, result: &str, known: bool) {
        let value: Value = serde_json::from_str(result).unwrap_or(Value::Null);
        if !known {
            self.live = None;
        }
        match method {
            "tools/call" => match value.get("resultType").and_then(Value::as_str) {
                Some("input_required") => self.asked_by(result),
                Some("task") => {
                    if let Ok(created) = serde_json::from_str::<CreateTaskResult>(result)
                        && !created.task.status.is_terminal()
                        && let Some(live) = &mut self.live
                    {
                        live.push(created.task.task_id);
                    }
                }
                _ => {}
            },
            "tasks/get" => {
                let Ok(detailed) = serde_json::from_str::<DetailedTask>(result) else { return };
                if detailed.task.status == TaskStatus::InputRequired {
                    self.task_asked = detailed.input_requests.iter().flatten().map(|(k, _)| k.clone()).collect();
                }
                if detailed.task.status.is_terminal()
                    && let Some(live) = &mut self.live
                {
                    live.clear();
                }
                if detailed.task.status == TaskStatus::Completed
                    && let Some(result) = &detailed.result
                    && result.get("resultType").and_then(Value::as_str) == Some("input_required")
                {
                    self.asked_by(&result.to_string());
                }
            }
            _ => {}
        }
    }

    fn asked_by(&mut self, result: &str) {
        self.asked = serde_json::from_str::<InputRequiredResult>(result).ok().map(|asked| Asked {
            state: asked.request_state,
            keys: asked.input_requests.map(|requests| requests.keys().cloned().collect()),
        });
    }

    /// A `tools/call` the client sent: the first round, or a retry of the last one asked.
    fn call(&mut self, params: &Value) {
        self.calls += 1;
        let own = |params: &Value| {
            let mut own = params.clone();
            if let Some(own) = own.as_object_mut() {
                for name in ["inputResponses", "requestState", "_meta"] {
                    own.remove(name);
                }
            }
            own
        };
        let Some(first) = &self.first else {
            self.first = Some(own(params));
            for name in ["inputResponses", "requestState"] {
                if params.get(name).is_some() {
                    self.violation(format!("the first round sends {name}: {params}"));
                }
            }
            return;
        };
        if &own(params) != first {
            self.violation(format!("a retry changed the call: {params} after {first}"));
        }
        let Some(asked) = self.asked.take() else {
            return self.violation(format!("a retry that nothing asked for: {params}"));
        };
        let state = params.get("requestState").map(|s| s.as_str().map(str::to_owned));
        if state != asked.state.clone().map(Some) {
            self.violation(format!("requestState {state:?} sent back for {:?}", asked.state));
        }
        let keys = params.get("inputResponses").map(|r| r.as_object().map(|r| r.keys().cloned().collect::<Vec<_>>()));
        if !same_keys(keys.clone().flatten(), asked.keys.clone()) || keys.as_ref().is_some_and(Option::is_none) {
            self.violation(format!("answers {keys:?} to requests {:?}", asked.keys));
        }
    }
}

fn same_keys(got: Option<Vec<String>>, asked: Option<Vec<String>>) -> bool {
    let sorted = |keys: Option<Vec<String>>| {
        keys.map(|mut keys| {
            keys.sort();
            keys
        })
    };
    sorted(got) == sorted(asked)
}

/// The server: answers each request with the next answer of the input.
struct Scripted {
    inbox: Mutex<Option<Inbox>>,
    seen: Arc<Mutex<Seen>>,
}

impl Scripted {
    fn handle(&self, message: &Outbound) {
        let OutboundKind::Request(id) = &message.kind else { return };
        let request: Value = serde_json::from_slice(&message.body).expect("the client sends JSON");
        let method = request["method"].as_str().expect("a method").to_owned();
        let params = &request["params"];
        let mut seen = self.seen.lock().unwrap();
        if seen.over_limit && method != "tasks/cancel" {
            seen.violation(format!("{method} sent after an answer over the limit"));
        }
        let answer = match method.as_str() {
            "tools/call" => {
                seen.call(params);
                seen.answers.pop_front()
            }
            "tasks/get" => {
                seen.polls += 1;
                seen.answers.pop_front()
            }
            "tasks/update" => {
                seen.updates += 1;
                let keys = params["inputResponses"].as_object().map(|r| r.keys().cloned().collect());
                let asked = Some(seen.task_asked.clone());
                if !same_keys(keys.clone(), asked.clone()) {
                    seen.violation(format!("task answers {keys:?} to requests {asked:?}"));
                }
                Some(Answer { result: Ok(r#"{"resultType":"complete"}"#.to_owned()), known: true })
            }
            "tasks/cancel" => {
                let task = params["taskId"].as_str().unwrap_or_default().to_owned();
                seen.cancels.push(task);
                Some(Answer { result: Ok(r#"{"resultType":"complete"}"#.to_owned()), known: true })
            }
            other => {
                seen.violation(format!("{other} sent"));
                None
            }
        };
        let Answer { result, known } = answer
            .unwrap_or(Answer { result: Err((-32603, "the server has nothing more to say".to_owned())), known: true });
        let id_text = serde_json::to_string(id).expect("an id");
        let bytes = match &result {
            Ok(result) => format!(r#"{{"jsonrpc":"2.0","id":{id_text},"result":{result}}}"#),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
            }
        };
        if bytes.len() > MAX_MESSAGE_SIZE {
            seen.over_limit = true;
        } else if let Ok(result) = &result {
            seen.given(&method, result, known);
        }
        drop(seen);
        let inbox = self.inbox.lock().unwrap().clone().expect("opened");
        // As an HTTP transport does with a body that answers nothing: the request fails.
        if let Err(error) = inbox.deliver(bytes.as_bytes()) {
            let _ = inbox.failed(id, error);
        }
        if inbox.awaits(id) {
            let _ = inbox.failed(id, TransportError::Closed("the answer answered something else".into()));
        }
    }
}

impl ClientTransport for Scripted {
    fn open(&self, inbox: Inbox) -> BoxFuture<'_, Result<(), TransportError>> {
        *self.inbox.lock().unwrap() = Some(inbox);
        Box::pin(async { Ok(()) })
    }

    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), TransportError>> {
        self.handle(&message);
        Box::pin(async { Ok(()) })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

// ---------------------------------------------------------------------------------------
// The client's side: a handler that answers as the input says.

#[derive(Arbitrary, Debug, Clone)]
enum Choice {
    /// Fills the form in as its schema asks.
    Fill,
    /// Accepts with these values, whatever the form.
    Content(Vec<(String, String)>),
    Decline,
    Cancel,
    Refuse,
}

#[derive(Default)]
struct Asks {
    choices: VecDeque<Choice>,
    /// Per round, the keys asked.
    rounds: HashMap<usize, Vec<String>>,
}

#[derive(Clone, Default)]
struct Handler(Arc<Mutex<Asks>>);

impl Handler {
    fn asked(&self, asking: &Asking) -> Choice {
        let mut asks = self.0.lock().unwrap();
        asks.rounds.entry(asking.round).or_default().push(asking.key.clone());
        asks.choices.pop_front().unwrap_or(Choice::Fill)
    }
}

/// Values that a form's schema takes, where it can say: a default, the first option, the
/// least number, a string of the least length in the format asked.
fn fill(schema: &Value) -> Map<String, Value> {
    let mut content = Map::new();
    for (name, field) in schema["properties"].as_object().into_iter().flatten() {
        if let Some(default) = field.get("default") {
            content.insert(name.clone(), default.clone());
            continue;
        }
        let value = match field["type"].as_str() {
            Some("boolean") => json!(true),
            Some("number" | "integer") => field.get("minimum").or(field.get("maximum")).cloned().unwrap_or(json!(0)),
            Some("array") => {
                let first = field["items"]["enum"].get(0).cloned();
                json!(first.into_iter().collect::<Vec<_>>())
            }
            _ => match (field["enum"].get(0), field["format"].as_str()) {
                (Some(first), _) => first.clone(),
                (None, Some("email")) => json!("a@example.com"),
                (None, Some("uri")) => json!("https://example.com/"),
                (None, Some("date")) => json!("2026-07-28"),
                (None, Some("date-time")) => json!("2026-07-28T00:00:00Z"),
                _ => json!("x".repeat(field["minLength"].as_u64().unwrap_or(1) as usize)),
            },
        };
        content.insert(name.clone(), value);
    }
    content
}

impl ClientHandler for Handler {
    async fn elicit(&self, request: ElicitRequestParams, asking: &Asking) -> Result<ElicitResult, mcp_rounds::Error> {
        match self.asked(asking) {
            Choice::Fill => {
                let content = match &request {
                    ElicitRequestParams::Form(form) => {
                        fill(&serde_json::to_value(&form.requested_schema).expect("a schema serializes"))
                    }
                    _ => Map::new(),
                };
                Ok(ElicitResult::accept(Some(content)))
            }
            Choice::Content(values) => {
                Ok(ElicitResult::accept(Some(values.into_iter().map(|(k, v)| (k, json!(v))).collect())))
            }
            Choice::Decline => Ok(ElicitResult::decline()),
            Choice::Cancel => Ok(ElicitResult::cancel()),
            Choice::Refuse => Err(mcp_rounds::Error::method_not_found("elicitation/create")),
        }
    }

    async fn create_message(
        &self,
        _: CreateMessageRequestParams,
        asking: &Asking,
    ) -> Result<CreateMessageResult, mcp_rounds::Error> {
        self.asked(asking);
        Err(mcp_rounds::Error::method_not_found("sampling/createMessage"))
    }

    async fn list_roots(&self, asking: &Asking) -> Result<ListRootsResult, mcp_rounds::Error> {
        match self.asked(asking) {
            Choice::Refuse => Err(mcp_rounds::Error::method_not_found("roots/list")),
            _ => Ok(serde_json::from_value(json!({"roots": [{"uri": "file:///work", "name": "work"}]})).unwrap()),
        }
    }
}

// ---------------------------------------------------------------------------------------

#[derive(Arbitrary, Debug)]
struct Built {
    replies: Vec<Reply>,
    choices: Vec<Choice>,
    arguments: Option<Vec<(String, String)>>,
}

fn play(answers: VecDeque<Answer>, choices: Vec<Choice>, arguments: Option<Map<String, Value>>) {
    let seen = Arc::new(Mutex::new(Seen { answers, live: Some(Vec::new()), ..Seen::default() }));
    let handler = Handler::default();
    handler.0.lock().unwrap().choices = choices.into();
    let transport = Scripted { inbox: Mutex::new(None), seen: seen.clone() };
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().expect("a runtime");
    let result = runtime.block_on(async {
        let client = Client::builder()
            .lifecycle(Lifecycle::Direct)
            .handler(handler.clone())
            .max_rounds(MAX_ROUNDS)
            .max_input_requests(MAX_INPUT_REQUESTS)
            .max_message_size(MAX_MESSAGE_SIZE)
            .connect(transport)
            .await
            .expect("a scripted transport connects");
        let mut params = CallToolRequestParams::default();
        params.name = "deploy".to_owned();
        params.arguments = arguments;
        let call = tokio::time::timeout(HUNG, client.call_tool_with(params)).await;
        let result = call.unwrap_or_else(|_| panic!("the call still waits after {HUNG:?}"));
        // A task the call left behind is cancelled from a task of its own: let it run.
        tokio::time::sleep(Duration::from_millis(1)).await;
        result
    });
    drop(runtime);

    let seen = seen.lock().unwrap();
    assert!(seen.violations.is_empty(), "{:#?}", seen.violations);
    assert!(seen.calls <= MAX_ROUNDS + 1, "{} calls", seen.calls);
    assert!(
        seen.calls.saturating_sub(1) + seen.updates <= MAX_ROUNDS,
        "{} calls and {} task updates",
        seen.calls,
        seen.updates
    );
    let asks = handler.0.lock().unwrap();
    for (round, keys) in &asks.rounds {
        assert!((1..=MAX_ROUNDS).contains(round), "round {round} answered");
        assert!(keys.len() <= MAX_INPUT_REQUESTS, "{} requests answered in round {round}", keys.len());
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len(), "a request answered twice in round {round}: {keys:?}");
    }
    if seen.over_limit {
        assert!(result.is_err(), "a call that read an answer over the limit");
    }
    if let Some(live) = &seen.live {
        let mut cancels = seen.cancels.clone();
        cancels.sort();
        let mut live = live.clone();
        live.sort();
        assert_eq!(cancels, live, "tasks cancelled, and tasks the call left ({result:?})");
    }
}

fuzz_target!(|input: &[u8]| {
    if input.first() == Some(&b'{') {
        let text = String::from_utf8_lossy(input);
        let answers = text.lines().map(|line| Answer { result: Ok(line.to_owned()), known: false }).collect();
        play(answers, Vec::new(), None);
        return;
    }
    let Ok(built) = Built::arbitrary_take_rest(Unstructured::new(input)) else { return };
    let answers = built.replies.iter().map(Reply::answer).collect();
    let arguments = built.arguments.map(|a| a.into_iter().map(|(k, v)| (k, json!(v))).collect());
    play(answers, built.choices, arguments);
});
