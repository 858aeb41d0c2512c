//! An in-process client for testing a server without sockets or subprocesses.
//!
//! A thin layer over the [`Client`] and its in-process transport: every call is enveloped and
//! encoded by the client, goes through the server's connection layer as a line of stdio
//! would (the same checks as stdio and HTTP), and is decoded from the JSON the server wrote,
//! so a test sees exactly what a client on the wire would.
//!
//! ```
//! use mcp_rounds::testing::TestClient;
//! use mcp_rounds::{Server, tool};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> String {
//!     (a + b).to_string()
//! }
//!
//! # tokio_test();
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn tokio_test() {
//! let server = Server::builder("calc", "1.0.0").handlers(mcp_rounds::handlers![add]).build().unwrap();
//! let client = TestClient::new(&server);
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 40})).await.unwrap();
//! assert_eq!(result.content[0].as_text(), Some("42"));
//! # }
//! ```
//!
//! A tool, prompt or resource that asks for input (`resultType: "input_required"`) plays out by
//! itself once the client can answer: register what the user or the model says with
//! [`TestClient::with_elicitation`], [`TestClient::with_sampling`] or [`TestClient::with_roots`],
//! and [`TestClient::call_tool`] answers every round, retrying with the answers and the echoed
//! `requestState` until the result is complete (at most [`MAX_ROUNDS`] rounds).
//!
//! ```
//! use mcp_rounds::form::FormRequest;
//! use mcp_rounds::request_state::KeyRing;
//! use mcp_rounds::rounds::{Elicitation, Round, Step};
//! use mcp_rounds::testing::{TestClient, accept};
//! use mcp_rounds::{Form, Rounds, Server, handlers, tool};
//! use serde_json::json;
//!
//! #[derive(Form)]
//! struct Who {
//!     /// Your name.
//!     name: String,
//! }
//!
//! #[derive(Rounds)]
//! enum Greeting {
//!     Name {
//!         #[answer]
//!         who: Elicitation<Who>,
//!     },
//! }
//!
//! /// Greets the user by the name they give when asked.
//! #[tool]
//! fn greet(round: Round<Greeting>) -> Step<Greeting, String> {
//!     match round {
//!         Round::Start => Greeting::ask_name(FormRequest::new("What is your name?")).into(),
//!         Round::Resumed(Greeting::Name { who: Elicitation::Accept(Who { name }) }) => {
//!             Step::Done(format!("Hello, {name}!"))
//!         }
//!         Round::Resumed(_) => Step::Done("Hello, stranger!".into()),
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let keys = KeyRing::development();
//! let server = Server::builder("greeter", "1.0.0").state_keys(keys).handlers(handlers![greet]).build().unwrap();
//! let client = TestClient::new(&server).with_elicitation(|_| accept(json!({"name": "Ada"})));
//! let result = client.call_tool("greet", json!({})).await.unwrap();
//! assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
//! # }
//! ```

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::client::{Client, Lifecycle};
use crate::context::Principal;
use crate::jsonrpc::ErrorObject;
use crate::method::Method;
use crate::model::{
    CallToolResult, ClientCapabilities, DiscoverResult, GetPromptResult, InputRequest, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Outcome, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use crate::server::Server;
use crate::transport::in_process::InProcess;
use crate::version::LATEST_PROTOCOL_VERSION;

mod rounds;

pub use rounds::{MAX_ROUNDS, accept, cancel, decline, model_reply};

/// A client that talks to a [`Server`] in the same process.
#[derive(Debug)]
pub struct TestClient {
    server: Server,
    principal: Principal,
    /// Set by [`TestClient::with_capabilities`]; otherwise the registered answers decide.
    capabilities: Option<ClientCapabilities>,
    answers: rounds::Answers,
    protocol_version: String,
    /// Connected on first use, once the builder methods have said everything.
    client: OnceCell<Client>,
}

/// Pages followed at most by the `list_*` helpers, so a server whose cursors never end fails
/// the test instead of hanging it.
const MAX_PAGES: usize = 1000;

impl TestClient {
    /// A client with no capabilities and no answers, calling as the anonymous principal.
    pub fn new(server: &Server) -> Self {
        TestClient {
            server: server.clone(),
            principal: Principal::anonymous(),
            capabilities: None,
            answers: rounds::Answers::default(),
            protocol_version: LATEST_PROTOCOL_VERSION.to_owned(),
            client: OnceCell::new(),
        }
    }

    /// Calls as `principal` (what a transport would have authenticated).
    pub fn as_principal(mut self, principal: Principal) -> Self {
        self.principal = principal;
        self
    }

    /// Declares exactly these capabilities on every request, before or after any `with_*`
    /// answer is registered: the answers then no longer declare anything, so a test can see
    /// what a server does without a capability (-32021) while the client could answer.
    pub fn with_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Sends another protocol version in `_meta`.
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = version.into();
        self
    }

    async fn client(&self) -> &Client {
        self.client
            .get_or_init(|| async {
                let transport = InProcess::new(&self.server).principal(self.principal.clone());
                Client::builder()
                    .name("mcp-rounds-test-client", env!("CARGO_PKG_VERSION"))
                    .capabilities(self.declared_capabilities())
                    .lifecycle(Lifecycle::Direct)
                    .protocol_version(self.protocol_version.clone())
                    .connect(transport)
                    .await
                    .expect("an in-process connection opens")
            })
            .await
    }

    /// Sends `method` with `params` (an object; `_meta` is added) and returns the raw
    /// response object: its `result`, or its `error`.
    pub async fn request_raw(&self, method: &str, params: Value) -> Value {
        match self.client().await.request_raw(method, params).await {
            Ok(result) => json!({"jsonrpc": "2.0", "result": result}),
            Err(error) => match error.error_object() {
                Some(object) => json!({"jsonrpc": "2.0", "error": object}),
                None => panic!("{method}: {error}"),
            },
        }
    }

    /// Sends `method` and decodes the result as `R`, or returns the JSON-RPC error.
    pub async fn request<R: DeserializeOwned>(&self, method: &str, params: Value) -> Result<R, ErrorObject> {
        let result = match self.client().await.request_raw(method, params).await {
            Ok(result) => result,
            Err(error) => match error.error_object() {
                Some(object) => return Err(object.clone()),
                None => panic!("{method}: {error}"),
            },
        };
        match R::deserialize(&result) {
            Ok(result) => Ok(result),
            Err(e) => panic!("the response does not decode as expected ({e}): {result}"),
        }
    }

    /// Every item of a paginated list, following cursors.
    async fn collect<P: DeserializeOwned, T>(
        &self,
        method: &str,
        split: fn(P) -> (Vec<T>, Option<String>),
    ) -> Result<Vec<T>, ErrorObject> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let (items, next) = split(self.request(method, cursor_params(cursor.as_deref())).await?);
            all.extend(items);
            match next {
                Some(next) => cursor = Some(next),
                None => return Ok(all),
            }
        }
        panic!("{method} did not end after {MAX_PAGES} pages");
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<DiscoverResult, ErrorObject> {
        self.request(Method::ServerDiscover.name(), json!({})).await
    }

    /// Every tool, following cursors.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ErrorObject> {
        self.collect(Method::ToolsList.name(), |page: ListToolsResult| (page.tools, page.next_cursor)).await
    }

    /// `tools/call`, answering every round this client has answers for: the complete result,
    /// or the first `input_required` it cannot answer, as the server sent it. Without answers
    /// registered, that is the server's first reply.
    pub async fn call_tool_outcome(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<Outcome<CallToolResult>, ErrorObject> {
        let params = json!({"name": name, "arguments": arguments});
        self.play(Method::ToolsCall.name(), &format!("tool {name:?}"), params, |asked| self.answer_all(asked)).await
    }

    /// The retry of a `tools/call` that asked for input: the same arguments, the answers by
    /// key, and the state echoed. Sent as is; registered answers play no part.
    pub async fn call_tool_resume(
        &self,
        name: &str,
        arguments: Value,
        input_responses: Value,
        request_state: &str,
    ) -> Result<Outcome<CallToolResult>, ErrorObject> {
        self.request(
            Method::ToolsCall.name(),
            json!({"name": name, "arguments": arguments, "inputResponses": input_responses, "requestState": request_state}),
        )
        .await
    }

    /// Calls a tool and answers every round it asks with `answer(key, request)` (the raw JSON
    /// of the answer), instead of the registered answers, for at most [`MAX_ROUNDS`] rounds.
    pub async fn call_tool_answering(
        &self,
        name: &str,
        arguments: Value,
        mut answer: impl FnMut(&str, &InputRequest) -> Value,
    ) -> Result<CallToolResult, ErrorObject> {
        let what = format!("tool {name:?}");
        let params = json!({"name": name, "arguments": arguments});
        let outcome = self
            .play(Method::ToolsCall.name(), &what, params, |asked| {
                Some(asked.iter().map(|(key, request)| (key.clone(), answer(key, request))).collect())
            })
            .await?;
        Ok(self.complete(&what, outcome))
    }

    /// `tools/call`, answering every round with the registered answers until the tool
    /// completes. Panics, naming the request and its key, if the tool asks for something this
    /// client has no answer for.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ErrorObject> {
        let outcome = self.call_tool_outcome(name, arguments).await?;
        Ok(self.complete(&format!("tool {name:?}"), outcome))
    }

    /// Every resource, following cursors.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ErrorObject> {
        self.collect(Method::ResourcesList.name(), |page: ListResourcesResult| (page.resources, page.next_cursor)).await
    }

    /// Every resource template, following cursors.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ErrorObject> {
        self.collect(Method::ResourcesTemplatesList.name(), |page: ListResourceTemplatesResult| {
            (page.resource_templates, page.next_cursor)
        })
        .await
    }

    /// `resources/read`, answering rounds as [`TestClient::call_tool_outcome`] does.
    pub async fn read_resource_outcome(&self, uri: &str) -> Result<Outcome<ReadResourceResult>, ErrorObject> {
        let what = format!("resource {uri:?}");
        self.play(Method::ResourcesRead.name(), &what, json!({"uri": uri}), |asked| self.answer_all(asked)).await
    }

    /// `resources/read`, answering rounds as [`TestClient::call_tool`] does.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ErrorObject> {
        let outcome = self.read_resource_outcome(uri).await?;
        Ok(self.complete(&format!("resource {uri:?}"), outcome))
    }

    /// Every prompt, following cursors.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ErrorObject> {
        self.collect(Method::PromptsList.name(), |page: ListPromptsResult| (page.prompts, page.next_cursor)).await
    }

    /// `prompts/get`, answering rounds as [`TestClient::call_tool_outcome`] does.
    pub async fn get_prompt_outcome(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<Outcome<GetPromptResult>, ErrorObject> {
        let params = json!({"name": name, "arguments": arguments});
        self.play(Method::PromptsGet.name(), &format!("prompt {name:?}"), params, |asked| self.answer_all(asked)).await
    }

    /// `prompts/get`, answering rounds as [`TestClient::call_tool`] does.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult, ErrorObject> {
        let outcome = self.get_prompt_outcome(name, arguments).await?;
        Ok(self.complete(&format!("prompt {name:?}"), outcome))
    }
}

fn cursor_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(cursor) => json!({ "cursor": cursor }),
        None => json!({}),
    }
}

#[doc(hidden)]
pub use crate::tasks::contract::{task_record, task_store_contract};
