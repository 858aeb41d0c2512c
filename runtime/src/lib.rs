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

pub mod context;
mod envelope;
pub mod error;
pub mod jsonrpc;
pub mod model;
mod pagination;
mod router;
pub mod server;
pub mod tool;
pub mod transport;
pub mod version;

pub use context::{Principal, RequestContext};
pub use error::{Error, ErrorCode};
pub use jsonrpc::RequestId;
pub use server::{BuildError, Response, Server, ServerBuilder};
pub use tool::{ToolCall, ToolHandler, ToolRoute};
pub use version::LATEST_PROTOCOL_VERSION;

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
