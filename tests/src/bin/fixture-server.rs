//! A stdio server written the way users write them, for the end-to-end tests. One tool is
//! built by hand to keep that path covered too.

use std::time::Duration;

use mcp_rounds::model::{CallToolResult, ClientCapabilities, ElicitationCapability, Resource, Tool};
use mcp_rounds::transport::stdio::Stdio;
use mcp_rounds::{
    Error, Json, RequestContext, Server, ToolCall, ToolError, ToolRoute, handlers, prompt, resource, tool,
};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
struct Sum {
    /// The sum.
    sum: f64,
}

/// Adds two numbers.
#[tool(read_only, idempotent)]
fn add(
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
) -> Json<Sum> {
    Json(Sum { sum: a + b })
}

/// Returns its text.
#[tool]
fn echo(text: String) -> String {
    text
}

/// Always fails as a tool.
#[tool]
fn fail() -> Result<String, ToolError> {
    Err(ToolError::new("the frobnicator is offline"))
}

/// Sleeps, then answers.
#[tool]
async fn sleep(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Panics.
#[tool]
fn panic() -> String {
    panic!("fixture panic")
}

/// The fixture's read-me.
#[resource("fixture://readme", mime_type = "text/markdown", cache = "public", ttl_ms = 60000)]
fn readme() -> &'static str {
    "# Fixture\n\nA server for tests."
}

const ITEMS: [&str; 3] = ["apple", "banana", "cherry"];

/// An item by number.
#[resource("fixture://items/{id}", mime_type = "text/plain", list = list_items)]
fn item(id: usize) -> Option<String> {
    ITEMS.get(id).map(|name| (*name).to_owned())
}

async fn list_items(_ctx: RequestContext) -> Vec<Resource> {
    (0..ITEMS.len())
        .map(|i| Resource {
            uri: format!("fixture://items/{i}"),
            name: ITEMS[i].to_owned(),
            mime_type: Some("text/plain".into()),
            ..Default::default()
        })
        .collect()
}

/// Greets someone.
#[prompt(title = "Greeting")]
fn greet(
    /// Who to greet.
    name: String,
    /// How: "formal" or "casual".
    style: Option<String>,
) -> String {
    match style.as_deref() {
        Some("formal") => format!("Please greet {name} formally."),
        _ => format!("Say hi to {name}."),
    }
}

/// Needs form elicitation (checked by hand until rounds gate it).
fn needs_form() -> ToolRoute {
    ToolRoute::new(Tool::new("needs_form", Tool::no_arguments_schema()), |call: ToolCall| async move {
        let required = ClientCapabilities { elicitation: Some(ElicitationCapability::form()), ..Default::default() };
        let missing = call.context.client_capabilities().missing(&required);
        if !missing.is_empty() {
            return Err(Error::missing_capability(missing));
        }
        Ok(CallToolResult::text("form available").into())
    })
}

/// The full server, or with `--only-tools` one that offers neither resources nor prompts.
fn server(only_tools: bool) -> Server {
    let builder = Server::builder("fixture-server", "0.1.0")
        .instructions("Tools for testing mcp-rounds.")
        .handlers(handlers![add, echo, fail, sleep, panic])
        .tool(needs_form());
    let builder = if only_tools { builder } else { builder.handlers(handlers![readme, item, greet]) };
    builder.build().expect("fixture handlers are valid")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter("warn").init();
    let only_tools = std::env::args().any(|a| a == "--only-tools");
    Stdio::new().serve(&server(only_tools)).await
}
