//! Driving servers with the mcp-rounds client: a handler that answers from a script and keeps
//! a log of what it was asked, and the client every interop test builds around it.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_rounds::Error;
use mcp_rounds::client::{Asking, Client, ClientBuilder, ClientHandler, Lifecycle, Protocol};
use mcp_rounds::model::{
    CallToolResult, ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationCapability, JsonObject, ListRootsResult, Root, SamplingCapability, SamplingContent,
};
use serde_json::Value;

/// How long one test may take before it fails (a hang is a failure, not a stuck run).
pub const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// How long `server/discover` may take under [`Lifecycle::Auto`]: long enough for an
/// interpreter to start on a busy machine, so that a slow start is never mistaken for a
/// server that does not answer it.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// The revision of the modern era.
pub const MODERN: &str = "2026-07-28";
/// The revision of a session's handshake.
pub const LEGACY: &str = "2025-11-25";

/// One thing a server asked the client.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)] // each variant's fields are named for what they are
pub enum Asked {
    /// A form: its message and its schema.
    Form { message: String, schema: Value },
    /// A URL to open.
    Url { message: String, url: String },
    /// A completion from the model: the system prompt, the last message's text, the token cap.
    Sampling { system: Option<String>, prompt: String, max_tokens: u64 },
    /// The roots.
    Roots,
}

impl Asked {
    /// A form's message.
    pub fn form_message(&self) -> Option<&str> {
        match self {
            Asked::Form { message, .. } => Some(message),
            _ => None,
        }
    }
}

/// Answers every kind of request from fixed rules, and keeps a log of what it was asked.
#[derive(Clone)]
pub struct Scripted {
    seen: Arc<Mutex<Vec<Asked>>>,
    /// The content of the answer to a form, by the form's message.
    form: fn(&str) -> Value,
    /// The model's reply, by the last message's text.
    model: fn(&str) -> String,
}

/// The model the handler says answered.
pub const MODEL: &str = "scripted-model";
/// The roots the handler lists.
pub const ROOTS: [&str; 2] = ["file:///srv/projects/alpha", "file:///srv/projects/beta"];

impl Scripted {
    /// Answers forms with `form` (by message; `null` declines) and sampling with `model` (by
    /// the last message's text).
    pub fn new(form: fn(&str) -> Value, model: fn(&str) -> String) -> Self {
        Scripted { seen: Arc::default(), form, model }
    }

    fn record(&self, asked: Asked) {
        self.seen.lock().unwrap().push(asked);
    }

    /// What it was asked, in order.
    pub fn seen(&self) -> Vec<Asked> {
        self.seen.lock().unwrap().clone()
    }

    /// What this handler answers, declared.
    pub fn capabilities() -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        let mut elicitation = ElicitationCapability::form();
        elicitation.url = Some(JsonObject::new());
        capabilities.elicitation = Some(elicitation);
        capabilities.sampling = Some(SamplingCapability::default());
        capabilities.roots = Some(JsonObject::new());
        capabilities
    }
}

impl ClientHandler for Scripted {
    async fn elicit(&self, request: ElicitRequestParams, _asking: &Asking) -> Result<ElicitResult, Error> {
        match request {
            ElicitRequestParams::Form(form) => {
                let schema = serde_json::to_value(&form.requested_schema).expect("a schema serializes");
                self.record(Asked::Form { message: form.message.clone(), schema });
                match (self.form)(&form.message) {
                    Value::Object(content) => Ok(ElicitResult::accept(Some(content))),
                    // No rule for this form: the log shows which one it was.
                    _ => Ok(ElicitResult::decline()),
                }
            }
            ElicitRequestParams::Url(url) => {
                self.record(Asked::Url { message: url.message, url: url.url });
                Ok(ElicitResult::accept(None))
            }
        }
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        _asking: &Asking,
    ) -> Result<CreateMessageResult, Error> {
        let prompt = request
            .messages
            .last()
            .map(|message| {
                message
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        SamplingContent::Text(text) => Some(text.text.as_str()),
                        _ => None,
                    })
                    .collect::<String>()
            })
            .unwrap_or_default();
        let reply = (self.model)(&prompt);
        self.record(Asked::Sampling { system: request.system_prompt, prompt, max_tokens: request.max_tokens });
        Ok(CreateMessageResult::text_reply(MODEL, reply))
    }

    async fn list_roots(&self, _asking: &Asking) -> Result<ListRootsResult, Error> {
        self.record(Asked::Roots);
        Ok(ListRootsResult::new(ROOTS.map(Root::new)))
    }
}

/// Runs a test body with a bound on how long it may take.
pub async fn bounded<T>(what: &str, body: impl Future<Output = T>) -> T {
    tokio::time::timeout(TEST_TIMEOUT, body)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish in {TEST_TIMEOUT:?}"))
}

/// A client answering with `handler`, declaring what it answers, opening with `lifecycle`.
pub fn builder(handler: &Scripted, lifecycle: Lifecycle) -> ClientBuilder {
    Client::builder()
        .name("client-interop-tests", "0")
        .capabilities(Scripted::capabilities())
        .handler(handler.clone())
        .lifecycle(lifecycle)
        .probe_timeout(PROBE_TIMEOUT)
        .request_timeout(Duration::from_secs(60))
}

/// The one text block of a result.
pub fn text(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "one content block: {result:?}");
    result.content[0].as_text().unwrap_or_else(|| panic!("a text block: {result:?}"))
}

/// The protocol `lifecycle` settles on with a server of both eras.
pub fn expected_protocol(lifecycle: Lifecycle) -> Protocol {
    match lifecycle {
        Lifecycle::Legacy => Protocol::Legacy(LEGACY.to_owned()),
        _ => Protocol::Modern(MODERN.to_owned()),
    }
}
