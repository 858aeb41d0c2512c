//! subscriptions/listen and progress over stdio: acknowledgements first, only requested kinds,
//! every event tagged with its own listen's id, several listens on one connection, graceful
//! ends.

use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::{StdioProcess, answer_to, event, stream_of};
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
    let mut notifications = server.recv_until(&[&answer_to(id)]);
    notifications.pop();
    notifications
}

/// The notifications among `messages`, as (method, stream) pairs.
fn summary(messages: &[Value]) -> Vec<(String, Value)> {
    messages.iter().filter_map(|m| Some((m["method"].as_str()?.to_owned(), stream_of(m).clone()))).collect()
}

#[test]
fn two_listens_on_one_connection_each_get_only_their_own_events() {
    let mut server = fixture();
    server.send(&listen(json!("tools-only"), json!({"toolsListChanged": true, "promptsListChanged": true})));
    let ack = server.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(stream_of(&ack), "tools-only");
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
    assert_eq!(stream_of(&ack), 7, "the id keeps its type");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourcesListChanged": true, "resourceSubscriptions": ["fixture://items/1"]}),
        "only what the server can honour is acknowledged"
    );

    // The answers and the events they cause come in any order: wait for all of them.
    server.send(&announce(100, "tools", None));
    server.send(&announce(101, "resources", None));
    server.send(&announce(102, "updated", Some("fixture://items/1")));
    server.send(&announce(103, "updated", Some("fixture://items/2")));
    let mut seen = server.recv_until(&[
        &answer_to(json!(100)),
        &answer_to(json!(101)),
        &answer_to(json!(102)),
        &answer_to(json!(103)),
        &event("notifications/tools/list_changed", json!("tools-only")),
        &event("notifications/resources/list_changed", json!(7)),
        &event("notifications/resources/updated", json!(7)),
    ]);
    // Each listen delivers its events in order: once one more event of each is in, nothing
    // else the announcements above gave them can still be on its way.
    server.send(&announce(104, "prompts", None));
    server.send(&announce(105, "resources", None));
    seen.extend(server.recv_until(&[
        &answer_to(json!(104)),
        &answer_to(json!(105)),
        &event("notifications/prompts/list_changed", json!("tools-only")),
        &event("notifications/resources/list_changed", json!(7)),
    ]));
    let order =
        |kinds: &mut Vec<(String, Value)>| kinds.sort_by_key(|(method, stream)| (stream.to_string(), method.clone()));
    let mut kinds = summary(&seen);
    order(&mut kinds);
    let mut expected: Vec<(String, Value)> = [
        ("notifications/tools/list_changed", json!("tools-only")),
        ("notifications/resources/list_changed", json!(7)),
        ("notifications/resources/updated", json!(7)),
        // The two that showed nothing else was coming.
        ("notifications/prompts/list_changed", json!("tools-only")),
        ("notifications/resources/list_changed", json!(7)),
    ]
    .map(|(method, stream)| (method.to_owned(), stream))
    .to_vec();
    order(&mut expected);
    assert_eq!(kinds, expected, "{seen:?}");
    let updated = seen.iter().find(|m| m["method"] == "notifications/resources/updated").unwrap();
    assert_eq!(updated["params"]["uri"], "fixture://items/1");

    // Cancelling one listen ends it silently; the other keeps going. The cancelled one's work
    // is waited for at the end of input, so anything it sent is in `rest`.
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "tools-only"}}));
    server.send(&announce(106, "tools", None));
    server.send(&announce(107, "resources", None));
    let mut seen = server.recv_until(&[
        &answer_to(json!(106)),
        &answer_to(json!(107)),
        &event("notifications/resources/list_changed", json!(7)),
    ]);

    // End of input ends the remaining listen gracefully: a result carrying its id.
    let (rest, status) = server.finish();
    assert_eq!(rest.len(), 1, "only the open listen's end: {rest:?}");
    let end = &rest[0];
    assert_eq!(end["id"], 7);
    assert_eq!(end["result"]["resultType"], "complete");
    assert_eq!(end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    seen.extend(rest);
    assert_eq!(summary(&seen), [("notifications/resources/list_changed".to_owned(), json!(7))], "{seen:?}");
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
    // Nothing about the refused one arrives, even when it changes: it would come before the
    // update announced after it.
    server.send(&announce(1, "updated", Some("fixture://items/private")));
    let mut seen = server.recv_until(&[&answer_to(json!(1))]);
    server.send(&announce(2, "updated", Some("fixture://items/2")));
    seen.extend(server.recv_until(&[&answer_to(json!(2)), &event("notifications/resources/updated", json!("mine"))]));
    let updates: Vec<&Value> = seen.iter().filter(|m| m["method"] == "notifications/resources/updated").collect();
    assert_eq!(updates.len(), 1, "{seen:?}");
    assert_eq!(updates[0]["params"]["uri"], "fixture://items/2");
}
