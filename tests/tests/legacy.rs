//! Clients of revision 2025-11-25 against a server written once for 2026-07-28: the
//! `initialize` handshake, sessions (per connection on stdio, `Mcp-Session-Id` over HTTP),
//! rounds played out as live server-to-client requests with the same validation and single-use
//! rules, change notifications from the same `Changes`, and the wall between a session and the
//! stateless path.

use std::path::{Path, PathBuf};

use mcp_rounds_tests::http::{EventStream, HttpProcess, HttpResponse, request as http};
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::{StdioProcess, answer_to};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_fixture-server");
const TOKEN: &str = "legacy-test-token";
const OTHER_TOKEN: &str = "someone-elses-token";

/// A fresh notes directory with one note per `(id, title)`.
fn notes_dir(name: &str, notes: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-rounds-legacy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (id, title) in notes {
        std::fs::write(dir.join(format!("{id}.md")), format!("# {title}\n")).unwrap();
    }
    dir
}

fn exists(dir: &Path, id: &str) -> bool {
    dir.join(format!("{id}.md")).exists()
}

fn initialize(id: i64, version: &str, capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "legacy-test", "version": "1.0.0"}
    }})
}

fn legacy(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    legacy(id, "tools/call", json!({"name": name, "arguments": arguments}))
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content in {result}"))
}

/// The accept answer for the fixture's delete form: the offered note, confirmed.
fn accept_first_choice(request: &Value) -> Value {
    let note = &request["params"]["requestedSchema"]["properties"]["note"];
    let choice = note["oneOf"][0]["const"].as_str().or_else(|| note["enum"][0].as_str()).expect("a choice");
    json!({"action": "accept", "content": {"note": choice, "confirm": true}})
}

fn reply(to: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": to["id"], "result": result})
}

struct Stdio {
    server: StdioProcess,
}

impl Stdio {
    fn start(dir: &Path) -> Self {
        Stdio { server: StdioProcess::spawn(BIN, &["--notes", dir.to_str().unwrap()]) }
    }

    fn handshake(&mut self, capabilities: Value) -> Value {
        let answer = self.server.call(&initialize(1, "2025-11-25", capabilities));
        self.server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }
}

#[test]
fn stdio_handshake_settles_a_version_and_results_lose_the_2026_members() {
    let dir = notes_dir("handshake", &[]);
    let mut server = Stdio::start(&dir);
    let answer = server.handshake(json!({"elicitation": {}}));
    let result = &answer["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(result["serverInfo"]["name"], "fixture-server");
    assert_eq!(result["instructions"], "Tools for testing mcp-rounds.");
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(result["capabilities"]["resources"]["subscribe"], true);
    assert!(result.get("resultType").is_none());

    let list = server.server.call(&legacy(2, "tools/list", json!({})));
    for member in ["resultType", "ttlMs", "cacheScope"] {
        assert!(list["result"].get(member).is_none(), "{member} in a 2025 result: {list}");
    }
    assert!(list["result"]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "notes_delete"));
    assert_eq!(server.server.call(&legacy(3, "ping", json!({})))["result"], json!({}));

    let again = server.server.call(&initialize(4, "2025-11-25", json!({})));
    assert_eq!(again["error"]["code"], -32600, "{again}");
    let bad_level = server.server.call(&legacy(5, "logging/setLevel", json!({"level": "loud"})));
    assert_eq!(bad_level["error"]["code"], -32602, "{bad_level}");
    let missing = server.server.call(&legacy(6, "resources/read", json!({"uri": "fixture://nothing/here"})));
    assert_eq!(missing["error"]["code"], -32002, "2025 says -32002 for a missing resource: {missing}");
    assert_eq!(missing["error"]["data"]["uri"], "fixture://nothing/here");
    let listen = server.server.call(&legacy(7, "subscriptions/listen", json!({"notifications": {}})));
    assert_eq!(listen["error"]["code"], -32601, "{listen}");
}

#[test]
fn stdio_versions_are_negotiated_and_a_second_connection_has_its_own_session() {
    let dir = notes_dir("versions", &[]);
    for (asked, settled) in [("2025-06-18", "2025-06-18"), ("2024-11-05", "2025-11-25"), ("2099-01-01", "2025-11-25")] {
        let mut server = StdioProcess::spawn(BIN, &["--notes", dir.to_str().unwrap()]);
        let answer = server.call(&initialize(1, asked, json!({})));
        assert_eq!(answer["result"]["protocolVersion"], settled, "asked {asked}");
    }
    let mut server = StdioProcess::spawn(BIN, &["--notes", dir.to_str().unwrap()]);
    let bad = server.call(&initialize(1, "2025-11-25", json!({"elicitation": "yes"})));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // A failed handshake settles nothing: the next one works.
    let good = server.call(&initialize(2, "2025-11-25", json!({})));
    assert_eq!(good["result"]["protocolVersion"], "2025-11-25", "{good}");
}

#[test]
fn stdio_rounds_become_live_elicitations_and_answers_are_checked_as_in_2026() {
    let dir = notes_dir("rounds", &[("tps", "TPS report"), ("memo", "Memo"), ("plan", "Plan")]);
    let mut stdio = Stdio::start(&dir);
    stdio.handshake(json!({"elicitation": {}}));
    let server = &mut stdio.server;

    // Accept: the form arrives as a live request, and the answer finishes the same call.
    server.send(&call(10, "notes_delete", json!({"title": "tps"})));
    let ask = server.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert!(ask["id"].is_string(), "the server's ids are its own: {ask}");
    assert_eq!(ask["params"]["requestedSchema"]["required"], json!(["note", "confirm"]));
    assert!(exists(&dir, "tps"), "nothing happens before the answer");
    server.send(&reply(&ask, accept_first_choice(&ask)));
    let done = server.recv();
    assert_eq!(done["id"], 10);
    assert_eq!(text_of(&done["result"]), "Deleted tps.", "{done}");
    assert!(done["result"].get("resultType").is_none());
    assert!(!exists(&dir, "tps"));

    // Decline keeps the note.
    server.send(&call(11, "notes_delete", json!({"title": "memo"})));
    let ask = server.recv();
    server.send(&reply(&ask, json!({"action": "decline"})));
    let done = server.recv();
    assert_eq!(text_of(&done["result"]), "Kept; nothing deleted.");
    assert!(exists(&dir, "memo"));

    // An answer outside the form sent is refused exactly as a 2026 retry would be, and
    // nothing is deleted.
    server.send(&call(12, "notes_delete", json!({"title": "memo"})));
    let ask = server.recv();
    server.send(&reply(&ask, json!({"action": "accept", "content": {"note": "plan", "confirm": true}})));
    let refused = server.recv();
    assert_eq!(refused["id"], 12);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(exists(&dir, "memo") && exists(&dir, "plan"));

    // A client that answers with an error fails the call, naming what it refused.
    server.send(&call(13, "notes_delete", json!({"title": "memo"})));
    let ask = server.recv();
    server.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "error": {"code": -32601, "message": "no forms here"}}));
    let failed = server.recv();
    assert_eq!(failed["id"], 13);
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(message.contains("elicitation/create") && message.contains("no forms here"), "{failed}");
    assert!(exists(&dir, "memo"));

    // Cancelling the call withdraws the question, and a late answer changes nothing.
    server.send(&call(15, "notes_delete", json!({"title": "memo"})));
    let ask = server.recv();
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 15}}));
    let withdrawn = server.recv();
    assert_eq!(withdrawn["method"], "notifications/cancelled", "{withdrawn}");
    assert_eq!(withdrawn["params"]["requestId"], ask["id"]);
    server.send(&reply(&ask, accept_first_choice(&ask)));

    // A response that answers nothing the server asked is dropped, not answered.
    server.send(&json!({"jsonrpc": "2.0", "id": "never-asked", "result": {}}));
    assert_eq!(server.call(&legacy(14, "ping", json!({})))["id"], 14);
    // Calls still running are waited for at the end of input: an answer to the cancelled call
    // would be among the last lines.
    let (rest, status) = stdio.server.finish();
    assert!(rest.is_empty(), "a cancelled call is not answered: {rest:?}");
    assert!(status.success());
    assert!(exists(&dir, "memo"));
}

#[test]
fn stdio_rounds_need_the_capability_the_handshake_declared() {
    let dir = notes_dir("capability", &[("tps", "TPS report")]);
    let mut server = Stdio::start(&dir);
    server.handshake(json!({}));
    let refused = server.server.call(&call(2, "notes_delete", json!({"title": "tps"})));
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(exists(&dir, "tps"));
}

#[test]
fn stdio_two_sampling_rounds_and_progress_reach_a_legacy_client() {
    let dir = notes_dir("sampling", &[("a", "Alpha"), ("b", "Beta")]);
    let mut server = Stdio::start(&dir);
    server.handshake(json!({"sampling": {}}));
    let server = &mut server.server;
    server.send(&call(2, "notes_summarize", json!({})));
    let mut rounds = 0;
    let done = loop {
        let message = server.recv();
        if message["method"] == "sampling/createMessage" {
            rounds += 1;
            let text = if rounds == 1 { r#"["a"]"# } else { "Alpha is the only one." };
            let answer = json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test"});
            server.send(&reply(&message, answer));
        } else {
            break message;
        }
    };
    assert_eq!(rounds, 2, "two rounds, each a live request");
    assert_eq!(done["id"], 2);
    assert!(text_of(&done["result"]).contains("Alpha is the only one."), "{done}");

    server.send(&legacy(
        3,
        "tools/call",
        json!({"name": "progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "p"}}),
    ));
    let mut progress = Vec::new();
    let done = loop {
        let message = server.recv();
        match message["method"].as_str() {
            Some("notifications/progress") => progress.push(message["params"]["progress"].as_f64().unwrap()),
            _ => break message,
        }
    };
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    assert_eq!(done["id"], 3);
}

#[test]
fn stdio_subscriptions_and_list_changes_come_from_the_same_changes() {
    let dir = notes_dir("changes", &[]);
    let mut server = Stdio::start(&dir);
    server.handshake(json!({}));
    let server = &mut server.server;
    let subscribed = server.call(&legacy(2, "resources/subscribe", json!({"uri": "fixture://items/one"})));
    assert_eq!(subscribed["result"], json!({}));

    // The notifications an announcement produced. They may trail its answer; the session
    // forwards changes in order, so once the prompt list change announced next is in, nothing
    // more of them can come.
    let announced = |server: &mut StdioProcess, id: i64, arguments: Value| {
        server.send(&call(id, "announce", arguments));
        let mut seen = server.recv_until(&[&answer_to(json!(id))]);
        server.send(&call(id + 1000, "announce", json!({"kind": "prompts"})));
        let sentinel = |m: &Value| m["method"] == "notifications/prompts/list_changed";
        seen.extend(server.recv_until(&[&answer_to(json!(id + 1000)), &sentinel]));
        seen.retain(|m| m.get("method").is_some() && !sentinel(m));
        seen
    };
    let seen = announced(server, 3, json!({"kind": "updated", "uri": "fixture://items/one"}));
    assert_eq!(
        seen,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "fixture://items/one"}})
        ]
    );
    let seen = announced(server, 4, json!({"kind": "updated", "uri": "fixture://items/two"}));
    assert!(seen.is_empty(), "not subscribed: {seen:?}");
    let seen = announced(server, 5, json!({"kind": "tools"}));
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["method"], "notifications/tools/list_changed");

    server.call(&legacy(6, "resources/unsubscribe", json!({"uri": "fixture://items/one"})));
    let seen = announced(server, 7, json!({"kind": "updated", "uri": "fixture://items/one"}));
    assert!(seen.is_empty(), "unsubscribed: {seen:?}");

    // The fixture's policy keeps anonymous callers off this one; the answer does not say so.
    let refused = server.call(&legacy(8, "resources/subscribe", json!({"uri": "fixture://items/private"})));
    assert_eq!(refused["result"], json!({}));
    let seen = announced(server, 9, json!({"kind": "updated", "uri": "fixture://items/private"}));
    assert!(seen.is_empty(), "the policy refused it: {seen:?}");
}

#[test]
fn stdio_sessions_and_the_stateless_path_stay_apart() {
    let dir = notes_dir("apart", &[]);
    let mut server = StdioProcess::spawn(BIN, &["--notes", dir.to_str().unwrap()]);
    // Before any handshake, a request without _meta is a 2026-07-28 request missing it.
    let early = server.call(&legacy(1, "tools/list", json!({})));
    assert_eq!(early["error"]["code"], -32602, "{early}");
    // initialize with the 2026 envelope is not a handshake.
    let modern_init = server.call(&request(json!(2), "initialize", json!({"protocolVersion": "2025-11-25"})));
    assert_eq!(modern_init["error"]["code"], -32601, "{modern_init}");

    server.call(&initialize(3, "2025-11-25", json!({})));
    // Requests with the envelope are still served statelessly on the same connection.
    let modern = server.call(&request(json!(4), "tools/list", json!({})));
    assert_eq!(modern["result"]["resultType"], "complete", "{modern}");
    let discover = server.call(&request(json!(5), "server/discover", json!({})));
    assert!(discover["result"]["supportedVersions"].is_array(), "{discover}");
    let legacy_list = server.call(&legacy(6, "tools/list", json!({})));
    assert!(legacy_list["result"].get("resultType").is_none());
}

// --- Streamable HTTP ---------------------------------------------------------------------

fn http_server(dir: &Path) -> HttpProcess {
    HttpProcess::spawn(
        BIN,
        &[
            "--notes",
            dir.to_str().unwrap(),
            "--token",
            &format!("{TOKEN}=demo"),
            "--token",
            &format!("{OTHER_TOKEN}=mallory"),
        ],
    )
}

/// What a 2025 client sends: no `_meta`, the session id once it has one.
fn session_headers(token: &str, session: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("Authorization", format!("Bearer {token}")),
    ];
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session.to_owned()));
        headers.push(("MCP-Protocol-Version", "2025-11-25".to_owned()));
    }
    headers
}

fn post(server: &HttpProcess, token: &str, session: Option<&str>, message: &Value) -> HttpResponse {
    let headers = session_headers(token, session);
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    http(&server.address, "POST", &headers, message.to_string().as_bytes())
}

fn open_session(server: &HttpProcess, capabilities: Value) -> String {
    let response = post(server, TOKEN, None, &initialize(1, "2025-11-25", capabilities));
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["result"]["protocolVersion"], "2025-11-25");
    let session = response.header("mcp-session-id").expect("a session id").to_owned();
    let initialized =
        post(server, TOKEN, Some(&session), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(initialized.status, 202);
    session
}

#[test]
fn http_sessions_are_issued_checked_and_ended() {
    let dir = notes_dir("http-sessions", &[]);
    let server = http_server(&dir);

    let failed = post(&server, TOKEN, None, &initialize(1, "2025-11-25", json!({"roots": 7})));
    assert_eq!(failed.status, 200, "a session error travels with 200");
    assert_eq!(failed.json()["error"]["code"], -32602);
    assert!(failed.header("mcp-session-id").is_none(), "a failed handshake opens no session");

    let session = open_session(&server, json!({}));
    assert!(session.len() >= 32 && session.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{session}");
    let list = post(&server, TOKEN, Some(&session), &legacy(2, "tools/list", json!({})));
    assert_eq!(list.status, 200);
    assert!(list.json()["result"].get("resultType").is_none());
    let error = post(&server, TOKEN, Some(&session), &call(3, "no_such_tool", json!({})));
    assert_eq!(error.status, 200, "2025 errors travel with 200");
    assert_eq!(error.json()["error"]["code"], -32602);

    // Someone else's token does not reach the session, and cannot end it.
    let stolen = post(&server, OTHER_TOKEN, Some(&session), &legacy(4, "tools/list", json!({})));
    assert_eq!(stolen.status, 404);
    let headers = session_headers(OTHER_TOKEN, Some(&session));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert_eq!(http(&server.address, "DELETE", &headers, b"").status, 404);

    let wrong_version = {
        let mut headers = session_headers(TOKEN, Some(&session));
        headers.retain(|(n, _)| *n != "MCP-Protocol-Version");
        headers.push(("MCP-Protocol-Version", "2025-06-18".to_owned()));
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        http(&server.address, "POST", &headers, legacy(5, "tools/list", json!({})).to_string().as_bytes())
    };
    assert_eq!(wrong_version.status, 400, "the header must be the negotiated version");

    let modern_in_session = post(&server, TOKEN, Some(&session), &request(json!(6), "tools/list", json!({})));
    assert_eq!(modern_in_session.status, 400);
    assert_eq!(modern_in_session.json()["error"]["code"], -32600);

    // Without a session, a request without _meta is a 2026 request missing its envelope.
    let sessionless = post(&server, TOKEN, None, &legacy(7, "tools/list", json!({})));
    assert_eq!(sessionless.status, 400);
    assert_eq!(sessionless.json()["error"]["code"], -32602);

    let headers = session_headers(TOKEN, Some(&session));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert_eq!(http(&server.address, "DELETE", &headers, b"").status, 200);
    let gone = post(&server, TOKEN, Some(&session), &legacy(8, "tools/list", json!({})));
    assert_eq!(gone.status, 404, "an ended session is gone");
    let made_up = post(&server, TOKEN, Some("0123456789abcdef0123456789abcdef"), &legacy(9, "ping", json!({})));
    assert_eq!(made_up.status, 404);

    // GET and DELETE without a session are not part of 2026-07-28.
    let bare: Vec<(&str, &str)> = vec![("Authorization", "Bearer legacy-test-token"), ("Accept", "text/event-stream")];
    assert_eq!(http(&server.address, "GET", &bare, b"").status, 405);
    assert_eq!(http(&server.address, "DELETE", &bare, b"").status, 405);
}

#[test]
fn http_rounds_go_out_on_the_request_stream_and_answers_come_back_by_post() {
    let dir = notes_dir("http-rounds", &[("tps", "TPS report"), ("memo", "Memo")]);
    let server = http_server(&dir);
    let session = open_session(&server, json!({"elicitation": {"form": {}}}));
    let headers = session_headers(TOKEN, Some(&session));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();

    let mut stream = EventStream::open(
        &server.address,
        &headers,
        call(2, "notes_delete", json!({"title": "tps"})).to_string().as_bytes(),
    );
    assert_eq!(stream.status, 200);
    let ask = stream.next_event().expect("the form, on the request's stream");
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answered = post(&server, TOKEN, Some(&session), &reply(&ask, accept_first_choice(&ask)));
    assert_eq!(answered.status, 202);
    let done = stream.next_event().expect("the result, on the same stream");
    assert_eq!(done["id"], 2);
    assert_eq!(text_of(&done["result"]), "Deleted tps.", "{done}");
    assert!(!exists(&dir, "tps"));

    // A replayed answer for an id already answered changes nothing.
    let replayed = post(&server, TOKEN, Some(&session), &reply(&ask, accept_first_choice(&ask)));
    assert_eq!(replayed.status, 202);
    assert!(exists(&dir, "memo"));

    // notifications/cancelled naming the call ends it: the stream closes without a result.
    let mut stream = EventStream::open(
        &server.address,
        &headers,
        call(4, "notes_delete", json!({"title": "memo"})).to_string().as_bytes(),
    );
    let ask = stream.next_event().expect("the form");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}});
    assert_eq!(post(&server, TOKEN, Some(&session), &cancel).status, 202);
    while let Some(event) = stream.next_event() {
        assert!(event.get("id") != Some(&json!(4)), "a cancelled call is not answered: {event}");
    }
    assert_eq!(post(&server, TOKEN, Some(&session), &reply(&ask, accept_first_choice(&ask))).status, 202);
    assert!(exists(&dir, "memo"));

    // Without an event stream there is no way to ask: a clear error, nothing deleted.
    let json_only = {
        let mut headers = session_headers(TOKEN, Some(&session));
        headers.retain(|(n, _)| *n != "Accept");
        headers.push(("Accept", "application/json".to_owned()));
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        http(
            &server.address,
            "POST",
            &headers,
            call(3, "notes_delete", json!({"title": "memo"})).to_string().as_bytes(),
        )
    };
    assert_eq!(json_only.status, 200);
    let error = json_only.json();
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("text/event-stream"));
    assert!(exists(&dir, "memo"));
}

#[test]
fn http_the_session_stream_carries_list_changes_and_subscribed_updates() {
    let dir = notes_dir("http-stream", &[]);
    let server = http_server(&dir);
    let session = open_session(&server, json!({}));
    let headers = session_headers(TOKEN, Some(&session));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();

    let mut notifications = EventStream::open_with(&server.address, "GET", &headers, b"");
    assert_eq!(notifications.status, 200);
    assert!(notifications.header("content-type").is_some_and(|c| c.starts_with("text/event-stream")));
    let second = http(&server.address, "GET", &headers, b"");
    assert_eq!(second.status, 409, "one notification stream per session");

    let subscribed =
        post(&server, TOKEN, Some(&session), &legacy(2, "resources/subscribe", json!({"uri": "fixture://items/one"})));
    assert_eq!(subscribed.json()["result"], json!({}));
    // Another session's changes reach this one: they come from the server, not the session.
    let other = open_session(&server, json!({}));
    let announce = |id: i64, arguments: Value| {
        let response = post(&server, TOKEN, Some(&other), &call(id, "announce", arguments));
        assert!(response.json()["result"]["isError"] != true, "{:?}", response.json());
    };
    announce(3, json!({"kind": "updated", "uri": "fixture://items/two"}));
    announce(4, json!({"kind": "updated", "uri": "fixture://items/one"}));
    announce(5, json!({"kind": "prompts"}));
    let first = notifications.next_event().expect("an update");
    assert_eq!(
        first,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "fixture://items/one"}})
    );
    let second = notifications.next_event().expect("a list change");
    assert_eq!(second["method"], "notifications/prompts/list_changed");
}
