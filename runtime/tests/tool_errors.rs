//! How a tool's failures reach the client: its own failures as `isError` results the model can
//! read, the framework's errors as the protocol errors they are.

use mcp_rounds::testing::TestClient;
use mcp_rounds::{Error, Server, ToolError, handlers, tool};
use serde_json::json;

/// Fails in the way `how` says.
#[tool]
fn fail(how: String) -> Result<String, ToolError> {
    match how.as_str() {
        "message" => Err(ToolError::new("the model can fix this")),
        "io" => Err(std::io::Error::other("disk on fire"))?,
        "parse" => Ok("x".parse::<i32>()?.to_string()),
        "protocol" => Err(Error::invalid_params("that answer does not fit"))?,
        _ => Ok("fine".into()),
    }
}

#[tokio::test]
async fn own_failures_are_results_and_framework_errors_stay_protocol_errors() {
    let server = Server::builder("errors", "1").handlers(handlers![fail]).build().unwrap();
    let client = TestClient::new(&server);
    for (how, text) in
        [("message", "the model can fix this"), ("io", "disk on fire"), ("parse", "invalid digit found in string")]
    {
        let result = client.call_tool("fail", json!({"how": how})).await.unwrap();
        assert!(result.is_error(), "{how}");
        assert_eq!(result.content[0].as_text(), Some(text), "{how}");
    }
    let err = client.call_tool("fail", json!({"how": "protocol"})).await.unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32602, "that answer does not fit"));
}
