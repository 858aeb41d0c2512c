//! The hostile server answers as its scenarios say: checked with a raw HTTP client, so that
//! the tests of the client's defences can rely on what it sends.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_rounds_tests::hostile::{ALL, Hostile, dangerous, stdio_command};
use mcp_rounds_tests::http::{HttpResponse, mcp_headers, request_to};
use mcp_rounds_tests::request;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_hostile-server");

/// POSTs `message` to `path` on `address` with a conforming client's headers, and `token`.
fn post(address: &str, path: &str, token: Option<&str>, message: &Value) -> HttpResponse {
    let headers = mcp_headers(message, token);
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    request_to(address, "POST", path, &borrowed, message.to_string().as_bytes())
}

/// Sends a request and reads what arrives within `wait`: the raw bytes, head included.
fn raw_within(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    wait: Duration,
) -> String {
    let mut stream = TcpStream::connect(address).expect("connect");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Length: {}\r\n", body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write head");
    stream.write_all(body).expect("write body");
    stream.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let deadline = std::time::Instant::now() + wait;
    let mut got = Vec::new();
    let mut buffer = [0; 65536];
    while std::time::Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buffer[..n]),
            Err(_) => {}
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn escapes_discovers_lists_and_streams_hostile_text() {
    let server = Hostile::start(BIN);
    let address = server.main_address();
    assert_eq!(server.url("escapes"), format!("{}/escapes/mcp", server.main_origin()));
    let discovered = post(address, "/escapes/mcp", None, &request(json!(1), "server/discover", json!({})));
    assert_eq!(discovered.status, 200);
    let result = &discovered.json()["result"];
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(result["resultType"], "complete");
    assert!(result["instructions"].as_str().unwrap().contains(ALL));
    assert!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].as_str().unwrap().contains(ALL));

    let listed = post(address, "/escapes/mcp", None, &request(json!(2), "tools/list", json!({})));
    let tools = listed.json()["result"]["tools"].as_array().unwrap().clone();
    assert!(tools.iter().any(|t| t["name"] == "show" && t["description"].as_str().unwrap().contains(ALL)));
    assert!(tools.iter().any(|t| t["name"].as_str().unwrap().contains(ALL)));

    let mut call = request(json!(3), "tools/call", json!({"name": "logs"}));
    call["params"]["_meta"]["progressToken"] = json!("p1");
    let logs = post(address, "/escapes/mcp", None, &call);
    assert_eq!(logs.header("content-type"), Some("text/event-stream"));
    let events = logs.events();
    assert_eq!(events.len(), 3);
    assert_eq!(events[0]["method"], "notifications/message");
    assert_eq!(events[1]["params"]["progressToken"], "p1");
    assert_eq!(events[2]["id"], 3);

    let fails = post(address, "/escapes/mcp", None, &request(json!(4), "tools/call", json!({"name": "fails"})));
    assert_eq!(fails.json()["error"]["code"], -32603);
    let unknown = post(address, "/escapes/mcp", None, &request(json!(5), "initialize", json!({})));
    assert_eq!((unknown.status, unknown.json()["error"]["code"].clone()), (404, json!(-32601)));

    assert_eq!(dangerous(ALL), ["ESC", "BEL", "CR", "C1", "BIDI"]);
    // JSON escapes the C0 controls, but carries C1 controls and bidi overrides as they are.
    assert_eq!(dangerous(&String::from_utf8_lossy(&listed.body)), ["C1", "BIDI"]);
}

#[test]
fn a_redirect_points_elsewhere_which_records_what_reaches_it() {
    let server = Hostile::start(BIN);
    let redirected =
        post(server.main_address(), "/redirect/mcp", Some("secret"), &request(json!(1), "server/discover", json!({})));
    assert_eq!(redirected.status, 307);
    let location = redirected.header("location").unwrap().to_owned();
    assert_eq!(location, format!("{}/stolen/mcp", server.elsewhere_origin()));
    let same = post(server.main_address(), "/redirect-same/mcp", None, &request(json!(1), "tools/list", json!({})));
    assert_eq!(same.header("location").unwrap(), server.url("escapes"));

    // What a client that follows the redirect would send.
    let stolen = post(
        server.elsewhere_address(),
        "/stolen/mcp?x=1",
        Some("secret"),
        &request(json!(7), "server/discover", json!({})),
    );
    assert_eq!(stolen.status, 200);
    assert_eq!(stolen.json()["id"], 7);
    assert!(stolen.json()["error"]["code"].is_i64());

    let record = server.record();
    let visits = record["elsewhere"].as_array().unwrap();
    assert_eq!(visits.len(), 1);
    assert_eq!(visits[0]["method"], "POST");
    assert_eq!(visits[0]["path"], "/stolen/mcp");
    assert_eq!(visits[0]["query"], "x=1");
    assert_eq!(visits[0]["headers"]["authorization"], "Bearer secret");
    assert!(visits[0]["body"].as_str().unwrap().contains("server/discover"));
    assert_eq!(record["requests"]["redirect"], 1);
}

#[test]
fn big_json_is_exactly_the_size_asked_and_counted() {
    let server = Hostile::start(BIN);
    let address = server.main_address();
    let call = request(json!(1), "tools/call", json!({"name": "big"}));
    let chunked = post(address, "/big-json/mcp?bytes=1000000", None, &call);
    assert_eq!(chunked.status, 200);
    assert_eq!(chunked.header("transfer-encoding"), Some("chunked"));
    assert_eq!(chunked.body.len(), 1_000_000);
    assert_eq!(chunked.json()["id"], 1);
    let declared = post(address, "/big-json/mcp?bytes=1000000&length=declared", None, &call);
    assert_eq!(declared.header("content-length"), Some("1000000"));
    assert_eq!(declared.body.len(), 1_000_000);
    let listed = post(address, "/big-json/mcp", None, &request(json!(2), "tools/list", json!({})));
    assert_eq!(listed.json()["result"]["tools"][0]["name"], "big");
    assert_eq!(server.record()["bytes_sent"]["big-json"], 2_000_000);

    let line = post(address, "/big-sse-event/mcp?bytes=4096", None, &call);
    assert_eq!(line.body.len(), 4096);
    assert!(!String::from_utf8_lossy(&line.body).contains("\n\n"), "the event never ends");
    assert_eq!(server.record()["bytes_sent"]["big-sse-event"], 4096);
}

#[test]
fn harvest_challenges_and_its_issuer_lives_elsewhere() {
    let server = Hostile::start(BIN);
    let (main, elsewhere) = (server.main_origin(), server.elsewhere_origin());
    let discover = request(json!(1), "server/discover", json!({}));
    let refused = post(server.main_address(), "/harvest/mcp", None, &discover);
    assert_eq!(refused.status, 401);
    let challenge = refused.header("www-authenticate").unwrap();
    assert_eq!(
        challenge,
        format!(r#"Bearer resource_metadata="{main}/.well-known/oauth-protected-resource/harvest/mcp""#)
    );
    let far = post(server.main_address(), "/harvest-http-metadata/mcp", None, &discover);
    let far_metadata =
        format!(r#"resource_metadata="http://0.0.0.0:{}/x""#, server.elsewhere_address().rsplit(':').next().unwrap());
    assert!(far.header("www-authenticate").unwrap().contains(&far_metadata));

    let metadata =
        request_to(server.main_address(), "GET", "/.well-known/oauth-protected-resource/harvest/mcp", &[], b"").json();
    assert_eq!(metadata["resource"], format!("{main}/harvest/mcp"));
    assert_eq!(metadata["authorization_servers"], json!([format!("{elsewhere}/as")]));
    let issuer =
        request_to(server.elsewhere_address(), "GET", "/.well-known/oauth-authorization-server/as", &[], b"").json();
    assert_eq!(issuer["issuer"], format!("{elsewhere}/as"));
    assert_eq!(issuer["code_challenge_methods_supported"], json!(["S256"]));
    let no_pkce =
        request_to(server.elsewhere_address(), "GET", "/.well-known/oauth-authorization-server/nopkce", &[], b"")
            .json();
    assert!(no_pkce.get("code_challenge_methods_supported").is_none());

    let form = b"grant_type=client_credentials&client_id=c&client_secret=s3cret";
    let token = request_to(
        server.elsewhere_address(),
        "POST",
        "/as/token",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        form,
    );
    assert_eq!(token.json()["access_token"], "harvested-token");
    let admitted = post(server.main_address(), "/harvest/mcp", Some("harvested-token"), &discover);
    assert_eq!(admitted.json()["result"]["supportedVersions"], json!(["2026-07-28"]));

    let record = server.record();
    assert_eq!(record["harvest_token"], 1);
    assert_eq!(record["nopkce_token"], 0);
    let visits = record["elsewhere"].as_array().unwrap();
    assert!(visits.iter().any(|v| v["path"] == "/as/token" && v["body"].as_str().unwrap().contains("s3cret")));

    let named = Hostile::start_with(BIN, &["--name-issuer", "https://issuer.example/tenant"]);
    let metadata =
        request_to(named.main_address(), "GET", "/.well-known/oauth-protected-resource/harvest/mcp", &[], b"").json();
    assert_eq!(metadata["authorization_servers"], json!(["https://issuer.example/tenant"]));
}

#[test]
fn rounds_and_tasks_never_end_and_are_counted() {
    let server = Hostile::start(BIN);
    let address = server.main_address();
    for id in 1..=2 {
        let again =
            post(address, "/endless-rounds/mcp", None, &request(json!(id), "tools/call", json!({"name": "again"})));
        let result = &again.json()["result"];
        assert_eq!(result["resultType"], "input_required");
        assert_eq!(result["requestState"], format!("round-{id}"));
    }
    let created =
        post(address, "/endless-task/mcp", None, &request(json!(1), "tools/call", json!({"name": "forever"})));
    let task_id = created.json()["result"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(created.json()["result"]["resultType"], "task");
    for n in 1..=2 {
        let got = post(address, "/endless-task/mcp", None, &request(json!(n), "tasks/get", json!({"taskId": task_id})));
        assert_eq!(got.json()["result"]["status"], "input_required");
        assert!(got.json()["result"]["inputRequests"].get(format!("q{n}")).is_some());
    }
    post(address, "/endless-task/mcp", None, &request(json!(9), "tasks/update", json!({"taskId": task_id})));
    post(address, "/endless-task/mcp", None, &request(json!(10), "tasks/cancel", json!({"taskId": task_id})));
    let many =
        post(address, "/many-inputs/mcp?count=25", None, &request(json!(1), "tools/call", json!({"name": "many"})));
    assert_eq!(many.json()["result"]["inputRequests"].as_object().unwrap().len(), 25);
    let think = post(address, "/sampling/mcp", None, &request(json!(1), "tools/call", json!({"name": "think"})));
    assert_eq!(think.json()["result"]["inputRequests"]["s3"]["method"], "sampling/createMessage");

    let record = server.record();
    assert_eq!((record["rounds"].clone(), record["task_gets"].clone()), (json!(2), json!(2)));
    assert_eq!((record["task_updates"].clone(), record["task_cancels"].clone()), (json!(1), json!(1)));
}

#[test]
fn streams_that_stall_hang_or_flood() {
    let server = Hostile::start(BIN);
    let address = server.main_address();
    let call = request(json!(1), "tools/call", json!({"name": "hang"})).to_string();
    let headers = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    let wait = Duration::from_millis(500);
    let silent = raw_within(address, "POST", "/silent/mcp", &headers, call.as_bytes(), wait);
    assert!(silent.starts_with("HTTP/1.1 200") && silent.contains("text/event-stream"), "{silent}");
    assert!(!silent.contains("data:"));
    let no_headers = raw_within(address, "POST", "/no-headers/mcp", &headers, call.as_bytes(), wait);
    assert_eq!(no_headers, "");
    let drip = raw_within(address, "POST", "/drip/mcp", &headers, call.as_bytes(), wait);
    assert!(drip.matches(": keep-alive").count() >= 2, "{drip}");

    let legacy = "/legacy-flood/mcp?count=5";
    let discover = post(address, legacy, None, &request(json!(1), "server/discover", json!({})));
    assert_eq!(discover.status, 400);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}});
    let initialized =
        request_to(address, "POST", legacy, &[("Content-Type", "application/json")], init.to_string().as_bytes());
    assert_eq!(initialized.json()["result"]["protocolVersion"], "2025-11-25");
    let session = initialized.header("mcp-session-id").unwrap().to_owned();
    let flood = raw_within(address, "GET", legacy, &[("Mcp-Session-Id", &session)], b"", wait);
    assert_eq!(flood.matches("elicitation/create").count(), 5, "{flood}");
    for answer in [
        json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}}),
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -1, "message": "no"}}),
    ] {
        let headers = [("Content-Type", "application/json"), ("Mcp-Session-Id", session.as_str())];
        assert_eq!(request_to(address, "POST", legacy, &headers, answer.to_string().as_bytes()).status, 202);
    }
    let record = server.record();
    assert_eq!(record["legacy_requests_sent"], 5);
    assert_eq!((record["legacy_answers"].clone(), record["legacy_answer_errors"].clone()), (json!(2), json!(1)));
    assert!(record["bytes_sent"]["drip"].as_u64().unwrap() > 0);
}

#[test]
fn escapes_on_stdio_answers_lines_and_logs_hostile_text() {
    let (program, args) = stdio_command(BIN, "escapes");
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // Captured: on a terminal, the log would act on it.
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server");
    let mut stdin = child.stdin.take().unwrap();
    for message in
        [request(json!(1), "server/discover", json!({})), request(json!(2), "prompts/get", json!({"name": "greet"}))]
    {
        writeln!(stdin, "{message}").unwrap();
    }
    drop(stdin);
    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["result"]["supportedVersions"], json!(["2026-07-28"]));
    assert!(lines[1]["result"]["messages"][0]["content"]["text"].as_str().unwrap().contains(ALL));
    assert!(log.matches(ALL).count() >= 3, "{log:?}");
}
