//! Procedural macros for [`mcp-rounds`](https://docs.rs/mcp-rounds).
//!
//! Depend on `mcp-rounds`, not on this crate: the runtime re-exports every macro and the
//! generated code reaches its dependencies through the runtime's hidden re-exports.
