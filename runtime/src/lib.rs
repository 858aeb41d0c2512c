//! # mcp-rounds
//!
//! Model Context Protocol servers for revision **2026-07-28** from plain Rust functions:
//! annotate them, list them, serve them.
//!
//! ## Quick start
//!
//! ```
//! use mcp_rounds::testing::TestClient;
//! use mcp_rounds::{Server, ToolError, handlers, tool};
//!
//! /// Greets someone by name.
//! #[tool(read_only)]
//! fn greet(
//!     /// Who to greet.
//!     name: String,
//! ) -> Result<String, ToolError> {
//!     if name.is_empty() {
//!         return Err(ToolError::new("say whose name"));
//!     }
//!     Ok(format!("Hello, {name}!"))
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::builder("greeter", "1.0.0").handlers(handlers![greet]).build().expect("a valid server");
//!
//! // In-process, with the checks the real transports make; to serve for real:
//! // `mcp_rounds::transport::stdio::Stdio::new().serve(&server).await`.
//! let client = TestClient::new(&server);
//! let result = client.call_tool("greet", serde_json::json!({"name": "Ada"})).await.unwrap();
//! assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
//! # }
//! ```
//!
//! The attribute macros are [`tool`](macro@tool), [`resource`](macro@resource), [`prompt`](macro@prompt) and
//! [`view`](macro@view) (an MCP Apps view); a struct becomes an
//! elicitation form with [`Form`], an enum the rounds of a multi-round tool with [`Rounds`].
//! A mistake in any of them is a compile error on the mistake.
//!
//! ## Modules
//!
//! | What you write | Where |
//! |---|---|
//! | the server: its handlers, state, keys and layers | [`server`] ([`Server::builder`]) |
//! | tools, resources, prompts and their return types | [`tool`](mod@tool), [`resource`](mod@resource), [`prompt`](mod@prompt), [`completion`] |
//! | parameters filled in by the framework | [`extract`] ([`FromRequest`]), [`context`] |
//! | multi-round tools: forms, rounds, the signed state | [`form`], [`rounds`], [`request_state`], [`replay`] |
//! | serving: stdio, Streamable HTTP, OAuth | [`transport`] |
//! | middleware, telemetry | [`middleware`], [`telemetry`], `otel` (feature) |
//! | long-running tools | [`tasks`] |
//! | HTML views hosts render beside a tool's result (MCP Apps) | [`apps`] ([`view`](macro@view)) |
//! | Agent Skills from a folder | `skills` (feature), [`ServerBuilder::skills_dir`](server::ServerBuilder) |
//! | tests of your server | [`testing`] ([`testing::TestClient`]) |
//! | the protocol's types, as the revision names them | [`model`], [`jsonrpc`], [`headers`] |
//! | every method of both revisions: who sends it, its params and result types | [`method`] |
//! | change notifications across instances | [`changes`] |
//! | the request as the layers see it | [`dispatch`] |
//!
//! ## Features
//!
//! | Feature | Default | What it adds |
//! |---|---|---|
//! | `sqlite` | yes | the embedded SQLite replay store for single-use `requestState` |
//! | `http` | yes | the Streamable HTTP transport (axum), bearer tokens, CORS |
//! | `postgres` | no | the PostgreSQL replay store and change fan-out, for many instances (TLS by rustls, the server's certificate verified; relay notifications sealed) |
//! | `oauth` | no | an OAuth 2.1 resource server: JWTs checked against the issuer's keys, introspection, protected resource metadata; with `client-http`, a client that logs in |
//! | `client` | yes | a client of any MCP server, over a child process's stdio or in-process |
//! | `client-http` | no | the client over Streamable HTTP (reqwest, rustls) |
//! | `otel` | no | OpenTelemetry export over OTLP/HTTP, configured by the `OTEL_*` variables |
//! | `skills` | no | Agent Skills served from a directory, kept current, through the skills extension (SEP-2640) |
//!
//! Without a feature, none of its crates is compiled. [`serde`], [`schemars`] and
//! [`serde_json`] are re-exported, so that the derives need no dependency of your own.
//!
//! ## How a request travels
//!
//! The runtime is a stack of layers, each importing only from the ones below it (the
//! repository's `runtime/ARCHITECTURE.md` lists every module's layer, and a test keeps it so):
//!
//! 1. a [`transport`] frames the bytes and establishes the [`Principal`];
//! 2. the connection layer decides the message's era: a request carrying the 2026-07-28
//!    `_meta` is stateless, an `initialize` without it opens a 2025-11-25 session (see
//!    [`ServerBuilder::legacy_sessions`]); it keeps requests in flight by id for cancellation;
//! 3. the request, decoded once into a [`dispatch::McpRequest`] (its method looked up in the
//!    [`method`] table), enters the server through [`Server::call`], which observes it once
//!    ([`telemetry`]), and passes the server's [`tower`] layers ([`ServerBuilder::layer`],
//!    ready-made ones in [`middleware`]); a 2025-11-25 session answers its own methods and
//!    plays a multi-round request out with its client, each round through the layers;
//! 4. [`dispatch`] routes it by method to its handler, whose parameters are arguments or
//!    extractors ([`FromRequest`], see [`extract`]), and answers a typed
//!    [`Reply`](dispatch::Reply);
//! 5. one stage stamps `serverInfo` and encodes the reply for the client's revision.
//!
//! What is served is described once, validated and rendered when the server is built:
//! [`Server::builder`]. Every protocol failure is an [`Error`] with the code the revision
//! prescribes; the protocol types live in [`model`], named as the revision names them.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod apps;
pub mod changes;
#[cfg(feature = "client")]
pub mod client;
pub mod completion;
mod connection;
pub mod context;
pub mod dispatch;
mod envelope;
pub mod error;
pub mod extract;
pub mod form;
pub mod future;
mod handler;
pub mod headers;
mod ids;
pub mod jsonrpc;
mod macros_doc;
pub mod method;
pub mod middleware;
pub mod model;
#[cfg(feature = "otel")]
pub mod otel;
mod pagination;
pub mod prompt;
mod registry;
pub mod replay;
pub mod request_state;
pub mod resource;
pub mod rounds;
mod schema;
pub mod server;
mod shape;
#[cfg(feature = "skills")]
pub mod skills;
mod strict;
pub mod tasks;
pub mod telemetry;
#[cfg(feature = "client")]
pub mod testing;
pub mod tool;
pub mod transport;
mod uri;
mod uri_template;
mod version;

pub use changes::Changes;
pub use context::{Notifier, Principal, RequestContext};
pub use error::BuildError;
pub use error::Rejection;
pub use error::{Error, ErrorCode};
pub use extract::{FromRequest, State, TokenClaims};
pub use handler::{Handler, IntoHandler};
pub use jsonrpc::RequestId;
pub use macros_doc::{Form, FormChoice, Rounds, prompt, resource, tool, view};
pub use rounds::{Ask, Round, Step};
pub use server::{Server, ServerBuilder};
pub use tool::{Args, Json, Readable, ToolCall, ToolError, ToolHandler, ToolRoute};
pub use tower;

/// The `schemars` this crate is built with (1.x): derive `JsonSchema` for tool arguments and
/// results without guessing its version (add `#[schemars(crate = "mcp_rounds::schemars")]`).
pub use schemars;
/// The `serde` this crate is built with: derive `Serialize`/`Deserialize` for tool arguments and
/// results without a dependency of your own (add `#[serde(crate = "mcp_rounds::serde")]`).
pub use serde;
/// The `serde_json` this crate is built with, for `json!` and `Value`.
pub use serde_json;
pub use version::LATEST_PROTOCOL_VERSION;

/// What generated code needs, reached through this crate so that users depend on nothing else.
#[doc(hidden)]
pub mod __private {
    pub use indexmap;
    pub use schemars;
    pub use serde_json;
    pub use tokio;

    pub use crate::apps::{View, ViewDefinition};
    pub use crate::completion::{Completer, CompletionRequest};
    pub use crate::extract::{FromRequest, Requirements, ResourceParam};
    pub use crate::form::{ChoiceOption, FormViolation};
    pub use crate::form::{FieldKey, FieldKind, FieldOptions, Form, FormChoice, FormField, SchemaBuilder, take_field};
    pub use crate::future::{BoxFuture, boxed};
    pub use crate::handler::{Handler, HandlerList, IntoHandler, Names, assert_distinct, handlers_of};
    pub use crate::headers::HeaderParam;
    pub use crate::model::{
        CacheHints, CacheScope, CallToolResult, GetPromptResult, Outcome, Prompt, ReadResourceResult, Resource, Tool,
        ToolAnnotations,
    };
    pub use crate::model::{
        Completion, JsonObject, PromptArgument, RequestedSchema, StringFormat, UiCsp, UiPermissions,
    };
    pub use crate::prompt::{CompletableArgument, IntoPromptResult, PromptDefinition, PromptGet, PromptParam};
    pub use crate::resource::{
        IntoReadResult, ListResources, ResourceDefinition, ResourceDescriptor, ResourceRead, TemplateValue, rejected,
    };
    pub use crate::rounds::{Answer, AnswerSet, Ask, RoundData, Rounds, carried, unknown_round};
    pub use crate::schema::{InputSchema, output_generator};
    pub use crate::tasks::TaskSupport;
    pub use crate::telemetry::spawn_blocking;
    pub use crate::tool::{
        IntoToolOutcome, ToolCall, ToolDefinition, ToolInfo, ToolInvocation, ToolParam, assert_readable,
    };
    pub use crate::uri_template::UriTemplate;
    pub use crate::{Error, RequestContext};
}

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
