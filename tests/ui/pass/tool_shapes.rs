//! Every accepted shape of #[tool].

use mcp_rounds::model::{CallToolResult, ClientCapabilities, ContentBlock};
use mcp_rounds::{Args, Error, Json, Principal, RequestContext, Server, State, ToolError, handlers, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// No arguments, nothing returned.
#[tool]
fn ping() {}

/// Sync with arguments and doc comments on them.
#[tool(read_only, idempotent, open_world = false, destructive = false, title = "Add")]
pub fn add(
    /// First.
    a: i64,
    /// Second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// Async, optional argument, structured output.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    celsius: f64,
}

/// The forecast.
#[tool(name = "weather.get")]
async fn forecast(city: String, days: Option<u8>) -> Result<Json<Forecast>, ToolError> {
    let _ = (city, days);
    Ok(Json(Forecast { celsius: 21.0 }))
}

#[derive(Deserialize, JsonSchema)]
struct NewNote {
    title: String,
}

struct Store;

/// Extractors in any position, and one argument struct.
#[tool(destructive)]
async fn create(
    ctx: RequestContext,
    Args(note): Args<NewNote>,
    State(store): State<Store>,
    who: Principal,
    caps: ClientCapabilities,
) -> Result<CallToolResult, Error> {
    let _ = (ctx, store, who, caps);
    Ok(CallToolResult::text(note.title))
}

/// Renamed arguments, raw identifiers, &'static str output.
#[tool(rename_all = "camelCase")]
fn rename(workspace_uri: String, r#type: String, #[arg(rename = "to", description = "New name.")] new_name: String) -> &'static str {
    let _ = (workspace_uri, r#type, new_name);
    "ok"
}

/// Content blocks, on the blocking pool.
#[tool(blocking)]
fn blocks(count: u32) -> Vec<ContentBlock> {
    (0..count).map(|i| ContentBlock::text(i.to_string())).collect()
}

/// String errors are tool errors.
#[tool]
fn fallible(flag: bool) -> Result<String, String> {
    if flag { Ok("yes".into()) } else { Err("no".into()) }
}

/// A JSON value argument takes anything.
#[tool]
fn anything(value: serde_json::Value) -> String {
    value.to_string()
}

mod nested {
    use mcp_rounds::tool;

    /// Lives in a module.
    #[tool]
    pub fn inner() -> String {
        "inner".into()
    }
}

fn main() {
    // The functions are still plain functions.
    assert_eq!(add(1, 2), "3");
    let add = 5; // and can be shadowed like any function
    let _ = add;
    let _server = Server::builder("shapes", "1")
        .state(Store)
        .handlers(handlers![ping, self::add, forecast, create, rename, blocks, fallible, anything, nested::inner])
        .build()
        .unwrap();
}
