//! End to end with the reference Python client (PyPI `mcp` 2.3.0) forced to the handshake era
//! (protocol 2025-11-25), over stdio and over Streamable HTTP: `initialize` opens a session, and
//! each `notes_delete` sends its confirmation form to the client as a live `elicitation/create`
//! request, answered with accept, decline and cancel in turn. The script
//! (tests/python/notes_legacy_client.py) only reports what the client saw; every judgement is
//! made here, against the data directory. The report is read into typed structures, so a field
//! the script failed to report fails the test instead of passing unchecked.

mod clients;

use clients::{DataDir, seed};

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::Duration;

use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::process::run_to_end;
use mcp_rounds_tests::python;
use serde::Deserialize;
use serde_json::{Map, Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

/// The protocol revision a legacy client negotiates.
const LEGACY: &str = "2025-11-25";

/// The whole scenario takes about a second; this only bounds a hang.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(90);

/// The answers the script gives, in order, with the title of the note each one deletes.
const ACTIONS: [(&str, &str); 3] =
    [("accept", "Legacy probe accept"), ("decline", "Legacy probe decline"), ("cancel", "Legacy probe cancel")];

/// What the script reports. Every field is required (an `Option` only where the script leaves
/// it out on purpose), and unknown ones are refused, so the report and these checks stay in step.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    protocol_version: String,
    legacy: bool,
    initialize_result: Map<String, Value>,
    server_info: Value,
    capabilities: Map<String, Value>,
    instructions: String,
    tools: Vec<Map<String, Value>>,
    tools_result: Map<String, Value>,
    deletes: Deletes,
    elicitations: Vec<Elicitation>,
    notifications: Vec<Map<String, Value>>,
    /// Every HTTP exchange; only over HTTP.
    http: Option<Vec<Exchange>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Deletes {
    accept: Delete,
    decline: Delete,
    cancel: Delete,
}

impl Deletes {
    fn by_action(&self, action: &str) -> &Delete {
        match action {
            "accept" => &self.accept,
            "decline" => &self.decline,
            "cancel" => &self.cancel,
            _ => unreachable!(),
        }
    }
}

/// One `notes_create` and the `notes_delete` of that note.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Delete {
    created: Map<String, Value>,
    elicitations: Vec<Elicitation>,
    result: Map<String, Value>,
}

/// An `elicitation/create` request as the client received it, and how it answered.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Elicitation {
    request_id: Value,
    params: Map<String, Value>,
    action: String,
    /// Only on an accept: the ids the form offered, and the one picked.
    offered: Option<Vec<String>>,
    picked: Option<String>,
}

/// One HTTP exchange, as the client's event hooks saw it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Exchange {
    method: String,
    /// A POSTed message's `id` and `method`, or `kind` (result or error) for an answer.
    message: Option<Map<String, Value>>,
    request_headers: BTreeMap<String, String>,
    status: u16,
    response_headers: BTreeMap<String, String>,
}

impl Exchange {
    fn posted_method(&self) -> Option<&str> {
        self.message.as_ref()?.get("method")?.as_str()
    }

    fn posted_kind(&self) -> Option<&str> {
        self.message.as_ref()?.get("kind")?.as_str()
    }
}

/// Runs the script to its end (or kills it after [`SCRIPT_TIMEOUT`]) and parses its report.
fn run_script(transport_args: &[&str], envs: &[(&str, &str)]) -> Report {
    let mut command = Command::new(python::interpreter());
    command
        .arg(python::workspace_root().join("tests/python/notes_legacy_client.py"))
        .args(transport_args)
        .envs(envs.iter().copied());
    let (status, stdout, stderr) = run_to_end(command, SCRIPT_TIMEOUT, "the Python client");
    assert!(status.success(), "Python client failed ({status}): {stderr}");
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("the client's report is incomplete or not JSON ({e}): {stdout}"))
}

/// A result as a 2025-11-25 client must see it: no `resultType` (a 2026-07-28 field), no round
/// state, not an error.
fn assert_legacy_result(result: &Map<String, Value>, what: &str) {
    for field in ["resultType", "inputRequests", "requestState"] {
        assert!(!result.contains_key(field), "{what}: a {LEGACY} result has no {field}: {result:?}");
    }
    assert!(result.get("isError").is_none_or(|e| *e == false), "{what}: {result:?}");
}

fn slug(title: &str) -> String {
    title.to_lowercase().replace(' ', "-")
}

/// Judges a report against the data directory. `seeded` is the workspace as it was before the
/// client ran.
fn check(seen: &Report, dir: &DataDir, seeded: &BTreeMap<String, String>) {
    // The handshake: the legacy era, negotiated by initialize.
    assert_eq!(seen.protocol_version, LEGACY);
    assert!(seen.legacy, "an initialize handshake, no server/discover");
    assert_eq!(seen.initialize_result.get("protocolVersion"), Some(&json!(LEGACY)), "{:?}", seen.initialize_result);
    assert_legacy_result(&seen.initialize_result, "initialize");
    let server_info = json!({"name": "notes-server", "version": env!("CARGO_PKG_VERSION")});
    assert_eq!(seen.server_info, server_info);
    assert_eq!(seen.initialize_result["serverInfo"], server_info);
    assert_eq!(seen.capabilities.get("resources"), Some(&json!({"subscribe": true, "listChanged": true})));
    assert!(seen.capabilities.get("tools").is_some_and(Value::is_object), "{:?}", seen.capabilities);
    assert!(seen.instructions.contains("notes_delete"), "{}", seen.instructions);

    // The tool listing.
    assert_legacy_result(&seen.tools_result, "tools/list");
    let mut names: Vec<&str> = seen.tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        ["notes_create", "notes_delete", "notes_edit", "notes_export", "notes_list", "notes_read", "summarize_notes"]
    );
    let delete_tool = seen.tools.iter().find(|t| t["name"] == "notes_delete").unwrap();
    assert_eq!(delete_tool["inputSchema"]["required"], json!(["workspaceUri", "title"]));
    assert_eq!(delete_tool["annotations"]["destructiveHint"], true);

    // Each delete: its note created, exactly one live form for it, answered, and the result.
    let mut request_ids = Vec::new();
    let mut all_elicitations = Vec::new();
    for (action, title) in ACTIONS {
        let id = slug(title);
        let delete = seen.deletes.by_action(action);

        assert_legacy_result(&delete.created, &format!("notes_create ({action})"));
        assert_eq!(
            delete.created.get("structuredContent"),
            Some(&json!({"id": id, "title": title, "uri": format!("notes://workspace/{id}")})),
            "{action}: {:?}",
            delete.created
        );

        assert_eq!(delete.elicitations.len(), 1, "{action}: one form per delete: {:?}", delete.elicitations);
        let elicitation = &delete.elicitations[0];
        assert_eq!(elicitation.action, action);
        let params = &elicitation.params;
        assert_eq!(params.get("mode"), Some(&json!("form")), "{action}: {params:?}");
        assert_eq!(params.get("message"), Some(&json!(format!("Delete the note {title:?}?"))), "{action}");
        let schema =
            params.get("requestedSchema").unwrap_or_else(|| panic!("{action}: no requestedSchema: {params:?}"));
        assert_eq!(schema["type"], "object", "{action}: {schema}");
        let properties = schema["properties"].as_object().unwrap_or_else(|| panic!("{action}: {schema}"));
        assert_eq!(properties.keys().collect::<Vec<_>>(), ["note", "confirm"], "{action}: {schema}");
        assert_eq!(schema["required"], json!(["note", "confirm"]), "{action}");
        assert_eq!(properties["note"]["type"], "string", "{action}");
        assert_eq!(properties["note"]["oneOf"], json!([{"const": id, "title": title}]), "only the note just made");
        assert_eq!(properties["confirm"]["type"], "boolean", "{action}");
        if action == "accept" {
            assert_eq!(elicitation.offered.as_deref(), Some(std::slice::from_ref(&id)), "{elicitation:?}");
            assert_eq!(elicitation.picked.as_deref(), Some(id.as_str()), "{elicitation:?}");
        } else {
            assert_eq!((&elicitation.offered, &elicitation.picked), (&None, &None), "{elicitation:?}");
        }
        request_ids.push(elicitation.request_id.clone());
        all_elicitations.push(elicitation.clone());

        assert_legacy_result(&delete.result, &format!("notes_delete ({action})"));
        let says = match action {
            "accept" => format!("Deleted {id}."),
            "decline" => "Declined; nothing was deleted.".to_owned(),
            _ => "Cancelled; nothing was deleted. The confirmation can be asked for again.".to_owned(),
        };
        assert_eq!(delete.result.get("content"), Some(&json!([{"type": "text", "text": says}])), "{action}");
    }
    assert_eq!(seen.elicitations, all_elicitations, "no form besides the three deletes'");
    assert!(request_ids.iter().all(|id| id.is_string() || id.is_number()), "{request_ids:?}");
    let distinct: BTreeSet<String> = request_ids.iter().map(Value::to_string).collect();
    assert_eq!(distinct.len(), 3, "each live request has its own id: {request_ids:?}");

    // Nothing went wrong on the transport; notifications are all well-formed.
    for notification in &seen.notifications {
        assert!(!notification.contains_key("transport_error"), "{notification:?}");
        assert!(notification.get("method").is_some_and(Value::is_string), "{notification:?}");
    }

    // The disk: the accepted note is in the trash, the declined and cancelled ones stay, and
    // nothing else changed.
    let body = |action: &str, title: &str| format!("# {title}\n\nMade to be deleted, answering {action}.\n");
    let mut expected = seeded.clone();
    for (action, title) in &ACTIONS[1..] {
        expected.insert(slug(title), body(action, title));
    }
    assert_eq!(dir.notes(), expected, "accept deleted its note, decline and cancel kept theirs");
    let trash = dir.trash();
    assert_eq!(trash.len(), 1, "exactly one note was deleted: {trash:?}");
    let (name, text) = trash.iter().next().unwrap();
    assert!(name.ends_with("--legacy-probe-accept.md"), "{name}");
    assert_eq!(*text, body("accept", "Legacy probe accept"));
    assert!(std::fs::symlink_metadata(dir.workspace().join("private-link.md")).unwrap().file_type().is_symlink());
}

/// Judges the HTTP exchanges: one session, issued by initialize and carried by every later
/// request, closed by an accepted DELETE.
fn check_http(exchanges: &[Exchange]) {
    let summary = || {
        exchanges
            .iter()
            .map(|e| format!("{} {:?} -> {} {:?}", e.method, e.message, e.status, e.response_headers))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (first, rest) = exchanges.split_first().expect("some HTTP exchanges");
    assert_eq!((first.method.as_str(), first.posted_method()), ("POST", Some("initialize")), "{}", summary());
    assert_eq!(first.status, 200, "{}", summary());
    assert!(!first.request_headers.contains_key("mcp-session-id"), "initialize opens the session: {first:?}");
    let session = first.response_headers.get("mcp-session-id").expect("initialize issues an Mcp-Session-Id");
    assert!(
        !session.is_empty() && session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "a session id is visible ASCII: {session:?}"
    );

    for exchange in rest {
        assert_eq!(
            exchange.request_headers.get("mcp-session-id"),
            Some(session),
            "sent on every later request: {exchange:?}"
        );
        assert_eq!(
            exchange.request_headers.get("mcp-protocol-version").map(String::as_str),
            Some(LEGACY),
            "{exchange:?}"
        );
        assert!((200..300).contains(&exchange.status), "{exchange:?}\n{}", summary());
        if let Some(reissued) = exchange.response_headers.get("mcp-session-id") {
            assert_eq!(reissued, session, "the session id never changes: {exchange:?}");
        }
    }

    // The first POST after initialize; the client may open its GET stream before or after it.
    let initialized = rest.iter().find(|e| e.method == "POST").expect("a POST after initialize");
    assert_eq!(initialized.posted_method(), Some("notifications/initialized"), "{}", summary());
    assert_eq!(initialized.status, 202);

    // The client's GET stream was opened on the session.
    let gets: Vec<&Exchange> = rest.iter().filter(|e| e.method == "GET").collect();
    assert_eq!(gets.len(), 1, "{}", summary());
    assert_eq!(gets[0].status, 200);
    assert_eq!(gets[0].response_headers.get("content-type").map(String::as_str), Some("text/event-stream"));

    // Three creates and three deletes, and the three answers to the live forms, each accepted.
    let calls = rest.iter().filter(|e| e.posted_method() == Some("tools/call")).count();
    assert_eq!(calls, 6, "{}", summary());
    let answers: Vec<&Exchange> = rest.iter().filter(|e| e.posted_kind().is_some()).collect();
    assert_eq!(answers.len(), 3, "{}", summary());
    for answer in answers {
        assert_eq!(answer.posted_kind(), Some("result"), "{answer:?}");
        assert_eq!(answer.status, 202, "{answer:?}");
    }

    // And the session was closed with a DELETE, accepted.
    let last = rest.last().unwrap();
    assert_eq!(last.method, "DELETE", "the client closes its session at the end: {}", summary());
    assert!(matches!(last.status, 200 | 202 | 204), "{last:?}");
    assert_eq!(rest.iter().filter(|e| e.method == "DELETE").count(), 1, "{}", summary());
}

#[test]
fn legacy_python_client_over_stdio() {
    let dir = DataDir::new("legacy-client", "stdio");
    seed(&dir);
    let (workspace, _token) = dir.demo();
    let seeded = dir.notes();
    let seen = run_script(&[&workspace, "stdio", BIN, "--data", dir.arg(), "--stdio"], &[]);
    assert!(seen.http.is_none(), "no HTTP over stdio");
    check(&seen, &dir, &seeded);
}

#[test]
fn legacy_python_client_over_http() {
    let dir = DataDir::new("legacy-client", "http");
    let server = HttpProcess::spawn(BIN, &["--data", dir.arg()]);
    let (workspace, token) = dir.demo();
    let seeded = dir.notes();
    let url = format!("http://{}/mcp", server.address);
    let seen = run_script(&[&workspace, "http", &url], &[("NOTES_TOKEN", &token)]);
    check(&seen, &dir, &seeded);
    check_http(seen.http.as_deref().expect("the script reports every HTTP exchange"));
    drop(server);
}
