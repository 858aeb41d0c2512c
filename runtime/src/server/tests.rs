//! What building a server checks, and what its fixed results look like.

use super::*;
use crate::ToolCall;
use crate::error::BuildError;
use crate::jsonrpc::Request;
use crate::model::CacheHints;
use crate::model::{CallToolResult, JsonObject, Tool};
use crate::tool::ToolRoute;

fn route(name: &str) -> ToolRoute {
    ToolRoute::new(Tool::new(name, Tool::no_arguments_schema()), |_c: ToolCall| async {
        Ok(CallToolResult::text("x").into())
    })
}

#[test]
fn descriptions_that_cannot_be_served_are_refused() {
    let err = Server::builder("s", "1").tool(route("a")).tool(route("a")).build().unwrap_err();
    assert_eq!(err, BuildError::DuplicateTool("a".into()));
    let err = Server::builder("s", "1").tool(route("bad name")).build().unwrap_err();
    assert_eq!(err, BuildError::InvalidToolName("bad name".into()));
    let array = ToolRoute::new(
        Tool::new("arr", serde_json::from_value::<JsonObject>(serde_json::json!({"type": "array"})).unwrap()),
        |_c: ToolCall| async { Ok(CallToolResult::text("x").into()) },
    );
    let err = Server::builder("s", "1").tool(array).build().unwrap_err();
    assert_eq!(err, BuildError::InputSchemaNotObject("arr".into()));
}

#[test]
fn tools_capability_follows_registration() {
    assert!(Server::builder("s", "1").build().unwrap().capabilities().tools.is_none());
    assert!(Server::builder("s", "1").tool(route("a")).build().unwrap().capabilities().tools.is_some());
}

async fn call(server: &Server, id: i64, method: &str, params: serde_json::Value) -> serde_json::Value {
    let mut params = params;
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let request = Request {
        id: id.into(),
        method: method.into(),
        params: Some(serde_json::value::to_raw_value(&params).unwrap()),
    };
    let response = server.handle(request, Principal::anonymous()).await;
    serde_json::from_slice(&response.bytes).unwrap()
}

#[tokio::test]
async fn tools_list_pages_in_name_order_with_opaque_cursors() {
    let server = Server::builder("s", "1")
        .tools(["e", "c", "a", "d", "b"].map(route))
        .page_size(2)
        .tools_cache(CacheHints::private(0))
        .build()
        .unwrap();
    let mut names = Vec::new();
    let mut cursor = serde_json::Value::Null;
    for id in 0.. {
        let params = if cursor.is_null() { serde_json::json!({}) } else { serde_json::json!({"cursor": cursor}) };
        let page = call(&server, id, "tools/list", params).await;
        let result = &page["result"];
        assert_eq!(result["cacheScope"], "private");
        assert_eq!(result["ttlMs"], 0);
        names.extend(result["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        cursor = result.get("nextCursor").cloned().unwrap_or_default();
        if cursor.is_null() {
            assert_eq!(id, 2, "five tools in pages of two make three pages");
            break;
        }
    }
    assert_eq!(names, ["a", "b", "c", "d", "e"]);
}

#[tokio::test]
async fn server_info_stamping_can_be_turned_off() {
    let quiet = Server::builder("s", "1").tool(route("a")).stamp_server_info(false).build().unwrap();
    let discover = call(&quiet, 1, "server/discover", serde_json::json!({})).await;
    assert!(discover["result"].get("_meta").is_none());
    let called = call(&quiet, 2, "tools/call", serde_json::json!({"name": "a"})).await;
    assert!(called["result"].get("_meta").is_none());
    let loud = Server::builder("s", "1").tool(route("a")).build().unwrap();
    let called = call(&loud, 2, "tools/call", serde_json::json!({"name": "a"})).await;
    assert_eq!(called["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "s");
}

#[test]
fn a_server_with_an_invalid_declaration_is_not_built() {
    use crate::headers::ParamHeader;
    use crate::model::{CallToolResult, Tool};
    let route = |properties: serde_json::Value| {
        let schema = serde_json::from_value(serde_json::json!({"type": "object", "properties": properties})).unwrap();
        ToolRoute::new(Tool::new("t", schema), |_: ToolCall| async { Ok(CallToolResult::text("ok").into()) })
    };
    let good = route(serde_json::json!({"region": {"type": "string", "x-mcp-header": "Region"}}));
    assert_eq!(good.param_headers(), [ParamHeader { name: "Region".into(), path: vec!["region".into()] }]);
    assert!(Server::builder("s", "1").tool(good).build().is_ok());
    let bad = route(serde_json::json!({"n": {"type": "number", "x-mcp-header": "N"}}));
    match Server::builder("s", "1").tool(bad).build() {
        Err(BuildError::InvalidParamHeader { tool, problem }) => {
            assert_eq!(tool, "t");
            assert!(problem.contains("\"number\"") || problem.contains("only a property"), "{problem}");
        }
        other => panic!("expected InvalidParamHeader, got {other:?}"),
    }
}
