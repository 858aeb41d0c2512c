use std::collections::HashSet;

use serde_json::json;

use super::{Direction, Method, Subject, Typed, typed};
use crate::model::{ElicitRequestParams, InputRequest, ListRootsRequestParams};

#[test]
fn every_name_is_one_methods_and_reads_back_as_it() {
    let mut names = HashSet::new();
    for &method in Method::ALL {
        assert!(names.insert(method.name()), "{method} is in the table twice");
        assert_eq!(Method::from_name(method.name()), Some(method));
    }
    assert_eq!(Method::from_name("tools/calls"), None);
    assert_eq!(Method::from_name("Tools/call"), None);
    assert_eq!(Method::from_name(""), None);
}

#[test]
fn the_facts_agree_with_each_other() {
    let rounds: Vec<Method> = Method::ALL.iter().copied().filter(|m| m.may_require_input()).collect();
    assert_eq!(rounds, [Method::ToolsCall, Method::PromptsGet, Method::ResourcesRead]);
    let tasks: Vec<Method> = Method::ALL.iter().copied().filter(|m| m.task_capable()).collect();
    assert_eq!(tasks, [Method::ToolsCall]);
    for &method in Method::ALL {
        let revisions = method.revisions();
        assert!(revisions.current() || revisions.legacy(), "{method} is in no revision");
        if method.subject().is_some() || method.may_require_input() {
            assert!(method.is_client_request(), "{method} names something but is no request");
        }
        if method.direction() == Direction::InputRequest {
            assert!(revisions.current() && revisions.legacy(), "{method} is asked in both eras");
        }
    }
    assert_eq!(Method::ResourcesRead.subject().map(Subject::param), Some("uri"));
    assert_eq!(Method::TasksUpdate.subject().map(Subject::param), Some("taskId"));
    let removed: Vec<&str> =
        Method::ALL.iter().filter(|m| m.removed() && m.is_client_request()).map(|m| m.name()).collect();
    assert_eq!(
        removed,
        [
            "initialize",
            "ping",
            "resources/subscribe",
            "resources/unsubscribe",
            "logging/setLevel",
            "tasks/result",
            "tasks/list"
        ]
    );
}

/// A marker's types are the ones a client sends and reads: they round-trip the wire exactly.
fn round_trips<M: Typed>(params: serde_json::Value, result: serde_json::Value) {
    let read: M::Params = serde_json::from_value(params.clone()).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), params, "{}", M::METHOD);
    let read: M::Result = serde_json::from_value(result.clone()).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), result, "{}", M::METHOD);
}

#[test]
fn typed_entries_round_trip_their_params_and_results() {
    round_trips::<typed::ToolsCall>(
        json!({"name": "add", "arguments": {"a": 1}}),
        json!({"resultType": "input_required", "requestState": "s"}),
    );
    round_trips::<typed::ToolsCall>(
        json!({"name": "add"}),
        json!({"resultType": "complete", "content": [{"type": "text", "text": "2"}]}),
    );
    round_trips::<typed::Initialize>(
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}),
    );
    round_trips::<typed::Ping>(json!({}), json!({}));
    round_trips::<typed::TasksCancel>(json!({"taskId": "t"}), json!({"resultType": "complete"}));
}

#[test]
fn an_embedded_request_is_tagged_with_its_methods_name() {
    let wire = json!({
        "method": "elicitation/create",
        "params": {"mode": "url", "message": "Sign in", "url": "https://example.com"}
    });
    let elicit: InputRequest = serde_json::from_value(wire.clone()).unwrap();
    assert!(matches!(&elicit, InputRequest::Elicit { params: ElicitRequestParams::Url(_) }));
    assert_eq!(serde_json::to_value(&elicit).unwrap(), wire);
    assert_eq!(elicit.method(), Method::ElicitationCreate);

    let roots = InputRequest::ListRoots { params: None };
    assert_eq!(serde_json::to_value(&roots).unwrap(), json!({"method": "roots/list"}));
    assert_eq!(serde_json::from_value::<InputRequest>(json!({"method": "roots/list"})).unwrap(), roots);
    let with_meta = InputRequest::ListRoots { params: Some(ListRootsRequestParams::default()) };
    assert_eq!(serde_json::to_value(&with_meta).unwrap(), json!({"method": "roots/list", "params": {}}));

    // Params before their method are read as well, from the text as from a value.
    let params_first = r#"{"params": {"mode": "url", "message": "Sign in", "url": "https://example.com"}, "method": "elicitation/create"}"#;
    assert_eq!(serde_json::from_str::<InputRequest>(params_first).unwrap(), elicit);
    let value: serde_json::Value = serde_json::from_str(params_first).unwrap();
    assert_eq!(serde_json::from_value::<InputRequest>(value).unwrap(), elicit);
    let null_roots = r#"{"method": "roots/list", "params": null, "other": [1]}"#;
    assert_eq!(serde_json::from_str::<InputRequest>(null_roots).unwrap(), roots);
    let twice = r#"{"method": "roots/list", "method": "roots/list"}"#;
    assert!(serde_json::from_str::<InputRequest>(twice).unwrap_err().to_string().contains("duplicate"));
    let null_elicit = r#"{"method": "elicitation/create", "params": null}"#;
    assert!(serde_json::from_str::<InputRequest>(null_elicit).is_err());

    let unknown = serde_json::from_value::<InputRequest>(json!({"method": "tools/call", "params": {}})).unwrap_err();
    assert!(unknown.to_string().contains("elicitation/create"), "{unknown}");
    let missing = serde_json::from_value::<InputRequest>(json!({"method": "elicitation/create"})).unwrap_err();
    assert!(missing.to_string().contains("params"), "{missing}");
    assert!(serde_json::from_value::<InputRequest>(json!(["roots/list"])).is_err());
}
