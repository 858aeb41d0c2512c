//! A stdio server with hand-registered tools, for the end-to-end tests.

use std::time::Duration;

use mcp_rounds::model::{CallToolResult, ClientCapabilities, ElicitationCapability, JsonObject, Tool};
use mcp_rounds::transport::stdio::Stdio;
use mcp_rounds::{Error, Server, ToolCall, ToolRoute};
use serde_json::json;

fn schema(value: serde_json::Value) -> JsonObject {
    serde_json::from_value(value).expect("schema literal is an object")
}

fn number(call: &ToolCall, key: &str) -> Result<f64, Error> {
    call.arguments
        .get(key)
        .and_then(serde_json::Value::as_f64)
        .ok_or_else(|| Error::invalid_field(key, format!("{key} must be a number")))
}

fn server() -> Server {
    let add = ToolRoute::new(
        Tool::new(
            "add",
            schema(json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            })),
        )
        .with_description("Adds two numbers.")
        .with_output_schema(schema(json!({
            "type": "object",
            "properties": {"sum": {"type": "number"}},
            "required": ["sum"]
        }))),
        |call: ToolCall| async move {
            let sum = number(&call, "a")? + number(&call, "b")?;
            Ok(CallToolResult::structured(json!({ "sum": sum })).into())
        },
    );
    let echo = ToolRoute::new(
        Tool::new(
            "echo",
            schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})),
        )
        .with_description("Returns its text."),
        |call: ToolCall| async move {
            let text = call.arguments.get("text").and_then(|t| t.as_str()).unwrap_or_default().to_owned();
            Ok(CallToolResult::text(text).into())
        },
    );
    let fail = ToolRoute::new(
        Tool::new("fail", Tool::no_arguments_schema()).with_description("Always fails as a tool."),
        |_call: ToolCall| async move { Ok(CallToolResult::error("the frobnicator is offline").into()) },
    );
    let sleep = ToolRoute::new(
        Tool::new(
            "sleep",
            schema(json!({"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]})),
        ),
        |call: ToolCall| async move {
            let ms = number(&call, "ms")? as u64;
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(CallToolResult::text(format!("slept {ms} ms")).into())
        },
    );
    let panic = ToolRoute::new(Tool::new("panic", Tool::no_arguments_schema()), |_call: ToolCall| async move {
        if true {
            panic!("fixture panic");
        }
        Ok(CallToolResult::text("unreachable").into())
    });
    let needs_form =
        ToolRoute::new(Tool::new("needs_form", Tool::no_arguments_schema()), |call: ToolCall| async move {
            let required =
                ClientCapabilities { elicitation: Some(ElicitationCapability::form()), ..Default::default() };
            let missing = call.context.client_capabilities().missing(&required);
            if !missing.is_empty() {
                return Err(Error::missing_capability(missing));
            }
            Ok(CallToolResult::text("form available").into())
        });

    Server::builder("fixture-server", "0.1.0")
        .instructions("Tools for testing mcp-rounds.")
        .tools([add, echo, fail, sleep, panic, needs_form])
        .build()
        .expect("fixture tools are valid")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter("warn").init();
    // Keep panic reports off stdout; the default hook already writes to stderr.
    Stdio::new().serve(&server()).await
}
