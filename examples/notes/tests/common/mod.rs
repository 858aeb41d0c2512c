//! Shared by the raw JSON-RPC tests of the notes server: a freshly seeded data directory per
//! test, request builders, and exact checks on answers and on the note files left behind.

// Each test crate that includes this module uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::oauth::{self, AuthorizationServer};
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

/// The note files of a fresh seed, by id (the symlink into the private directory included).
pub const SEEDED: [&str; 7] = [
    "offsite-ideas",
    "private-link",
    "reading-list",
    "roadmap-meeting",
    "tps-report-2026-q1",
    "tps-report-cover-sheet",
    "tps-report-draft-old",
];

/// The three seeded notes whose titles contain "TPS report", as the delete form offers them.
pub const TPS: [&str; 3] = ["tps-report-2026-q1", "tps-report-cover-sheet", "tps-report-draft-old"];

/// The private note's text: it must never appear in any answer given to `demo`.
pub const SALARIES: &str = "# Salaries\n\nNot for the demo principal.\n";

/// A data directory seeded by the server itself, removed when dropped.
pub struct DataDir {
    pub path: PathBuf,
}

impl DataDir {
    /// A fresh directory under the system temp dir, seeded by one short `--stdio` run (stdin
    /// closed at once), so every test starts from exactly the documented seed.
    pub fn seeded(name: &str) -> DataDir {
        let path = std::env::temp_dir().join(format!("notes-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        let out = Command::new(BIN)
            .args(["--data", path.to_str().unwrap(), "--stdio"])
            .stdin(Stdio::null())
            .output()
            .expect("run notes-server");
        assert_eq!(out.status.code(), Some(0), "seeding run: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "no input, so no output");
        let dir = DataDir { path };
        assert_eq!(dir.notes(), SEEDED, "the documented seed");
        dir
    }

    pub fn arg(&self) -> &str {
        self.path.to_str().unwrap()
    }

    pub fn workspace(&self) -> PathBuf {
        self.path.join("workspace")
    }

    /// The workspace URI config.toml grants `demo`: built from the canonical path, as the seed does.
    pub fn workspace_uri(&self) -> String {
        format!("file://{}", std::fs::canonicalize(self.workspace()).unwrap().display())
    }

    /// The `file://` URI of a directory next to the workspace (it need not exist).
    pub fn sibling_uri(&self, name: &str) -> String {
        format!("file://{}/{name}", std::fs::canonicalize(&self.path).unwrap().display())
    }

    /// The ids of the `*.md` entries in the workspace, sorted: what a delete may have removed.
    pub fn notes(&self) -> Vec<String> {
        md_stems(&self.workspace())
    }

    /// The private note as it is on disk.
    pub fn salaries(&self) -> String {
        std::fs::read_to_string(self.path.join("workspace-private/salaries.md")).unwrap()
    }

    /// Every seeded note is still there, the private one untouched, and the link still a link.
    pub fn assert_intact(&self) {
        self.assert_notes_without(&[]);
    }

    /// Exactly the seeded notes minus `gone` exist (and nothing new).
    pub fn assert_notes_without(&self, gone: &[&str]) {
        let expected: Vec<&str> = SEEDED.iter().copied().filter(|id| !gone.contains(id)).collect();
        assert_eq!(self.notes(), expected);
        assert_eq!(self.salaries(), SALARIES);
        let link = std::fs::symlink_metadata(self.workspace().join("private-link.md")).unwrap();
        assert!(link.file_type().is_symlink());
    }

    pub fn config(&self) -> String {
        std::fs::read_to_string(self.path.join("config.toml")).unwrap()
    }

    /// Writes config.toml whole (by a rename), so a server starting meanwhile never reads half of it.
    pub fn set_config(&self, text: &str) {
        let temp = self.path.join(".config.toml.test");
        std::fs::write(&temp, text).unwrap();
        std::fs::rename(temp, self.path.join("config.toml")).unwrap();
    }

    /// Replaces one exact piece of config.toml, failing if the seed no longer has it.
    pub fn replace_in_config(&self, from: &str, to: &str) {
        let config = self.config();
        assert!(config.contains(from), "config.toml lacks {from:?}:\n{config}");
        self.set_config(&config.replacen(from, to, 1));
    }

    /// `demo`'s HTTP bearer token, as the seed wrote it.
    pub fn token(&self) -> String {
        let config = self.config();
        let line = config.lines().find(|l| l.starts_with("token = ")).expect("a token line");
        line.trim_start_matches("token = ").trim_matches('"').to_owned()
    }

    /// Adds principal `name` with `token`, granted a new workspace directory `dir_name` next to
    /// the seeded one holding one note, plus `extra` workspace URIs; returns the new workspace's URI.
    pub fn add_principal(&self, name: &str, token: &str, dir_name: &str, extra: &[&str]) -> String {
        let dir = self.path.join(dir_name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("their-plans.md"), "# Their plans\n\nOnly for them.\n").unwrap();
        let uri = self.sibling_uri(dir_name);
        let mut workspaces = vec![format!("{uri:?}")];
        workspaces.extend(extra.iter().map(|u| format!("{u:?}")));
        let mut config = self.config();
        config.push_str(&format!(
            "\n[principals.{name}]\ntoken = \"{token}\"\nworkspaces = [{}]\n",
            workspaces.join(", ")
        ));
        self.set_config(&config);
        uri
    }

    /// A `--stdio` server on this data that has answered once, so it has read config.toml and
    /// a test may change the file for the next process.
    pub fn stdio(&self) -> StdioProcess {
        let mut server = StdioProcess::spawn(BIN, &["--data", self.arg(), "--stdio"]);
        let discovered = server.call(&request(json!("ready"), "server/discover", json!({})));
        assert_eq!(discovered["result"]["supportedVersions"], json!(["2026-07-28"]), "{discovered}");
        server
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The stems of the `*.md` entries of `dir` (files and links alike), sorted.
pub fn md_stems(dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_suffix(".md").map(str::to_owned))
        .collect();
    ids.sort();
    ids
}

/// Capabilities that declare form elicitation (the empty object means form).
pub fn form() -> Value {
    json!({"elicitation": {}})
}

pub fn sampling() -> Value {
    json!({"sampling": {}})
}

/// A `tools/call` with a valid envelope declaring `capabilities`.
pub fn tool(id: i64, name: &str, arguments: Value, capabilities: Value) -> Value {
    let mut message = request(json!(id), "tools/call", json!({"name": name, "arguments": arguments}));
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    message
}

/// The retry of `first`: the same call under a new id, with the answers and the echoed state.
pub fn retry(first: &Value, id: i64, responses: Value, state: &str) -> Value {
    let mut message = first.clone();
    message["id"] = json!(id);
    message["params"]["inputResponses"] = responses;
    message["params"]["requestState"] = json!(state);
    message
}

pub fn delete_call(id: i64, workspace: &str, title: &str) -> Value {
    tool(id, "notes_delete", json!({"workspaceUri": workspace, "title": title}), form())
}

pub fn accept(note: &str) -> Value {
    json!({"choice": {"action": "accept", "content": {"note": note, "confirm": true}}})
}

pub fn decline() -> Value {
    json!({"choice": {"action": "decline"}})
}

pub fn cancel() -> Value {
    json!({"choice": {"action": "cancel"}})
}

/// A sampling result answering input request `key` with `text`.
pub fn model_says(key: &str, text: &str) -> Value {
    json!({key: {"role": "assistant", "content": {"type": "text", "text": text}, "model": "m", "stopReason": "endTurn"}})
}

/// Sends `message` and returns the answer, checking it answers that id.
pub fn ask(server: &mut StdioProcess, message: &Value) -> Value {
    let response = server.call(message);
    assert_eq!(response["id"], message["id"], "{response}");
    response
}

/// The input requests and state of an `input_required` result.
pub fn input_required(response: &Value) -> (Value, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let state = result["requestState"].as_str().unwrap_or_else(|| panic!("no requestState: {response}"));
    (result["inputRequests"].clone(), state.to_owned())
}

/// The ids a delete form offers, in order.
pub fn offered(requests: &Value) -> Vec<String> {
    let choice = &requests["choice"];
    assert_eq!(choice["method"], "elicitation/create");
    assert_eq!(choice["params"]["mode"], "form");
    choice["params"]["requestedSchema"]["properties"]["note"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["const"].as_str().unwrap().to_owned())
        .collect()
}

/// A successful `complete` tool result with this one text.
pub fn assert_done(response: &Value, text: &str) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "complete", "{response}");
    assert!(result.get("isError").is_none_or(|e| e == false), "{response}");
    assert_eq!(result["content"], json!([{"type": "text", "text": text}]), "{response}");
}

/// A tool error result (`isError: true`) with this one text: no elicitation, no state.
pub fn assert_tool_error(response: &Value, text: &str) {
    assert!(response.get("error").is_none(), "a tool result, not a protocol error: {response}");
    let result = &response["result"];
    assert_eq!(result["resultType"], "complete", "{response}");
    assert_eq!(result["isError"], true, "{response}");
    assert!(result.get("inputRequests").is_none() && result.get("requestState").is_none(), "{response}");
    assert_eq!(result["content"], json!([{"type": "text", "text": text}]), "{response}");
}

/// A tool error for a workspace the caller may not use.
pub fn assert_not_yours(response: &Value, workspace: &str) {
    assert_tool_error(response, &format!("{workspace}: that workspace is not one you may use"));
}

/// A JSON-RPC error with exactly this code and data.
pub fn assert_error(response: &Value, code: i64, data: Value) {
    assert!(response.get("result").is_none(), "{response}");
    assert_eq!(response["error"]["code"], code, "{response}");
    assert_eq!(response["error"]["data"], data, "{response}");
}

/// The one refusal every bad, expired, replayed, tampered or mismatched state gets.
pub fn assert_state_refused(response: &Value) {
    assert_error(response, -32602, json!({"field": "requestState"}));
    assert_eq!(response["error"]["message"], "Invalid or expired requestState");
}

/// -32602 naming `field`.
pub fn assert_bad_field(response: &Value, field: &str) {
    assert_error(response, -32602, json!({"field": field}));
}

/// -32602 "Resource not found" naming `uri`.
pub fn assert_no_resource(response: &Value, uri: &str) {
    assert_error(response, -32602, json!({"uri": uri}));
    assert_eq!(response["error"]["message"], "Resource not found");
}

/// A notes server whose config trusts `auth`, with principals for both of its clients and for
/// `alice` and `bob` (subjects of tokens the tests sign themselves), all on the seeded
/// workspace.
pub struct Protected {
    pub auth: AuthorizationServer,
    pub dir: DataDir,
    pub server: HttpProcess,
}

impl Protected {
    pub fn start(name: &str) -> Self {
        Self::start_signing_with(name, "ES256")
    }

    pub fn start_signing_with(name: &str, alg: &str) -> Self {
        Self::trusting(name, AuthorizationServer::start_signing_with(alg))
    }

    /// A notes server trusting `auth`.
    pub fn trusting(name: &str, auth: AuthorizationServer) -> Self {
        let dir = DataDir::seeded(&format!("oauth-{name}"));
        let principals = [oauth::FULL_CLIENT_ID, oauth::READER_CLIENT_ID, "alice", "bob"];
        let mut config = dir.config();
        config.push_str(&mcp_rounds_tests::notes::trusting(&auth, &dir.workspace_uri(), &principals));
        dir.set_config(&config);
        let server = HttpProcess::spawn_with_env(BIN, &["--data", dir.arg()], &[("NOTES_LOG", "debug")]);
        Protected { auth, dir, server }
    }

    /// The MCP endpoint's URL: the resource tokens must be for.
    pub fn resource(&self) -> String {
        format!("http://{}/mcp", self.server.address)
    }

    pub fn metadata_url(&self) -> String {
        format!("http://{}/.well-known/oauth-protected-resource/mcp", self.server.address)
    }
}
