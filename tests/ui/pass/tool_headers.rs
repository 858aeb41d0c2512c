//! `#[arg(header = "...")]`: tool arguments mirrored into `Mcp-Param-{Name}` headers.

use mcp_rounds::headers::HeaderParam;
use mcp_rounds::testing::TestClient;
use mcp_rounds::{Server, handlers, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// A type of your own whose schema is a string may go in a header too.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(transparent)]
struct Zone(String);

impl HeaderParam for Zone {}

/// So may a unit enum (its schema is a string with `enum`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Tier {
    Free,
    Pro,
}

impl HeaderParam for Tier {}

/// Lists the instances of a region.
#[tool(read_only, rename_all = "camelCase")]
fn list_instances(
    /// The cloud region.
    #[arg(header = "Region")]
    region: String,
    #[arg(header = "Page-Size")] page_size: Option<u32>,
    #[arg(header = "Dry_Run.v2!")] dry_run: bool,
    #[arg(header = "Zone", rename = "zone")] zone: Option<Zone>,
    #[arg(header = "Tier")] tier: Option<Tier>,
    filter: Option<String>,
) -> String {
    let zone = zone.map(|z| z.0).unwrap_or_default();
    let tier = match tier {
        Some(Tier::Free) => "free",
        Some(Tier::Pro) => "pro",
        None => "-",
    };
    format!("{region} {page_size:?} {dry_run} {zone} {tier} {filter:?}")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = Server::builder("headers", "1").handlers(handlers![list_instances]).build().unwrap();
    let client = TestClient::new(&server);
    let tools = client.list_tools().await.unwrap();
    let schema = serde_json::Value::Object(tools[0].input_schema.clone());
    let properties = &schema["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["region"]["description"], "The cloud region.");
    assert_eq!(properties["pageSize"]["x-mcp-header"], "Page-Size");
    assert_eq!(properties["pageSize"]["type"], "integer");
    assert_eq!(properties["dryRun"]["x-mcp-header"], "Dry_Run.v2!");
    assert_eq!(properties["zone"]["x-mcp-header"], "Zone");
    assert_eq!(properties["zone"]["type"], "string");
    assert_eq!(properties["tier"]["x-mcp-header"], "Tier");
    assert_eq!(properties["tier"]["enum"], serde_json::json!(["free", "pro"]));
    assert!(properties["filter"].get("x-mcp-header").is_none());
    // In process, as on stdio, there are no headers to check.
    let result =
        client.call_tool("list_instances", serde_json::json!({"region": "eu-west1", "dryRun": true})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("eu-west1 None true  - None"));
}
