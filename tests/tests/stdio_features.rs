//! Annotated tools, resources and prompts over stdio, exactly as a client sees them.

use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};

fn fixture() -> StdioProcess {
    StdioProcess::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[])
}

fn result(response: Value) -> Value {
    assert!(response.get("error").is_none(), "unexpected error: {response}");
    response["result"].clone()
}

#[test]
fn annotated_tools_are_listed_and_called() {
    let mut server = fixture();
    let list = result(server.call(&request(json!(1), "tools/list", json!({}))));
    let add = list["tools"].as_array().unwrap().iter().find(|t| t["name"] == "add").unwrap().clone();
    assert_eq!(
        add,
        json!({
            "name": "add",
            "description": "Adds two numbers.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "number", "format": "double", "description": "The first number."},
                    "b": {"type": "number", "format": "double", "description": "The second number."}
                },
                "required": ["a", "b"],
                "additionalProperties": false
            },
            "outputSchema": {
                "title": "Sum",
                "type": "object",
                "properties": {"sum": {"type": "number", "format": "double", "description": "The sum."}},
                "required": ["sum"]
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true}
        })
    );
    let called =
        result(server.call(&request(json!(2), "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}}))));
    assert_eq!(called["structuredContent"], json!({"sum": 3.0}));
    let wrong = result(server.call(&request(json!(3), "tools/call", json!({"name": "add", "arguments": {"a": 1}}))));
    assert_eq!(wrong["isError"], true);
    assert_eq!(wrong["content"][0]["text"], "Missing required argument `b`");
}

#[test]
fn fixed_and_templated_resources_are_read() {
    let mut server = fixture();
    let list = result(server.call(&request(json!(1), "resources/list", json!({}))));
    let uris: Vec<&str> = list["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["fixture://items/0", "fixture://items/1", "fixture://items/2", "fixture://readme"]);
    assert_eq!((list["cacheScope"].as_str(), list["ttlMs"].as_u64()), (Some("private"), Some(0)));

    let templates = result(server.call(&request(json!(2), "resources/templates/list", json!({}))));
    assert_eq!(
        templates["resourceTemplates"],
        json!([{"uriTemplate": "fixture://items/{id}", "name": "item", "description": "An item by number.", "mimeType": "text/plain"}])
    );
    assert_eq!(templates["cacheScope"], "public");

    let readme = result(server.call(&request(json!(3), "resources/read", json!({"uri": "fixture://readme"}))));
    assert_eq!(
        readme,
        json!({
            "resultType": "complete",
            "contents": [{"uri": "fixture://readme", "mimeType": "text/markdown", "text": "# Fixture\n\nA server for tests."}],
            "ttlMs": 60000,
            "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fixture-server", "version": "0.1.0"}}
        })
    );
    let item = result(server.call(&request(json!(4), "resources/read", json!({"uri": "fixture://items/1"}))));
    assert_eq!(item["contents"][0]["text"], "banana");

    for (i, uri) in ["fixture://items/9", "fixture://items/%2e%2e", "fixture://nothing", "::"].into_iter().enumerate() {
        let response = server.call(&request(json!(10 + i), "resources/read", json!({"uri": uri})));
        assert_eq!(response["error"]["code"], -32602, "{uri}");
        assert_eq!(response["error"]["data"], json!({"uri": uri}), "{uri}");
    }
}

#[test]
fn prompts_are_listed_and_rendered() {
    let mut server = fixture();
    let list = result(server.call(&request(json!(1), "prompts/list", json!({}))));
    assert_eq!(
        list["prompts"],
        json!([{
            "name": "greet", "title": "Greeting", "description": "Greets someone.",
            "arguments": [
                {"name": "name", "description": "Who to greet.", "required": true},
                {"name": "style", "description": "How: \"formal\" or \"casual\".", "required": false}
            ]
        }])
    );
    let got = result(server.call(&request(
        json!(2),
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada", "style": "formal"}}),
    )));
    assert_eq!(
        got["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Please greet Ada formally."}}])
    );
    let missing = server.call(&request(json!(3), "prompts/get", json!({"name": "greet", "arguments": {}})));
    assert_eq!(missing["error"]["code"], -32602);
    assert_eq!(missing["error"]["data"], json!({"field": "arguments.name"}));
}
