//! Hostile clients, over stdio and Streamable HTTP: malformed bytes, huge and deep messages,
//! ids of every type, control characters, wrong types, batches, a thousand idle connections,
//! slow-drip bodies and bursts of concurrent calls. Each gets its exact error or refusal, the
//! server keeps answering, and its memory stays bounded (the figures are printed).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::*;
use mcp_rounds_tests::http::{HttpProcess, HttpResponse, mcp_headers};
use mcp_rounds_tests::{meta, request};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

/// A normal call must be answered within this, whatever else the server is put through.
const BOUND: Duration = Duration::from_secs(10);

/// What one hostile message must get.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    /// The id of the answer (`null` when the id could not be read).
    id: Value,
    /// The error code, or `None` for a result.
    code: Option<i64>,
    /// A part of the error's message.
    message: &'static str,
    /// The HTTP status.
    status: u16,
    /// Over HTTP, the code and message instead, where HTTP's own rules come first.
    http: Option<(i64, &'static str)>,
}

fn case(
    name: &'static str,
    bytes: impl Into<Vec<u8>>,
    id: Value,
    code: i64,
    message: &'static str,
    status: u16,
) -> Case {
    Case { name, bytes: bytes.into(), id, code: Some(code), message, status, http: None }
}

fn ok(name: &'static str, message: Value) -> Case {
    let id = message["id"].clone();
    Case { name, bytes: message.to_string().into_bytes(), id, code: None, message: "", status: 200, http: None }
}

/// A `tools/list` with the id written as `id`.
fn list_with_id(id: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{}}}}}"#, meta(json!({})))
        .into_bytes()
}

fn cases(workspace: &str) -> Vec<Case> {
    let list = tool(1, "notes_list", json!({"workspaceUri": workspace}), json!({}));
    let mut deep = list.clone();
    deep["id"] = json!(2);
    let deep = deep.to_string().replacen(
        r#""arguments":{"#,
        &format!(r#""arguments":{{"x":{}{},"#, "[".repeat(100_000), "]".repeat(100_000)),
        1,
    );
    let mut utf8 = br#"{"jsonrpc":"2.0","id":3,"method":"ping","x":""#.to_vec();
    utf8.extend_from_slice(b"\xff\xfe\"}");
    let big = format!(r#"{{"jsonrpc":"2.0","id":"big","method":"ping","params":{{"x":"{}"}}}}"#, "a".repeat(20 << 20));
    let mut wrong_arguments = list.clone();
    wrong_arguments["id"] = json!(9);
    wrong_arguments["params"]["arguments"] = json!("x");
    let mut wrong_name = list.clone();
    wrong_name["id"] = json!(10);
    wrong_name["params"]["name"] = json!(5);
    let mut long_uri = request(json!(11), "resources/read", json!({}));
    long_uri["params"]["uri"] = json!(format!("notes://{}/x", "a".repeat(3 << 20)));
    vec![
        case("invalid UTF-8", utf8, Value::Null, -32700, "not valid JSON", 400),
        case("20 MB", big, json!("big"), -32600, "too large", 413),
        case("nested 100,000 deep", deep, json!(2), -32602, "recursion limit", 400),
        case("duplicate keys", list_with_id("4,\"id\":5"), Value::Null, -32600, "not a valid JSON-RPC request", 400),
        case("a batch", format!("[{list}]"), Value::Null, -32600, "Batches are not supported", 400),
        case("an array for the request", r#"["2.0",6,"ping",{}]"#, Value::Null, -32600, "Batches", 400),
        case("params an array", r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":[]}"#, json!(7), -32602, "", 400),
        case("a null id", list_with_id("null"), Value::Null, -32600, "must be a string or a number", 400),
        case("an object id", list_with_id("{}"), Value::Null, -32600, "must be a string or a number", 400),
        case("a boolean id", list_with_id("true"), Value::Null, -32600, "must be a string or a number", 400),
        case(
            "an id beyond 64 bits",
            list_with_id("123456789012345678901234567890"),
            Value::Null,
            -32600,
            "too large",
            400,
        ),
        case("an id out of range", list_with_id("1e400"), Value::Null, -32600, "must be a string or a number", 400),
        ok("a string id", serde_json::from_slice(&list_with_id("\"s\"")).unwrap()),
        ok("a negative id", serde_json::from_slice(&list_with_id("-8")).unwrap()),
        ok("a fractional id", serde_json::from_slice(&list_with_id("1.5")).unwrap()),
        ok("the largest id", serde_json::from_slice(&list_with_id("18446744073709551615")).unwrap()),
        ok("a 100 kB id", serde_json::from_slice(&list_with_id(&format!("\"{}\"", "i".repeat(100_000)))).unwrap()),
        case("arguments a string", wrong_arguments.to_string(), json!(9), -32602, "invalid type", 400),
        case("a number for a name", wrong_name.to_string(), json!(10), -32602, "invalid type", 400),
        Case {
            // No header holds it, and resources/read must name its URI in one.
            http: Some((-32020, "Missing Mcp-Name header")),
            ..case("a 3 MB URI", long_uri.to_string(), json!(11), -32602, "Resource not found", 400)
        },
    ]
}

/// The peak and current resident memory of process `pid`, in MiB.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn check(case: &Case, answer: &Value, id: &Value) {
    assert_eq!(answer["id"], *id, "{}: {answer}", case.name);
    match case.code {
        Some(code) => {
            assert_eq!(answer["error"]["code"], code, "{}: {answer}", case.name);
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains(case.message), "{}: {message}", case.name);
        }
        None => assert!(answer.get("result").is_some(), "{}: {answer}", case.name),
    }
}

/// A note whose title and body carry NUL and CR comes back exactly as it was sent.
fn control_characters_round_trip(call: &mut dyn FnMut(Value) -> Value, workspace: &str) {
    let title = "nul\u{0}and\rcr";
    let body = "line\r\nwith\u{0}nul and a lone\rcr";
    let created =
        call(tool(20, "notes_create", json!({"workspaceUri": workspace, "title": title, "body": body}), json!({})));
    let uri = created["result"]["structuredContent"]["uri"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    assert_eq!(created["result"]["structuredContent"]["title"], title);
    let read = call(request(json!(21), "resources/read", json!({"uri": uri})));
    let text = read["result"]["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{read}"));
    assert!(text.contains(body), "{text:?}");
}

#[test]
fn over_stdio_every_hostile_message_gets_its_exact_error_and_the_server_keeps_answering() {
    let data = DataDir::seeded("hostile-stdio");
    let workspace = data.workspace_uri();
    let mut server = data.stdio();
    for case in cases(&workspace) {
        server.send_raw(&case.bytes);
        check(&case, &server.recv(), &case.id);
    }
    control_characters_round_trip(&mut |message| server.call(&message), &workspace);

    // 200 calls at once, each answered once.
    for id in 0..200 {
        server.send(&tool(1000 + id, "notes_list", json!({"workspaceUri": workspace}), json!({})));
    }
    let mut answered: Vec<i64> = (0..200).map(|_| server.recv()["id"].as_i64().unwrap()).collect();
    answered.sort();
    assert_eq!(answered, (1000..1200).collect::<Vec<_>>());

    let listed = server.call(&tool(30, "notes_list", json!({"workspaceUri": workspace}), json!({})));
    assert!(listed["result"]["structuredContent"]["notes"].is_array(), "{listed}");
    let (peak, now) = memory(server.pid());
    eprintln!("stdio: peak resident memory {peak} MiB, now {now} MiB, after a 20 MB line and 200 calls at once");
    assert!(peak < 128, "a 20 MB line is dropped as it is read, not held: peak {peak} MiB");
}

/// The head of a POST to `/mcp` with a body of `length` bytes, `headers` and `extra` lines.
fn head(address: &str, length: usize, headers: &[(&str, String)], extra: &str) -> String {
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Length: {length}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head + extra + "\r\n"
}

/// Sends `body` to `/mcp` as a client would (headers from the message when it is JSON), from a
/// thread of its own so that a server refusing it early is still heard, and reads the answer.
fn post_raw(address: &str, token: &str, body: &[u8]) -> HttpResponse {
    // What a client that wrote the body would put in the headers; for bodies no parser takes
    // (nested too deep), read off the text.
    let message: Value = serde_json::from_slice(body).unwrap_or_else(|_| {
        let text = String::from_utf8_lossy(body);
        let member = |key: &str| {
            let start = text.find(&format!(r#""{key}":""#))? + key.len() + 4;
            Some(text[start..start + text[start..].find('"')?].to_owned())
        };
        json!({"method": member("method"), "params": {"name": member("name")}})
    });
    let message = if message.is_object() { message } else { json!({"method": "tools/list"}) };
    let mut headers = mcp_headers(&message, Some(token));
    headers.retain(|(name, _)| *name != "Mcp-Name" || message["method"] != "resources/read" || body.len() < 8192);
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(BOUND * 3)).unwrap();
    let head = head(address, body.len(), &headers, "Connection: close\r\n");
    let mut writer = stream.try_clone().unwrap();
    let body = body.to_vec();
    let sending = std::thread::spawn(move || {
        // The server may answer and close before the whole body is sent.
        let _ = writer.write_all(head.as_bytes()).and_then(|()| writer.write_all(&body));
    });
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    sending.join().unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| panic!("no answer: {raw:?}"));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect::<Vec<_>>();
    let mut body = raw[split + 4..].to_vec();
    if headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked")) {
        body = dechunk(&body);
    }
    HttpResponse { status, headers, body }
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = raw.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(std::str::from_utf8(&raw[..line_end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&raw[line_end + 2..line_end + 2 + size]);
        raw = &raw[line_end + 2 + size + 2..];
    }
}

#[test]
fn over_http_every_hostile_body_gets_its_exact_status_and_error() {
    let data = DataDir::seeded("hostile-http");
    let workspace = data.workspace_uri();
    let token = data.token();
    let server = HttpProcess::spawn(BIN, &["--data", data.arg()]);
    for case in cases(&workspace) {
        let response = post_raw(&server.address, &token, &case.bytes);
        assert_eq!(response.status, case.status, "{}: {}", case.name, String::from_utf8_lossy(&response.body));
        // A body refused by its length is not read: its id is unknown.
        let id = if response.status == 413 { Value::Null } else { case.id.clone() };
        let case = match case.http {
            Some((code, message)) => Case { code: Some(code), message, ..case },
            None => case,
        };
        check(&case, &response.json(), &id);
    }
    let mut call = |message: Value| post_raw(&server.address, &token, message.to_string().as_bytes()).json();
    control_characters_round_trip(&mut call, &workspace);
    let (peak, now) = memory(server.pid());
    eprintln!("HTTP: peak resident memory {peak} MiB, now {now} MiB, after a 20 MB body");
    assert!(peak < 128, "a 20 MB body is refused by its length, not read: peak {peak} MiB");
}

/// A request whose body arrives one byte at a time, never finished until the test says so.
struct Slow {
    stream: TcpStream,
    body: Vec<u8>,
    sent: usize,
}

impl Slow {
    fn open(address: &str, token: &str, message: &Value) -> Slow {
        let body = message.to_string().into_bytes();
        let mut stream = TcpStream::connect(address).unwrap();
        stream.write_all(head(address, body.len(), &mcp_headers(message, Some(token)), "").as_bytes()).unwrap();
        Slow { stream, body, sent: 0 }
    }

    fn drip(&mut self) {
        if self.sent + 1 < self.body.len() {
            self.stream.write_all(&self.body[self.sent..self.sent + 1]).unwrap();
            self.sent += 1;
        }
    }

    fn finish(mut self) -> u16 {
        self.stream.write_all(&self.body[self.sent..]).unwrap();
        self.stream.set_read_timeout(Some(BOUND)).unwrap();
        let mut status = String::new();
        BufReader::new(&self.stream).read_line(&mut status).unwrap();
        status.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

#[test]
fn idle_and_slow_connections_do_not_keep_normal_calls_from_being_answered() {
    let data = DataDir::seeded("hostile-idle");
    let workspace = data.workspace_uri();
    let token = data.token();
    let server = HttpProcess::spawn(BIN, &["--data", data.arg()]);
    let list = tool(1, "notes_list", json!({"workspaceUri": workspace}), json!({}));

    let idle: Vec<TcpStream> = (0..1000).map(|_| TcpStream::connect(&server.address).unwrap()).collect();
    let mut slow: Vec<Slow> = (0..20).map(|_| Slow::open(&server.address, &token, &list)).collect();
    // Each normal call is answered within the bound while the slow bodies creep on: a byte
    // more of each after every answer.
    for _ in 0..50 {
        let answer = post_raw(&server.address, &token, list.to_string().as_bytes());
        assert_eq!(answer.status, 200);
        assert!(answer.json()["result"]["structuredContent"]["notes"].is_array());
        slow.iter_mut().for_each(Slow::drip);
    }
    let (peak, now) = memory(server.pid());
    eprintln!("HTTP: peak resident memory {peak} MiB, now {now} MiB, holding 1,000 idle and 20 slow connections");
    assert!(peak < 128, "peak {peak} MiB");
    // The slow clients were kept waiting, not dropped: each is answered once its body is in.
    for slow in slow {
        assert_eq!(slow.finish(), 200);
    }
    drop(idle);

    // 200 calls at once, each answered.
    let answers: Vec<u16> = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..200)
            .map(|_| scope.spawn(|| post_raw(&server.address, &token, list.to_string().as_bytes()).status))
            .collect();
        calls.into_iter().map(|call| call.join().unwrap()).collect()
    });
    assert!(answers.iter().all(|status| *status == 200), "{answers:?}");
}
