//! Streamable HTTP against a server built with the framework: statuses, the standard headers,
//! authentication, Origin, the size limit, event streams and listen streams.

use std::thread;
use std::time::{Duration, Instant};

use mcp_rounds_tests::http::{EventStream, HttpProcess, HttpResponse, mcp_headers, request as http};
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::LINE_TIMEOUT;
use serde_json::{Value, json};

const TOKEN: &str = "correct-horse-battery-staple";

fn server() -> HttpProcess {
    let notes = std::env::temp_dir();
    HttpProcess::spawn(
        env!("CARGO_BIN_EXE_fixture-server"),
        &["--notes", notes.to_str().unwrap(), "--token", &format!("{TOKEN}=demo"), "--max-body", "65536"],
    )
}

/// The headers a conforming client sends with `message`.
fn headers_for(message: &Value) -> Vec<(&'static str, String)> {
    mcp_headers(message, Some(TOKEN))
}

fn post_with(address: &str, message: &Value, change: impl FnOnce(&mut Vec<(&'static str, String)>)) -> HttpResponse {
    let mut headers = headers_for(message);
    change(&mut headers);
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    http(address, "POST", &borrowed, message.to_string().as_bytes())
}

fn post(address: &str, message: &Value) -> HttpResponse {
    post_with(address, message, |_| {})
}

fn without(name: &'static str) -> impl FnOnce(&mut Vec<(&'static str, String)>) {
    move |headers| headers.retain(|(n, _)| *n != name)
}

fn replace(name: &'static str, value: &str) -> impl FnOnce(&mut Vec<(&'static str, String)>) {
    let value = value.to_owned();
    move |headers| {
        headers.retain(|(n, _)| *n != name);
        headers.push((name, value));
    }
}

fn code(response: &HttpResponse) -> i64 {
    response.json()["error"]["code"].as_i64().unwrap_or_else(|| panic!("no error in {:?}", response.json()))
}

#[test]
fn a_plain_request_gets_json() {
    let server = server();
    let response =
        post(&server.address, &request(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": "hi"}})));
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    let body = response.json();
    assert_eq!((body["id"].clone(), body["result"]["content"][0]["text"].clone()), (json!(1), json!("hi")));
}

#[test]
fn statuses_follow_the_revision() {
    let server = server();
    let a = &server.address;
    // A notification is accepted with 202 and nothing else.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let response = post(a, &note);
    assert_eq!(response.status, 202);
    assert!(response.body.is_empty());
    // Whatever its params: a notification is never answered.
    for params in [json!("garbage"), json!(7), json!([1, 2]), json!(null)] {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        let response = post(a, &note);
        assert_eq!(response.status, 202, "{params}");
        assert!(response.body.is_empty(), "{params}: {:?}", response.body);
    }

    // 404 for -32601, with the JSON-RPC body that tells it apart from a legacy 404.
    let response = post(a, &request(json!(2), "no/such/method", json!({})));
    assert_eq!((response.status, code(&response)), (404, -32601));
    assert_eq!(response.json()["id"], 2);

    // 400 for each of -32700, -32600, -32602, -32020, -32021 and -32022.
    let parse = http(
        a,
        "POST",
        &[("Authorization", &format!("Bearer {TOKEN}")), ("Content-Type", "application/json")],
        b"{nope",
    );
    assert_eq!((parse.status, code(&parse)), (400, -32700));
    let batch =
        http(a, "POST", &[("Authorization", &format!("Bearer {TOKEN}")), ("Content-Type", "application/json")], b"[]");
    assert_eq!((batch.status, code(&batch)), (400, -32600));
    let no_meta = json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {}});
    let response = post(a, &no_meta);
    assert_eq!((response.status, code(&response)), (400, -32602));
    let response = post_with(
        a,
        &request(json!(4), "tools/call", json!({"name": "echo", "arguments": {"text": "x"}})),
        replace("Mcp-Name", "add"),
    );
    assert_eq!((response.status, code(&response)), (400, -32020));
    assert_eq!(
        response.json()["error"]["message"],
        "Header mismatch: Mcp-Name header value 'add' does not match body value 'echo'"
    );
    let response = post(a, &request(json!(5), "tools/call", json!({"name": "needs_form"})));
    assert_eq!((response.status, code(&response)), (400, -32021));
    let mut old = request(json!(6), "tools/list", json!({}));
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    let response = post_with(a, &old, replace("MCP-Protocol-Version", "2025-11-25"));
    assert_eq!((response.status, code(&response)), (400, -32022));
    assert_eq!(response.json()["error"]["data"], json!({"supported": ["2026-07-28"], "requested": "2025-11-25"}));

    // GET and DELETE on the endpoint are not part of this revision.
    for method in ["GET", "DELETE"] {
        let response = http(a, method, &[("Authorization", &format!("Bearer {TOKEN}"))], b"");
        assert_eq!(response.status, 405, "{method}");
    }
}

#[test]
fn standard_headers_must_match_the_body() {
    let server = server();
    let a = &server.address;
    let call = request(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": "x"}}));
    for change in [without("MCP-Protocol-Version"), without("Mcp-Method"), without("Mcp-Name")] {
        let response = post_with(a, &call, change);
        assert_eq!((response.status, code(&response)), (400, -32020));
    }
    let response = post_with(a, &call, replace("Mcp-Method", "tools/list"));
    assert_eq!(code(&response), -32020);
    let response = post_with(a, &call, replace("MCP-Protocol-Version", "2030-01-01"));
    assert_eq!(code(&response), -32020, "header and body versions disagree: -32020 before -32022");
    // A name that is not plain header text travels base64-encoded.
    let unicode = request(json!(2), "resources/read", json!({"uri": "fixture://items/1"}));
    let response = post_with(a, &unicode, replace("Mcp-Name", "=?base64?Zml4dHVyZTovL2l0ZW1zLzE=?="));
    assert_eq!(response.status, 200, "{:?}", response.json());
    // A missing _meta is -32602 even with a valid header.
    let no_meta = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}});
    assert_eq!(code(&post(a, &no_meta)), -32602);
    // The name checked is the one that runs, whatever else the params hold: a member of
    // another method's shape (a `uri` that is not a string) does not hide it from the check.
    let odd =
        request(json!(4), "tools/call", json!({"name": "echo", "arguments": {"text": "x"}, "uri": 1, "taskId": {}}));
    let response = post_with(a, &odd, replace("Mcp-Name", "add"));
    assert_eq!((response.status, code(&response)), (400, -32020), "{:?}", response.json());
    let response = post(a, &odd);
    assert_eq!(response.status, 200, "{:?}", response.json());
}

#[test]
fn authentication_comes_before_everything() {
    let server = server();
    let a = &server.address;
    let discover = request(json!(1), "server/discover", json!({}));
    let response = post_with(a, &discover, without("Authorization"));
    assert_eq!(response.status, 401);
    assert_eq!(response.header("www-authenticate"), Some("Bearer realm=\"mcp\""));
    assert!(response.body.is_empty(), "no MCP processing without a principal");
    let response = post_with(a, &discover, replace("Authorization", "Bearer wrong-token"));
    assert_eq!(response.status, 401);
    assert_eq!(
        response.header("www-authenticate"),
        Some(
            "Bearer realm=\"mcp\", error=\"invalid_token\", error_description=\"The token is not one this server issued\""
        )
    );
    // Even garbage is refused with 401 before it is parsed.
    let response = http(a, "POST", &[], b"{nope");
    assert_eq!(response.status, 401);
}

#[test]
fn a_body_that_is_not_declared_json_is_refused_before_it_is_read() {
    let server = server();
    let a = &server.address;
    let call = request(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": "hi"}}));
    let form = "application/x-www-form-urlencoded";
    for declared in [Some("text/plain"), Some(form), Some("application/jsonx"), None] {
        let response = match declared {
            Some(declared) => post_with(a, &call, replace("Content-Type", declared)),
            None => post_with(a, &call, without("Content-Type")),
        };
        assert_eq!(response.status, 415, "{declared:?}");
        assert_eq!(code(&response), -32600, "{declared:?}");
        assert_eq!(response.json()["error"]["data"], json!({"contentType": declared}));
        assert!(response.json()["result"].is_null(), "nothing ran: {}", response.json());
    }
    // The media type's parameters and its case are free.
    for declared in ["application/json; charset=utf-8", "Application/JSON"] {
        let response = post_with(a, &call, replace("Content-Type", declared));
        assert_eq!(response.status, 200, "{declared}");
        assert_eq!(response.json()["result"]["content"][0]["text"], "hi");
    }
}

#[test]
fn foreign_origins_are_refused_and_local_ones_allowed() {
    let server = server();
    let a = &server.address;
    let discover = request(json!(1), "server/discover", json!({}));
    let response = post_with(a, &discover, replace("Origin", "https://evil.example"));
    assert_eq!(response.status, 403);
    for origin in ["http://localhost:3000", "http://127.0.0.1", "http://[::1]:8080"] {
        let response = post_with(a, &discover, replace("Origin", origin));
        assert_eq!(response.status, 200, "{origin}");
    }
}

#[test]
fn foreign_host_names_are_refused_on_a_loopback_server() {
    let server = server();
    let a = &server.address;
    let port = a.rsplit(':').next().unwrap();
    let discover = request(json!(1), "server/discover", json!({}));
    // A DNS-rebinding page reaches the local server under its own name, with no Origin at all
    // when the attacker's script is same-origin to it.
    for host in ["evil.example.com", "evil.example.com:80", "localhost.evil.example.com", "127.0.0.1.nip.io"] {
        let response = post_with(a, &discover, replace("Host", host));
        assert_eq!(response.status, 403, "{host}");
        assert_eq!(response.json()["error"]["message"], "Host not allowed");
    }
    let response = post_with(a, &discover, replace("Host", ""));
    assert_eq!(response.status, 403, "an empty Host is refused too");
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}"), "[::1]".to_owned(), "LOCALHOST".to_owned()] {
        let response = post_with(a, &discover, replace("Host", &host));
        assert_eq!(response.status, 200, "{host}");
    }
}

#[test]
fn bodies_over_the_limit_are_refused_and_the_server_goes_on() {
    let server = server();
    let a = &server.address;
    let huge = request(json!("big"), "tools/call", json!({"name": "echo", "arguments": {"text": "x".repeat(100_000)}}));
    let response = post(a, &huge);
    assert_eq!(response.status, 413);
    assert_eq!(code(&response), -32600);
    let response = post(a, &request(json!(2), "tools/call", json!({"name": "echo", "arguments": {"text": "ok"}})));
    assert_eq!(response.status, 200);
}

fn open(address: &str, message: &Value) -> EventStream {
    let headers = headers_for(message);
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    EventStream::open(address, &borrowed, message.to_string().as_bytes())
}

#[test]
fn progress_streams_then_answers() {
    let server = server();
    let mut call = request(json!("p"), "tools/call", json!({"name": "progress", "arguments": {"steps": 3}}));
    call["params"]["_meta"]["progressToken"] = json!(42);
    let mut stream = open(&server.address, &call);
    assert_eq!(stream.status, 200);
    assert!(stream.headers.iter().any(|(n, v)| n == "content-type" && v.starts_with("text/event-stream")));
    let mut events = Vec::new();
    while let Some(event) = stream.next_event() {
        events.push(event);
    }
    let progress: Vec<f64> = events
        .iter()
        .filter(|e| e["method"] == "notifications/progress")
        .map(|e| e["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    let last = events.last().unwrap();
    assert_eq!(last["id"], "p");
    assert_eq!(last["result"]["content"][0]["text"], "done in 3 steps");
}

fn listeners(address: &str) -> String {
    let response = post(address, &request(json!("count"), "tools/call", json!({"name": "listeners"})));
    response.json()["result"]["content"][0]["text"].as_str().unwrap().to_owned()
}

#[test]
fn concurrent_listens_get_their_own_events_and_closing_one_ends_it() {
    let server = server();
    let a = server.address.clone();
    let mut tools =
        open(&a, &request(json!("L1"), "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}})));
    let ack = tools.next_event().unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "L1");
    let mut resources =
        open(&a, &request(json!(2), "subscriptions/listen", json!({"notifications": {"resourcesListChanged": true}})));
    assert_eq!(resources.next_event().unwrap()["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2);

    let announce = |kind: &str| {
        post(&a, &request(json!(kind), "tools/call", json!({"name": "announce", "arguments": {"kind": kind}})));
    };
    announce("resources");
    announce("tools");
    let event = tools.next_event().unwrap();
    assert_eq!(event["method"], "notifications/tools/list_changed");
    assert_eq!(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "L1");
    let event = resources.next_event().unwrap();
    assert_eq!(event["method"], "notifications/resources/list_changed");
    assert_eq!(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2);

    assert_eq!(listeners(&a), "2");
    drop(tools);
    // Closing the stream is the cancel: the listen ends on the server. It ends there without a
    // word to anyone (its client is gone), so the count is the only sign, and it is asked for
    // until it drops; the deadline only bounds a failure.
    let deadline = Instant::now() + LINE_TIMEOUT;
    while listeners(&a) != "1" {
        assert!(Instant::now() < deadline, "the closed listen still runs: {} listeners", listeners(&a));
        thread::sleep(Duration::from_millis(20));
    }
    announce("tools");
    announce("resources");
    let event = resources.next_event().unwrap();
    assert_eq!(event["method"], "notifications/resources/list_changed", "the other listen saw no tools event");
}

/// A call of `find_servers`, whose arguments are declared with `x-mcp-header`.
fn find_servers(id: i64, arguments: Value) -> Value {
    request(json!(id), "tools/call", json!({"name": "find_servers", "arguments": arguments}))
}

/// `Mcp-Param-*` headers, by name.
type Params<'a> = &'a [(&'static str, &'a str)];

/// Adds `Mcp-Param-*` headers to what a client sends anyway.
fn with_params(params: &[(&'static str, &str)]) -> impl FnOnce(&mut Vec<(&'static str, String)>) {
    let params: Vec<(&'static str, String)> = params.iter().map(|(n, v)| (*n, (*v).to_owned())).collect();
    move |headers| headers.extend(params)
}

#[test]
fn param_headers_are_listed_and_agreeing_ones_pass() {
    let server = server();
    let a = &server.address;
    let list = post(a, &request(json!(0), "tools/list", json!({}))).json();
    let tool = list["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "find_servers").unwrap();
    let properties = &tool["inputSchema"]["properties"];
    assert_eq!(
        (&properties["region"]["x-mcp-header"], &properties["limit"]["x-mcp-header"]),
        (&json!("Region"), &json!("Limit"))
    );

    let zurich = " Zürich ";
    let encoded = "=?base64?IFrDvHJpY2gg?=";
    let cases: [(Value, Params<'_>, &str); 6] = [
        (json!({"region": "eu-west1"}), &[("Mcp-Param-Region", "eu-west1")], "eu-west1 None None"),
        // Header names ignore case.
        (json!({"region": "eu-west1"}), &[("mcp-param-region", "eu-west1")], "eu-west1 None None"),
        (json!({"region": zurich}), &[("Mcp-Param-Region", encoded)], " Zürich  None None"),
        // Without the closing `?=` the value is literal.
        (
            json!({"region": "=?base64?SGVsbG8="}),
            &[("Mcp-Param-Region", "=?base64?SGVsbG8=")],
            "=?base64?SGVsbG8= None None",
        ),
        (
            json!({"region": "r", "limit": 10, "verbose": true}),
            &[("Mcp-Param-Region", "r"), ("Mcp-Param-Limit", "10"), ("Mcp-Param-Verbose", "true")],
            "r Some(10) Some(true)",
        ),
        // A null argument is an absent one: no header.
        (json!({"region": "r", "limit": null}), &[("Mcp-Param-Region", "r"), ("Mcp-Param-Other", "x")], "r None None"),
    ];
    for (i, (arguments, params, text)) in cases.into_iter().enumerate() {
        let response = post_with(a, &find_servers(i as i64, arguments.clone()), with_params(params));
        assert_eq!(response.status, 200, "{arguments} {params:?}: {:?}", response.json());
        assert_eq!(response.json()["result"]["content"][0]["text"], text, "{arguments} {params:?}");
    }
}

#[test]
fn param_headers_that_disagree_are_400_and_32020() {
    let server = server();
    let a = &server.address;
    let cases: [(Value, Params<'_>); 8] = [
        // Missing although the body has a value.
        (json!({"region": "test-value"}), &[]),
        (json!({"region": "Hello"}), &[("Mcp-Param-Region", "hello")]),
        // Base64 without its padding, or with characters outside the alphabet.
        (json!({"region": "Hello"}), &[("Mcp-Param-Region", "=?base64?SGVsbG8?=")]),
        (json!({"region": "Hello"}), &[("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")]),
        (json!({"region": "r", "limit": 10}), &[("Mcp-Param-Region", "r"), ("Mcp-Param-Limit", "11")]),
        (json!({"region": "r", "verbose": true}), &[("Mcp-Param-Region", "r"), ("Mcp-Param-Verbose", "TRUE")]),
        // Present although the argument is absent.
        (json!({"region": "r"}), &[("Mcp-Param-Region", "r"), ("Mcp-Param-Limit", "5")]),
        (json!({"region": "r"}), &[("Mcp-Param-Region", "r"), ("Mcp-Param-Region", "r")]),
    ];
    for (i, (arguments, params)) in cases.into_iter().enumerate() {
        let response = post_with(a, &find_servers(i as i64, arguments.clone()), with_params(params));
        assert_eq!((response.status, code(&response)), (400, -32020), "{arguments} {params:?}");
        assert_eq!(response.json()["id"], i, "the id is echoed");
    }
    let response = post(a, &find_servers(99, json!({"region": "test-value"})));
    assert_eq!(response.json()["error"]["message"], "Missing Mcp-Param-Region header");
}

/// One request on `stream`, kept alive: the status and the body (the answer must say its
/// length).
fn exchange(stream: &mut std::io::BufReader<std::net::TcpStream>, address: &str, message: &Value) -> (u16, Vec<u8>) {
    use std::io::{BufRead, Read, Write};
    let body = message.to_string();
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Length: {}\r\n", body.len());
    for (name, value) in headers_for(message) {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let sent = stream.get_mut().write_all(format!("{head}\r\n{body}").as_bytes());
    sent.expect("send on the kept-alive connection");
    let mut line = String::new();
    stream.read_line(&mut line).expect("read the status line");
    let status = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut length = 0;
    loop {
        line.clear();
        stream.read_line(&mut line).expect("read a header");
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().expect("a length");
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).expect("read the body");
    (status, body)
}

#[test]
fn a_request_on_a_kept_alive_connection_as_the_server_stops_is_answered() {
    // A load balancer may have sent a request on a kept-alive connection just as the server
    // began to stop: the server no longer accepts connections, but drains the ones it has.
    let server = server();
    let address = server.address.clone();
    let connection = std::net::TcpStream::connect(&address).unwrap();
    connection.set_read_timeout(Some(LINE_TIMEOUT)).unwrap();
    let mut connection = std::io::BufReader::new(connection);
    let discover = request(json!(1), "server/discover", json!({}));
    assert_eq!(exchange(&mut connection, &address, &discover).0, 200);
    let interrupted = std::process::Command::new("kill").args(["-INT", &server.pid().to_string()]).status();
    assert!(interrupted.unwrap().success());
    // The stop is under way once no connection is accepted any more.
    let deadline = Instant::now() + LINE_TIMEOUT;
    while std::net::TcpStream::connect(&address).is_ok() {
        assert!(Instant::now() < deadline, "the server still accepts connections after SIGINT");
        thread::sleep(Duration::from_millis(5));
    }
    // The scenario, not a wait for something: the request arrives 200 ms into the stop, well
    // within the drain (1 s), and long after a server without one has closed idle connections.
    thread::sleep(Duration::from_millis(200));
    let again = request(json!(2), "server/discover", json!({}));
    let (status, body) = exchange(&mut connection, &address, &again);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap()["id"], 2);
}
