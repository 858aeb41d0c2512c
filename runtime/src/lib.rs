//! # mcp-rounds
//!
//! Model Context Protocol servers for revision **2026-07-28** from plain Rust functions.
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
//! 3. the request, decoded once into a [`dispatch::McpRequest`], passes the server's
//!    [`tower`] layers ([`ServerBuilder::layer`], ready-made ones in [`middleware`]);
//! 4. [`dispatch`] routes it by method to its handler, whose parameters are arguments or
//!    extractors ([`FromRequest`], see [`extract`]), and answers a typed
//!    [`Reply`](dispatch::Reply);
//! 5. one stage stamps `serverInfo` and encodes the reply for the client's revision.
//!
//! What is served is described once, validated and rendered when the server is built:
//! [`Server::builder`]. Every protocol failure is an [`Error`] with the code the revision
//! prescribes; the protocol types live in [`model`], named as the revision names them.

pub mod changes;
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
pub mod schema;
pub mod server;
mod shape;
pub mod tasks;
pub mod telemetry;
pub mod testing;
pub mod tool;
pub mod transport;
pub mod uri;
pub mod uri_template;
pub mod version;

pub use changes::Changes;
pub use context::{Notifier, Principal, RequestContext};
pub use error::BuildError;
pub use error::Rejection;
pub use error::{Error, ErrorCode};
pub use extract::{FromRequest, State, TokenClaims};
pub use handler::{Handler, IntoHandler};
pub use jsonrpc::RequestId;
pub use macros_doc::{Form, FormChoice, Rounds, prompt, resource, tool};
pub use rounds::{Ask, Round, Step};
pub use server::{Server, ServerBuilder};
pub use tool::{Args, Json, ToolCall, ToolError, ToolHandler, ToolRoute};
pub use tower;
pub use version::LATEST_PROTOCOL_VERSION;

/// What generated code needs, reached through this crate so that users depend on nothing else.
#[doc(hidden)]
pub mod __private {
    pub use indexmap;
    pub use schemars;
    pub use serde_json;
    pub use tokio;

    pub use crate::completion::{Completer, CompletionRequest};
    pub use crate::extract::{FromRequest, Requirements, ResourceParam};
    pub use crate::form::{FieldKey, FieldKind, FieldOptions, Form, FormChoice, FormField, SchemaBuilder, take_field};
    pub use crate::future::{BoxFuture, boxed};
    pub use crate::handler::{Handler, IntoHandler};
    pub use crate::headers::HeaderParam;
    pub use crate::model::Completion;
    pub use crate::model::StringFormat;
    pub use crate::model::{
        CacheHints, CacheScope, CallToolResult, GetPromptResult, Outcome, Prompt, ReadResourceResult, Resource, Tool,
        ToolAnnotations,
    };
    pub use crate::prompt::{CompletableArgument, IntoPromptResult, PromptDefinition, PromptGet, PromptParam};
    pub use crate::resource::{
        IntoReadResult, ListResources, ResourceDefinition, ResourceDescriptor, ResourceRead, TemplateValue, rejected,
    };
    pub use crate::rounds::{Answer, AnswerSet, Ask, RoundData, Rounds, carried, unknown_round};
    pub use crate::schema::{InputSchema, output_generator};
    pub use crate::tasks::TaskSupport;
    pub use crate::telemetry::spawn_blocking;
    pub use crate::tool::{IntoToolOutcome, ToolCall, ToolDefinition, ToolInfo, ToolInvocation, ToolParam};
    pub use crate::uri_template::UriTemplate;
    pub use crate::{Error, RequestContext};
}

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
