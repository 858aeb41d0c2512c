//! # mcp-rounds
//!
//! Model Context Protocol servers for revision **2026-07-28** from plain Rust functions.

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
