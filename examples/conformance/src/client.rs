//! The client the official conformance suite runs in client mode: the server URL is the last
//! argument, the scenario and the protocol version come from the environment
//! (`MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION`, and for some scenarios
//! `MCP_CONFORMANCE_CONTEXT`). Every scenario is played through the public client API only.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use mcp_rounds::client::{Asking, Client, ClientError, ClientHandler, Lifecycle, StreamableHttp};
use mcp_rounds::model::{
    CallToolRequestParams, ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationCapability, InputResponse,
    Outcome, SamplingCapability,
};
use serde_json::{Map, Value, json};

mod login;

/// The suite gives a client 30 s; one that hangs is stopped here first, and says where.
const DEADLINE: Duration = Duration::from_secs(25);

/// Accepts every form: a boolean field without a default is ticked (the library fills in the
/// defaults, and checks the answer against the form).
struct Agreeable;

impl ClientHandler for Agreeable {
    async fn elicit(&self, request: ElicitRequestParams, _asking: &Asking) -> Result<ElicitResult, mcp_rounds::Error> {
        let ElicitRequestParams::Form(form) = request else { return Ok(ElicitResult::accept(None)) };
        let mut content = Map::new();
        for (name, field) in &form.requested_schema.properties {
            let field = serde_json::to_value(field).unwrap_or_default();
            if field["type"] == "boolean" && field.get("default").is_none() {
                content.insert(name.clone(), json!(true));
            }
        }
        Ok(ElicitResult::accept(Some(content)))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter("warn").init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client SERVER_URL (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| "2026-07-28".into());
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    match tokio::time::timeout(DEADLINE, run(&url, &scenario, &version, &context)).await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(error)) => {
            eprintln!("{scenario}: {error}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("{scenario}: not done after {DEADLINE:?}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, scenario: &str, version: &str, context: &Value) -> Result<(), ClientError> {
    // 2026-07-28 is stateless; a dated version before it opens with the handshake.
    let lifecycle = if version >= "2026-07-28" { Lifecycle::Discover } else { Lifecycle::Legacy };
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(ElicitationCapability::form());
    capabilities.sampling = Some(SamplingCapability::default());
    let client = Client::builder()
        .name("mcp-rounds-conformance-client", env!("CARGO_PKG_VERSION"))
        .capabilities(capabilities)
        .handler(Agreeable)
        .lifecycle(lifecycle)
        .protocol_version(version)
        .connect(match login::for_scenario(scenario, context) {
            Some(oauth) => StreamableHttp::new(url).login(oauth),
            None => StreamableHttp::new(url),
        })
        .await?;
    let played = play(&client, scenario, context).await;
    client.close().await;
    played
}

async fn play(client: &Client, scenario: &str, context: &Value) -> Result<(), ClientError> {
    let tools = client.list_all_tools().await?;
    match scenario {
        "tools_call" | "tools-call" => {
            client.call_tool("add_numbers", json!({"a": 2, "b": 3})).await?;
        }
        "sep-2322-client-request-state" => request_state(client).await?,
        "http-standard-headers" => {
            for tool in &tools {
                client.call_tool(&tool.name, json!({})).await?;
            }
            for resource in client.list_all_resources().await? {
                client.read_resource(&resource.uri).await?;
            }
            for prompt in client.list_all_prompts().await? {
                client.get_prompt(&prompt.name, BTreeMap::new()).await?;
            }
        }
        "http-custom-headers" => {
            for call in context["toolCalls"].as_array().into_iter().flatten() {
                let name = call["name"].as_str().unwrap_or_default();
                client.call_tool(name, call["arguments"].clone()).await?;
            }
        }
        "http-invalid-tool-headers" => {
            // The client refuses the tools whose header annotations are invalid; the rest it calls.
            for tool in &tools {
                let arguments = if tool.name == "valid_tool" { json!({"region": "us-west1"}) } else { json!({}) };
                match client.call_tool(&tool.name, arguments).await {
                    Err(ClientError::InvalidTool { name, reason }) => eprintln!("refused {name}: {reason}"),
                    other => {
                        other?;
                    }
                }
            }
        }
        "json-schema-2020-12-preservation" => {
            let focal = tools.iter().find(|t| t.name == "json_schema_2020_12_tool");
            let schema = focal.map(|t| Value::Object(t.input_schema.clone())).unwrap_or_default();
            client.call_tool("json_schema_echo", json!({ "schema": schema })).await?;
        }
        "elicitation-sep1034-client-defaults" => {
            client.call_tool("test_client_elicitation_defaults", json!({})).await?;
        }
        "sse-retry" => {
            client.call_tool("test_reconnection", json!({})).await?;
        }
        // Authorization: every tool called as well (one asks for more scope than listing).
        auth if auth.starts_with("auth/") => {
            for tool in &tools {
                client.call_tool(&tool.name, json!({})).await?;
            }
        }
        // `initialize`, `request-metadata`, `json-schema-ref-no-deref`: connecting and listing
        // is the whole scenario (a schema's `$ref` is never fetched).
        _ => {}
    }
    Ok(())
}

/// A call answered round by hand, an unrelated call in between that must carry nothing of it,
/// a round without state, and a result without `resultType`.
async fn request_state(client: &Client) -> Result<(), ClientError> {
    let mut call = client.round_by_round(CallToolRequestParams::new("test_mrtr_echo_state", Map::new()));
    let asked = match call.send().await? {
        Outcome::InputRequired(asked) => asked,
        Outcome::Complete(_) => return Ok(()),
    };
    client.call_tool("test_mrtr_unrelated", json!({})).await?;
    let answers = asked
        .input_requests
        .iter()
        .flatten()
        .map(|(key, _)| (key.clone(), InputResponse::Elicit(ElicitResult::accept(Some(confirmed())))))
        .collect();
    call.answer(&asked, answers);
    call.send().await?;
    client.call_tool("test_mrtr_no_state", json!({})).await?;
    client.call_tool("test_mrtr_no_result_type", json!({})).await?;
    Ok(())
}

fn confirmed() -> Map<String, Value> {
    let mut content = Map::new();
    content.insert("confirmed".into(), json!(true));
    content
}
