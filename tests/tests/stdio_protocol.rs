//! Raw JSON-RPC over stdio against a server built with the framework: every envelope and
//! dispatch error with its exact code and data, notifications, limits, cancellation, shutdown.

use mcp_rounds_tests::stdio::StdioProcess;
use mcp_rounds_tests::{meta, request};
use serde_json::{Value, json};

fn fixture() -> StdioProcess {
    StdioProcess::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[])
}

fn error_of(response: &Value) -> (i64, &Value) {
    let error = response.get("error").unwrap_or_else(|| panic!("expected an error, got {response}"));
    (error["code"].as_i64().expect("integer code"), error.get("data").unwrap_or(&Value::Null))
}

fn assert_error(response: &Value, id: Value, code: i64) {
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(response["id"], id, "error must echo the request id: {response}");
    assert_eq!(error_of(response).0, code, "{response}");
    assert!(response["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(response.get("result").is_none());
}

fn with_meta(id: Value, method: &str, meta_value: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": meta_value}})
}

#[test]
fn discover_answers_exactly() {
    let mut server = fixture();
    let response = server.call(&request(json!("d-1"), "server/discover", json!({})));
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": "d-1", "result": {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {
                "logging": {},
                "prompts": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "tools": {"listChanged": true}
            },
            "instructions": "Tools for testing mcp-rounds.",
            "ttlMs": 300000,
            "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fixture-server", "version": "0.1.0"}}
        }})
    );
}

#[test]
fn missing_or_malformed_envelope_is_invalid_params() {
    let mut server = fixture();
    let no_params = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"});
    let response = server.call(&no_params);
    assert_error(&response, json!(1), -32602);

    let no_meta = json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}});
    let response = server.call(&no_meta);
    assert_error(&response, json!(2), -32602);
    assert_eq!(error_of(&response).1["field"], "_meta");

    let response =
        server.call(&with_meta(json!(3), "server/discover", json!({"io.modelcontextprotocol/clientCapabilities": {}})));
    assert_error(&response, json!(3), -32602);
    assert_eq!(error_of(&response).1["field"], "_meta.io.modelcontextprotocol/protocolVersion");

    let response = server.call(&with_meta(
        json!(4),
        "tools/list",
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
    ));
    assert_error(&response, json!(4), -32602);
    assert_eq!(error_of(&response).1["field"], "_meta.io.modelcontextprotocol/clientCapabilities");

    for version in [json!(20260728), json!(null), json!(["2026-07-28"]), json!({"v": 1})] {
        let response = server.call(&with_meta(
            json!("v"),
            "server/discover",
            json!({"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}}),
        ));
        assert_error(&response, json!("v"), -32602);
        assert_eq!(error_of(&response).1["field"], "_meta.io.modelcontextprotocol/protocolVersion");
    }

    let response = server.call(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": [1, 2]}));
    assert_error(&response, json!(5), -32602);
}

#[test]
fn an_array_is_never_read_where_the_schema_says_object() {
    let mut server = fixture();
    // A request written as an array, member by member: not a request at all.
    let positional = json!(["2.0", 78, "tools/call", {"name": "echo", "arguments": {"text": "ran"}}]);
    let response = server.call(&positional);
    assert_error(&response, Value::Null, -32600);
    // A capability declared with an array is not declared: the envelope is refused.
    for capabilities in [json!({"elicitation": []}), json!({"sampling": [{}]}), json!([])] {
        let mut meta = meta(json!({}));
        meta["io.modelcontextprotocol/clientCapabilities"] = capabilities.clone();
        let response = server.call(&with_meta(json!(6), "server/discover", meta));
        assert_error(&response, json!(6), -32602);
        assert_eq!(
            error_of(&response).1["field"],
            "_meta.io.modelcontextprotocol/clientCapabilities",
            "{capabilities}"
        );
    }
    let mut meta = meta(json!({}));
    meta["io.modelcontextprotocol/clientInfo"] = json!(["client", "1.0"]);
    let response = server.call(&with_meta(json!(7), "server/discover", meta));
    assert_error(&response, json!(7), -32602);
    // And a server still answering.
    let echo = request(json!(8), "tools/call", json!({"name": "echo", "arguments": {"text": "still here"}}));
    assert_eq!(server.call(&echo)["result"]["content"][0]["text"], "still here");
}

#[test]
fn unsupported_version_is_32022_with_exact_data() {
    let mut server = fixture();
    for requested in ["1900-01-01", "2025-11-25", ""] {
        let response = server.call(&with_meta(
            json!(9),
            "tools/list",
            json!({"io.modelcontextprotocol/protocolVersion": requested, "io.modelcontextprotocol/clientCapabilities": {}}),
        ));
        assert_error(&response, json!(9), -32022);
        assert_eq!(error_of(&response).1, &json!({"supported": ["2026-07-28"], "requested": requested}));
    }
}

#[test]
fn removed_unknown_and_unoffered_methods_are_32601() {
    let mut server = fixture();
    for (i, method) in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "no/such/method",
        "completion/complete",
    ]
    .into_iter()
    .enumerate()
    {
        let response = server.call(&request(json!(i), method, json!({})));
        assert_error(&response, json!(i), -32601);
        assert_eq!(error_of(&response).1["method"], method);
    }
    // A server without resources or prompts does not serve their methods.
    let mut tools_only = StdioProcess::spawn(env!("CARGO_BIN_EXE_fixture-server"), &["--only-tools"]);
    let discover = tools_only.call(&request(json!("d"), "server/discover", json!({})));
    assert_eq!(discover["result"]["capabilities"], json!({"logging": {}, "tools": {"listChanged": true}}));
    for (i, method) in ["resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get"]
        .into_iter()
        .enumerate()
    {
        let response = tools_only.call(&request(json!(i), method, json!({})));
        assert_error(&response, json!(i), -32601);
        assert_eq!(error_of(&response).1["method"], method);
        assert!(error_of(&response).1["reason"].as_str().unwrap().contains("does not offer"));
    }
    // With legacy sessions turned off, a legacy client learns which versions to use.
    let mut modern_only = StdioProcess::spawn(env!("CARGO_BIN_EXE_fixture-server"), &["--modern-only"]);
    let response = modern_only.call(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}}));
    assert_error(&response, json!("init"), -32601);
    assert_eq!(error_of(&response).1["supported"], json!(["2026-07-28"]));
    assert!(response["error"]["message"].as_str().unwrap().contains("2026-07-28"));
}

#[test]
fn envelope_is_checked_before_the_method() {
    let mut server = fixture();
    let response = server.call(&json!({"jsonrpc": "2.0", "id": 1, "method": "no/such/method", "params": {}}));
    assert_error(&response, json!(1), -32602);
    let response = server.call(&with_meta(
        json!(2),
        "ping",
        json!({"io.modelcontextprotocol/protocolVersion": "1999-01-01", "io.modelcontextprotocol/clientCapabilities": {}}),
    ));
    assert_error(&response, json!(2), -32022);
}

#[test]
fn malformed_messages_get_jsonrpc_errors_and_the_server_goes_on() {
    let mut server = fixture();
    server.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 1, ");
    assert_error(&server.recv(), Value::Null, -32700);
    server.send_raw(b"\xff\xfe not utf8");
    assert_error(&server.recv(), Value::Null, -32700);
    server.send_raw(br#"[{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}]"#);
    assert_error(&server.recv(), Value::Null, -32600);
    server.send_raw(b"17");
    assert_error(&server.recv(), Value::Null, -32600);
    server.send(&json!({"jsonrpc": "1.0", "id": "x", "method": "server/discover", "params": {}}));
    assert_error(&server.recv(), json!("x"), -32600);
    server.send(&json!({"jsonrpc": "2.0", "id": "y", "method": 12}));
    assert_error(&server.recv(), json!("y"), -32600);
    server.send(&json!({"jsonrpc": "2.0", "id": null, "method": "server/discover"}));
    assert_error(&server.recv(), Value::Null, -32600);

    let response = server.call(&request(json!(2), "server/discover", json!({})));
    assert_eq!(response["id"], 2);
    assert_eq!(response["result"]["resultType"], "complete");
}

#[test]
fn ids_are_echoed_with_their_type() {
    let mut server = fixture();
    for id in [json!(0), json!(-5), json!(9007199254740993_u64), json!("abc"), json!(""), json!("1")] {
        let response = server.call(&request(id.clone(), "tools/list", json!({})));
        assert_eq!(response["id"], id);
        assert!(response.get("result").is_some());
    }
}

#[test]
fn a_notification_gets_no_answer_and_the_next_request_does() {
    let mut server = fixture();
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": 1}}));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}}));
    // Even a notification for a method that would fail as a request is never answered.
    server.send(&json!({"jsonrpc": "2.0", "method": "tools/call", "params": {}}));
    // Nor one whose params are not an object, whatever they are (an array is JSON-RPC's own
    // positional form).
    for params in [json!("garbage"), json!(7), json!([1, 2]), json!(null), json!([{"requestId": 1}])] {
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}));
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": params}));
    }
    let response = server.call(&request(json!(77), "tools/list", json!({})));
    assert_eq!(response["id"], 77, "the first line back must answer the request, not a notification");
    let (rest, status) = server.finish();
    assert!(rest.is_empty(), "nothing may answer a notification: {rest:?}");
    assert!(status.success());
}

#[test]
fn a_20_mb_line_is_refused_and_the_server_keeps_answering() {
    let mut server = fixture();
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}},"_meta":{}}}}}"#,
        "x".repeat(20 * 1024 * 1024),
        meta(json!({}))
    );
    server.send_raw(big.as_bytes());
    let response = server.recv();
    assert_error(&response, json!("huge"), -32600);
    assert_eq!(error_of(&response).1["maxMessageBytes"], 4 * 1024 * 1024);

    let response = server.call(&request(
        json!("after"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "still here"}}),
    ));
    assert_eq!(response["id"], "after");
    assert_eq!(response["result"]["content"][0]["text"], "still here");
}

#[test]
fn tools_list_and_call() {
    let mut server = fixture();
    let list = server.call(&request(json!(1), "tools/list", json!({})));
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, mcp_rounds_tests::FIXTURE_TOOLS, "sorted by name");
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["ttlMs"], 300000);
    assert_eq!(list["result"]["cacheScope"], "public");
    assert!(list["result"].get("nextCursor").is_none());

    let added = server.call(&request(json!(2), "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3.5}})));
    assert_eq!(added["result"]["resultType"], "complete");
    assert_eq!(added["result"]["structuredContent"], json!({"sum": 5.5}));
    assert_eq!(added["result"]["content"][0], json!({"type": "text", "text": "{\"sum\":5.5}"}));
    assert_eq!(added["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "fixture-server");

    let failed = server.call(&request(json!(3), "tools/call", json!({"name": "fail"})));
    assert_eq!(failed["result"]["isError"], true, "a tool failure is a result, not a protocol error");
    assert_eq!(failed["result"]["content"][0]["text"], "the frobnicator is offline");

    let unknown = server.call(&request(json!(4), "tools/call", json!({"name": "nope"})));
    assert_error(&unknown, json!(4), -32602);
    assert_eq!(error_of(&unknown).1["name"], "nope");

    let no_name = server.call(&request(json!(5), "tools/call", json!({"arguments": {}})));
    assert_error(&no_name, json!(5), -32602);
    let bad_args = server.call(&request(json!(6), "tools/call", json!({"name": "echo", "arguments": [1]})));
    assert_error(&bad_args, json!(6), -32602);

    let bad_cursor = server.call(&request(json!(7), "tools/list", json!({"cursor": "not-a-cursor"})));
    assert_error(&bad_cursor, json!(7), -32602);
    assert_eq!(error_of(&bad_cursor).1["field"], "cursor");
}

#[test]
fn missing_client_capability_is_32021_with_exact_data() {
    let mut server = fixture();
    for (i, caps) in [json!({}), json!({"elicitation": {"url": {}}}), json!({"sampling": {}})].into_iter().enumerate() {
        let mut msg = request(json!(i), "tools/call", json!({"name": "needs_form"}));
        msg["params"]["_meta"] = meta(caps);
        let response = server.call(&msg);
        assert_error(&response, json!(i), -32021);
        assert_eq!(error_of(&response).1, &json!({"requiredCapabilities": {"elicitation": {"form": {}}}}));
    }
    for caps in [json!({"elicitation": {}}), json!({"elicitation": {"form": {}}})] {
        let mut msg = request(json!("ok"), "tools/call", json!({"name": "needs_form"}));
        msg["params"]["_meta"] = meta(caps);
        assert_eq!(server.call(&msg)["result"]["content"][0]["text"], "form available");
    }
}

#[test]
fn a_panicking_handler_fails_its_request_only() {
    let mut server = fixture();
    let response = server.call(&request(json!("p"), "tools/call", json!({"name": "panic"})));
    assert_error(&response, json!("p"), -32603);
    assert_eq!(response["error"]["message"], "Internal error", "no internals leak to the client");
    let response = server.call(&request(json!("q"), "tools/list", json!({})));
    assert_eq!(response["id"], "q");
}

#[test]
fn requests_are_answered_as_they_complete() {
    let mut server = fixture();
    server.send(&request(json!("slow"), "tools/call", json!({"name": "sleep", "arguments": {"ms": 1500}})));
    server.send(&request(json!("fast"), "tools/list", json!({})));
    assert_eq!(server.recv()["id"], "fast");
    assert_eq!(server.recv()["id"], "slow");
}

#[test]
fn duplicate_in_flight_id_is_refused() {
    let mut server = fixture();
    server.send(&request(json!(1), "tools/call", json!({"name": "sleep", "arguments": {"ms": 1000}})));
    server.send(&request(json!(1), "tools/list", json!({})));
    let first = server.recv();
    assert_error(&first, json!(1), -32600);
    let second = server.recv();
    assert_eq!(second["result"]["content"][0]["text"], "slept 1000 ms");
}

#[test]
fn cancelled_requests_are_never_answered() {
    let mut server = fixture();
    // An hour: if the server still waited for this work at the end of input, it would not exit
    // (and finish() would fail) long before the work was done.
    server.send(&request(json!(5), "tools/call", json!({"name": "sleep", "arguments": {"ms": 3_600_000}})));
    // Lines are taken in order: the call is in flight when its cancellation is read.
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "user gave up"}}));
    let response = server.call(&request(json!(6), "tools/list", json!({})));
    assert_eq!(response["id"], 6);
    // The cancelled request frees its id at once: it can be reused.
    let reused = server.call(&request(json!(5), "tools/list", json!({})));
    assert!(reused.get("result").is_some(), "{reused}");
    // Work still in flight at the end of input is waited for; the cancelled work is not.
    server.send(&request(json!("last"), "tools/call", json!({"name": "sleep", "arguments": {"ms": 100}})));
    let (rest, status) = server.finish();
    let ids: Vec<&Value> = rest.iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, [&json!("last")], "a cancelled request must get nothing: {rest:?}");
    assert_eq!(rest[0]["result"]["content"][0]["text"], "slept 100 ms");
    assert!(status.success());
}

#[test]
fn end_of_input_lets_in_flight_requests_finish_then_exits_zero() {
    let mut server = fixture();
    server.send(&request(json!("last"), "tools/call", json!({"name": "sleep", "arguments": {"ms": 300}})));
    let (rest, status) = server.finish();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["id"], "last");
    assert_eq!(rest[0]["result"]["content"][0]["text"], "slept 300 ms");
    assert_eq!(status.code(), Some(0));
}
