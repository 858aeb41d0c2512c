//! A smoke test with the MCP Inspector's CLI (npm `@modelcontextprotocol/inspector-cli`, pinned
//! in tests/node/), a 2025-11-25 client: it lists the tools and creates and reads back a note
//! over stdio, and lists the tools and reads a note over Streamable HTTP with the bearer token.
//! The Inspector declares no elicitation capability, so `notes_delete` is out of its reach.

mod common;

use std::process::{Command, ExitStatus};
use std::time::Duration;

use common::{BIN, DataDir, SEEDED};
use mcp_rounds_tests::conformance::ConformanceSuite;
use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::process::run_to_end;
use serde_json::{Value, json};

/// One run takes about half a second; this only bounds a hang.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// The note the stdio test creates.
const TITLE: &str = "Inspector probe";
const BODY: &str = "Written by the MCP Inspector, over stdio.";

/// Runs `command` to its end (or kills it after [`RUN_TIMEOUT`]): its status, stdout, stderr.
fn run(command: Command) -> (ExitStatus, String, String) {
    run_to_end(command, RUN_TIMEOUT, "mcp-inspector-cli")
}

/// `mcp-inspector-cli --cli <target...> <request...>`, required to succeed; its JSON answer.
fn inspect(suite: &ConformanceSuite, target: &[&str], request: &[&str]) -> Value {
    let mut command = suite.inspector_command();
    command.arg("--cli").args(target).args(request);
    let (status, stdout, stderr) = run(command);
    assert!(status.success(), "mcp-inspector-cli {request:?} failed ({status}): {stderr}\n{stdout}");
    let answer: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("mcp-inspector-cli {request:?} printed no JSON ({e}): {stdout}\n{stderr}"));
    // Served as the 2025-11-25 era it speaks: no 2026-07-28 result fields.
    for field in ["resultType", "inputRequests", "requestState"] {
        assert!(answer.get(field).is_none(), "{request:?}: a {field} for a 2025-11-25 client: {answer}");
    }
    answer
}

/// A `tools/call` of `tool` with `key=value` arguments (the CLI parses each value as JSON when
/// it can: none of ours looks like a number or a literal).
fn call(tool: &str, arguments: &[(&str, &str)]) -> Vec<String> {
    let mut request: Vec<String> = ["--method", "tools/call", "--tool-name", tool].map(str::to_owned).into();
    for (key, value) in arguments {
        request.extend(["--tool-arg".to_owned(), format!("{key}={value}")]);
    }
    request
}

fn strings(request: &[String]) -> Vec<&str> {
    request.iter().map(String::as_str).collect()
}

/// The tool names of a `tools/list` answer, sorted; each tool has an object input schema.
fn tool_names(listing: &Value) -> Vec<String> {
    let tools = listing["tools"].as_array().unwrap_or_else(|| panic!("no tools: {listing}"));
    let mut names: Vec<String> = tools
        .iter()
        .map(|t| {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            t["name"].as_str().unwrap_or_else(|| panic!("a tool without a name: {t}")).to_owned()
        })
        .collect();
    names.sort();
    names
}

const TOOLS: [&str; 7] =
    ["notes_create", "notes_delete", "notes_edit", "notes_export", "notes_list", "notes_read", "summarize_notes"];

/// The single text of a successful tool result.
fn text_of(result: &Value) -> &str {
    assert!(result.get("isError").is_none_or(|e| e == false), "{result}");
    let content = result["content"].as_array().unwrap_or_else(|| panic!("no content: {result}"));
    assert_eq!(content.len(), 1, "{result}");
    assert_eq!(content[0]["type"], "text", "{result}");
    content[0]["text"].as_str().unwrap()
}

#[test]
fn inspector_cli_over_stdio() {
    let suite = ConformanceSuite::install();
    let dir = DataDir::seeded("inspector-stdio");
    let workspace = dir.workspace_uri();
    let target = [BIN, "--data", dir.arg(), "--stdio"];

    let listing = inspect(&suite, &target, &["--method", "tools/list"]);
    assert_eq!(tool_names(&listing), TOOLS);

    // Create a note: the answer names it, and it is on disk with the body given.
    let created = inspect(
        &suite,
        &target,
        &strings(&call("notes_create", &[("workspaceUri", &workspace), ("title", TITLE), ("body", BODY)])),
    );
    let id = "inspector-probe";
    let note_ref = json!({"id": id, "title": TITLE, "uri": format!("notes://workspace/{id}")});
    assert_eq!(created["structuredContent"], note_ref, "{created}");
    assert_eq!(serde_json::from_str::<Value>(text_of(&created)).unwrap(), note_ref);
    let on_disk = std::fs::read_to_string(dir.workspace().join(format!("{id}.md"))).expect("the note was written");
    assert_eq!(on_disk, format!("# {TITLE}\n\n{BODY}\n"));
    let mut expected: Vec<&str> = SEEDED.to_vec();
    expected.push(id);
    expected.sort();
    assert_eq!(dir.notes(), expected, "one new note, nothing else changed");

    // Read it back, by id and through the listing, each from a new server process.
    let read = inspect(&suite, &target, &strings(&call("notes_read", &[("workspaceUri", &workspace), ("id", id)])));
    assert_eq!(text_of(&read), on_disk);
    let listed = inspect(
        &suite,
        &target,
        &strings(&call("notes_list", &[("workspaceUri", &workspace), ("query", "inspector")])),
    );
    assert_eq!(listed["structuredContent"], json!({"notes": [note_ref]}), "{listed}");
}

#[test]
fn inspector_cli_over_http() {
    let suite = ConformanceSuite::install();
    let dir = DataDir::seeded("inspector-http");
    let server = HttpProcess::spawn(BIN, &["--data", dir.arg()]);
    let url = format!("http://{}/mcp", server.address);
    let authorization = format!("Authorization: Bearer {}", dir.token());
    let target = [url.as_str(), "--header", authorization.as_str()];

    let listing = inspect(&suite, &target, &["--method", "tools/list"]);
    assert_eq!(tool_names(&listing), TOOLS);

    let workspace = dir.workspace_uri();
    let read = inspect(
        &suite,
        &target,
        &strings(&call("notes_read", &[("workspaceUri", &workspace), ("id", "roadmap-meeting")])),
    );
    let on_disk = std::fs::read_to_string(dir.workspace().join("roadmap-meeting.md")).unwrap();
    assert_eq!(text_of(&read), on_disk);

    // Without the token the Inspector cannot connect at all.
    let mut command = suite.inspector_command();
    command.args(["--cli", &url, "--method", "tools/list"]);
    let (status, stdout, stderr) = run(command);
    assert_eq!(status.code(), Some(1), "no bearer token, no answer: {stdout}\n{stderr}");
    assert!(stderr.contains("Failed to connect"), "{stderr}");
    drop(server);
    dir.assert_intact();
}
