//! # mcp-rounds
//!
//! Model Context Protocol servers for revision **2026-07-28** from plain Rust functions.
//!
//! A request travels forward through one module per concern: a [`transport`]
//! frames bytes and establishes the [`Principal`]; [`jsonrpc`] classifies the message; the
//! envelope check reads `_meta` (protocol version, client capabilities); the router picks
//! the method; the registered handler runs with a [`RequestContext`]; the result is encoded
//! with `resultType` and `serverInfo`. Every protocol failure is an [`Error`] with the code the
//! revision prescribes.
//!
//! The protocol types live in [`model`], named as the revision names them.
//!
//! Clients of revision 2025-11-25 are served too: an `initialize` opens a session in which
//! each request is given the envelope the handshake negotiated and travels the same path, and
//! a multi-round result is played out as live requests to the client (see
//! [`ServerBuilder::legacy_sessions`]).

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
pub mod model;
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
pub use extract::{FromRequest, State};
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
    pub use crate::tool::{IntoToolOutcome, ToolCall, ToolDefinition, ToolInfo, ToolInvocation, ToolParam};
    pub use crate::uri_template::UriTemplate;
    pub use crate::{Error, RequestContext};
}

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
