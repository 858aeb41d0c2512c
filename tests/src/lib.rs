//! Helpers shared by the workspace-level tests: a stdio server process driven line by line,
//! the Python environment that holds the reference client, the Node.js tools (the official
//! conformance suite, and oidc-provider as a real OAuth 2.1 authorization server), a real
//! OTLP/HTTP receiver, and ways to wait for events (a task's status, a file) rather than for
//! time.

pub mod apps_host;
pub mod browser;
pub mod certs;
pub mod client;
pub mod conformance;
pub mod fleet;
pub mod hostile;
pub mod http;
pub mod node;
pub mod notes;
pub mod oauth;
pub mod otlp;
pub mod postgres;
pub mod process;
pub mod python;
pub mod stdio;
pub mod tasks;
pub mod wait;

/// The fixture server's tools (without `--tasks`), in the order `tools/list` gives them: by name.
pub const FIXTURE_TOOLS: [&str; 12] = [
    "add",
    "announce",
    "echo",
    "fail",
    "find_servers",
    "listeners",
    "needs_form",
    "notes_delete",
    "notes_summarize",
    "panic",
    "progress",
    "sleep",
];

/// A `_meta` envelope for protocol 2026-07-28 with the given client capabilities.
pub fn meta(capabilities: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-rounds-tests", "version": "0"}
    })
}

/// A request object with a valid envelope.
pub fn request(id: serde_json::Value, method: &str, mut params: serde_json::Value) -> serde_json::Value {
    params["_meta"] = meta(serde_json::json!({}));
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}
