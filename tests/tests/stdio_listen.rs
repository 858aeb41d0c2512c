//! subscriptions/listen and progress over stdio: acknowledgements first, only requested kinds,
//! every event tagged with its own listen's id, several listens on one connection, graceful
//! ends.

use std::time::Duration;

use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};

fn fixture() -> StdioProcess {
    StdioProcess::spawn(env!("CARGO_BIN_EXE_fixture-server"), &["--notes", std::env::temp_dir().to_str().unwrap()])
}

fn listen(id: Value, filter: Value) -> Value {
    request(id, "subscriptions/listen", json!({ "notifications": filter }))
}

fn announce(id: i64, kind: &str, uri: Option<&str>) -> Value {
    let mut arguments = json!({ "kind": kind });
    if let Some(uri) = uri {
        arguments["uri"] = json!(uri);
    }
    request(json!(id), "tools/call", json!({"name": "announce", "arguments": arguments}))
}

/// Reads lines until the response with `id`, returning the notifications seen before it.
fn until_response(server: &mut StdioProcess, id: Value) -> Vec<Value> {
    let mut notifications = Vec::new();
    loop {
        let message = server.recv();
        if message.get("id") == Some(&id) && message.get("method").is_none() {
            return notifications;
        }
        notifications.push(message);
    }
}

fn subscription(message: &Value) -> &Value {
    &message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
}

#[test]
fn two_listens_on_one_connection_each_get_only_their_own_events() {
    let mut server = fixture();
    server.send(&listen(json!("tools-only"), json!({"toolsListChanged": true, "promptsListChanged": true})));
    let ack = server.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(subscription(&ack), "tools-only");
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true, "promptsListChanged": true}));

    server.send(&listen(
        json!(7),
        json!({
            "resourcesListChanged": true,
            "resourceSubscriptions": ["fixture://items/1", "fixture://nothing-here"],
            "taskIds": ["t1"]
        }),
    ));
    let ack = server.recv();
    assert_eq!(subscription(&ack), 7, "the id keeps its type");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourcesListChanged": true, "resourceSubscriptions": ["fixture://items/1"]}),
        "only what the server can honour is acknowledged"
    );

    let seen = {
        server.send(&announce(100, "tools", None));
        let mut seen = until_response(&mut server, json!(100));
        server.send(&announce(101, "resources", None));
        seen.extend(until_response(&mut server, json!(101)));
        server.send(&announce(102, "updated", Some("fixture://items/1")));
        seen.extend(until_response(&mut server, json!(102)));
        server.send(&announce(103, "updated", Some("fixture://items/2")));
        seen.extend(until_response(&mut server, json!(103)));
        // Events may trail the tool's answer: give them a moment, then collect the rest.
        while let Some(late) = server.try_recv(Duration::from_millis(300)) {
            seen.push(late);
        }
        seen
    };
    let summary: Vec<(String, Value)> =
        seen.iter().map(|m| (m["method"].as_str().unwrap().to_owned(), subscription(m).clone())).collect();
    assert_eq!(summary.len(), 3, "{summary:?}");
    assert!(summary.contains(&("notifications/tools/list_changed".into(), json!("tools-only"))));
    assert!(summary.contains(&("notifications/resources/list_changed".into(), json!(7))));
    assert!(summary.contains(&("notifications/resources/updated".into(), json!(7))));
    let updated = seen.iter().find(|m| m["method"] == "notifications/resources/updated").unwrap();
    assert_eq!(updated["params"]["uri"], "fixture://items/1");

    // Cancelling one listen ends it silently; the other keeps going.
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "tools-only"}}));
    server.send(&announce(104, "tools", None));
    server.send(&announce(105, "resources", None));
    let mut seen = until_response(&mut server, json!(105));
    while let Some(late) = server.try_recv(Duration::from_millis(300)) {
        seen.push(late);
    }
    let ids: Vec<&Value> = seen.iter().filter(|m| m.get("method").is_some()).map(subscription).collect();
    assert_eq!(ids, [&json!(7)], "{seen:?}");

    // End of input ends the remaining listen gracefully: a result carrying its id.
    let (rest, status) = server.finish();
    let end = rest.iter().find(|m| m["id"] == 7).expect("a final result for the open listen");
    assert_eq!(end["result"]["resultType"], "complete");
    assert_eq!(end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert!(status.success());
}

#[test]
fn a_listen_without_a_filter_is_invalid_params() {
    let mut server = fixture();
    let response = server.call(&request(json!(1), "subscriptions/listen", json!({})));
    assert_eq!(response["error"]["code"], -32602);
}

#[test]
fn progress_goes_to_the_request_that_asked_for_it() {
    let mut server = fixture();
    let mut with_token = request(json!("p"), "tools/call", json!({"name": "progress", "arguments": {"steps": 3}}));
    with_token["params"]["_meta"]["progressToken"] = json!("tok-1");
    server.send(&with_token);
    let notes = until_response(&mut server, json!("p"));
    let progress: Vec<(f64, String)> = notes
        .iter()
        .map(|n| {
            assert_eq!(n["method"], "notifications/progress");
            assert_eq!(n["params"]["progressToken"], "tok-1");
            assert_eq!(n["params"]["total"], 3);
            (n["params"]["progress"].as_f64().unwrap(), n["params"]["message"].as_str().unwrap().to_owned())
        })
        .collect();
    assert_eq!(progress, [(1.0, "step 1".into()), (2.0, "step 2".into()), (3.0, "step 3".into())]);

    // Without a token, no progress at all.
    server.send(&request(json!("q"), "tools/call", json!({"name": "progress", "arguments": {"steps": 3}})));
    assert!(until_response(&mut server, json!("q")).is_empty());
}

#[test]
fn resources_the_caller_may_not_follow_are_left_out_of_the_acknowledgement() {
    let mut server = fixture();
    server.send(&listen(
        json!("mine"),
        json!({"resourceSubscriptions": ["fixture://items/private", "fixture://items/2"]}),
    ));
    let ack = server.recv();
    assert_eq!(ack["params"]["notifications"], json!({"resourceSubscriptions": ["fixture://items/2"]}));
    // Nothing about the refused one arrives, even when it changes.
    server.send(&announce(1, "updated", Some("fixture://items/private")));
    server.send(&announce(2, "updated", Some("fixture://items/2")));
    let mut seen = until_response(&mut server, json!(2));
    while let Some(late) = server.try_recv(Duration::from_millis(300)) {
        seen.push(late);
    }
    let updates: Vec<&Value> = seen.iter().filter(|m| m["method"] == "notifications/resources/updated").collect();
    assert_eq!(updates.len(), 1, "{seen:?}");
    assert_eq!(updates[0]["params"]["uri"], "fixture://items/2");
}
