//! The attribute macros end to end through the in-process client: descriptors exactly as
//! clients see them, calls, reads and prompts, and every kind of failure.

use std::sync::Mutex;

use mcp_rounds::model::{ClientCapabilities, ContentBlock, PromptMessage, Resource, ResourceContents, Role};
use mcp_rounds::testing::TestClient;
use mcp_rounds::{
    Args, BuildError, Error, Json, Principal, RequestContext, Server, State, ToolError, handlers, prompt, resource,
    tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Adds two numbers.
///
/// Works with decimals too.
#[tool(read_only, idempotent, open_world = false, title = "Add")]
fn add(
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
) -> String {
    format!("{}", a + b)
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    celsius: f64,
    warning: Option<String>,
}

/// Tomorrow's forecast.
#[tool(name = "weather.forecast")]
async fn forecast(city: String, days: Option<u8>) -> Result<Json<Forecast>, ToolError> {
    if city.is_empty() {
        return Err(ToolError::new("city must not be empty"));
    }
    let celsius = 20.0 + f64::from(days.unwrap_or(1));
    Ok(Json(Forecast { city, celsius, warning: None }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NewNote {
    /// Title of the note.
    title: String,
    /// Where it goes.
    workspace_uri: String,
    tags: Option<Vec<String>>,
}

struct Notes(Mutex<Vec<String>>);

/// Creates a note.
#[tool(destructive = false)]
fn create_note(Args(note): Args<NewNote>, State(notes): State<Notes>, who: Principal) -> String {
    let mut notes = notes.0.lock().unwrap();
    notes.push(note.title.clone());
    format!(
        "{} created {} in {} with {} tags",
        who.name().unwrap_or("nobody"),
        note.title,
        note.workspace_uri,
        note.tags.map_or(0, |t| t.len())
    )
}

/// Renames a thing.
#[tool(rename_all = "camelCase")]
fn rename_thing(
    workspace_uri: String,
    #[arg(rename = "to", description = "The new name.")] new_name: String,
) -> String {
    format!("{workspace_uri} -> {new_name}")
}

/// Fails as a protocol error.
#[tool]
fn strict(ctx: RequestContext) -> Result<&'static str, Error> {
    if ctx.client_capabilities().supports_sampling() {
        Ok("sampling available")
    } else {
        Err(Error::invalid_params("this tool insists on sampling"))
    }
}

/// Counts to n on the blocking pool.
#[tool(blocking)]
fn count(n: u32) -> String {
    (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

/// The app configuration.
#[resource("config://app", mime_type = "application/json", cache = "public", ttl_ms = 60000)]
fn app_config() -> String {
    r#"{"theme":"dark"}"#.to_owned()
}

/// A note by project and id.
#[resource("notes://projects/{project}/notes/{id}", mime_type = "text/markdown", list = list_notes)]
async fn note(project: String, id: u32, State(notes): State<Notes>) -> Option<String> {
    let notes = notes.0.lock().unwrap();
    notes.get(id as usize).map(|title| format!("# {title}\n\nin {project}"))
}

async fn list_notes(ctx: RequestContext) -> Vec<Resource> {
    let notes = ctx.state::<Notes>().expect("registered");
    let titles = notes.0.lock().unwrap().clone();
    titles
        .iter()
        .enumerate()
        .map(|(i, title)| {
            Resource::new(format!("notes://projects/main/notes/{i}"), title).with_mime_type("text/markdown")
        })
        .collect()
}

/// A file under the docs root.
#[resource("docs://{+path}", mime_type = "application/octet-stream")]
fn doc_file(path: String) -> Vec<u8> {
    path.into_bytes()
}

/// Review a note.
#[prompt(title = "Review")]
fn review_note(
    /// The note's URI.
    uri: String,
    /// What to focus on.
    focus: Option<String>,
    who: Principal,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(format!("Review {uri} for {}", who.name().unwrap_or("anyone"))),
        PromptMessage::assistant(format!("Focusing on {}", focus.unwrap_or_else(|| "everything".into()))),
    ]
}

/// Summarize, asynchronously.
#[prompt(name = "summarize", rename_all = "camelCase")]
async fn summarize_prompt(note_uri: String) -> Result<String, Error> {
    Ok(format!("Summarize {note_uri}"))
}

fn server() -> Server {
    Server::builder("macro-test", "1.0.0")
        .state(Notes(Mutex::new(vec!["first".into(), "second".into()])))
        .handlers(handlers![add, forecast, create_note, rename_thing, strict, count])
        .handlers(handlers![app_config, note, doc_file, review_note, summarize_prompt])
        .build()
        .expect("the test server builds")
}

fn tool_json(tools: &[mcp_rounds::model::Tool], name: &str) -> Value {
    serde_json::to_value(tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))).unwrap()
}

#[tokio::test]
async fn tool_descriptors_are_exact() {
    let client = TestClient::new(&server());
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "count", "create_note", "rename_thing", "strict", "weather.forecast"]);

    assert_eq!(
        tool_json(&tools, "add"),
        json!({
            "name": "add",
            "title": "Add",
            "description": "Adds two numbers.\n\nWorks with decimals too.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "number", "format": "double", "description": "The first number."},
                    "b": {"type": "number", "format": "double", "description": "The second number."}
                },
                "required": ["a", "b"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        })
    );

    let forecast = tool_json(&tools, "weather.forecast");
    assert_eq!(forecast["inputSchema"]["required"], json!(["city"]), "Option<u8> is not required");
    assert_eq!(forecast["inputSchema"]["properties"]["days"]["type"], "integer", "Option<T> is T, never [T, null]");
    assert_eq!(forecast["outputSchema"]["type"], "object");
    assert_eq!(
        forecast["outputSchema"]["properties"]["warning"]["type"],
        json!(["string", "null"]),
        "output schemas describe what is written, and None is written as null"
    );
    assert_eq!(forecast["outputSchema"]["required"], json!(["city", "celsius", "warning"]), "always written");

    let create = tool_json(&tools, "create_note");
    assert_eq!(create["inputSchema"]["properties"]["workspaceUri"]["description"], "Where it goes.");
    assert_eq!(create["inputSchema"]["required"], json!(["title", "workspaceUri"]));
    assert_eq!(create["inputSchema"]["properties"]["tags"]["type"], "array");
    assert_eq!(create["annotations"], json!({"destructiveHint": false}));

    let rename = tool_json(&tools, "rename_thing");
    assert_eq!(rename["inputSchema"]["required"], json!(["workspaceUri", "to"]));
    assert_eq!(rename["inputSchema"]["properties"]["to"]["description"], "The new name.");

    let strict = tool_json(&tools, "strict");
    assert_eq!(strict["inputSchema"], json!({"type": "object", "additionalProperties": false}));
    assert!(strict.get("outputSchema").is_none());
}

#[tokio::test]
async fn tools_are_called_with_typed_arguments() {
    let client = TestClient::new(&server()).as_principal(Principal::new("ada"));
    let sum = client.call_tool("add", json!({"a": 1.5, "b": 2})).await.unwrap();
    assert_eq!(sum.content[0].as_text(), Some("3.5"));
    assert!(!sum.is_error());

    let weather = client.call_tool("weather.forecast", json!({"city": "Lisbon", "days": 3})).await.unwrap();
    assert_eq!(weather.structured_content, Some(json!({"city": "Lisbon", "celsius": 23.0, "warning": null})));
    assert_eq!(
        serde_json::from_str::<Value>(weather.content[0].as_text().unwrap()).unwrap(),
        json!({"city": "Lisbon", "celsius": 23.0, "warning": null}),
        "a text copy of structured content for older clients"
    );

    let created = client
        .call_tool("create_note", json!({"title": "TPS", "workspaceUri": "file:///w", "tags": ["a", "b"]}))
        .await
        .unwrap();
    assert_eq!(created.content[0].as_text(), Some("ada created TPS in file:///w with 2 tags"));

    let renamed = client.call_tool("rename_thing", json!({"workspaceUri": "w", "to": "x"})).await.unwrap();
    assert_eq!(renamed.content[0].as_text(), Some("w -> x"));

    let counted = client.call_tool("count", json!({"n": 4})).await.unwrap();
    assert_eq!(counted.content[0].as_text(), Some("1,2,3,4"));

    // Direct calls still work: the function is still a function.
    assert_eq!(add(1.0, 1.0), "2");
    assert!(forecast(String::new(), None).await.is_err());
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_the_model_can_read() {
    let client = TestClient::new(&server());
    for (arguments, expected) in [
        (json!({"a": 1}), "Missing required argument `b`"),
        (json!({"a": "one", "b": 2}), "Invalid argument `a`"),
        (json!({"a": 1, "b": 2, "c": 3}), "Unknown argument `c`"),
    ] {
        let result = client.call_tool("add", arguments.clone()).await.unwrap();
        assert!(result.is_error(), "{arguments}");
        let text = result.content[0].as_text().unwrap();
        assert!(text.starts_with(expected), "{arguments}: {text}");
    }
    let result = client.call_tool("create_note", json!({"title": 5})).await.unwrap();
    assert!(result.is_error());
    assert!(result.content[0].as_text().unwrap().contains("invalid type"), "{:?}", result.content);

    let failure = client.call_tool("weather.forecast", json!({"city": ""})).await.unwrap();
    assert!(failure.is_error());
    assert_eq!(failure.content[0].as_text(), Some("city must not be empty"));

    let protocol = client.call_tool("strict", json!({})).await.unwrap_err();
    assert_eq!(protocol.code, -32602);
    let with_sampling = TestClient::new(&server()).with_capabilities({
        let mut capabilities = ClientCapabilities::default();
        capabilities.sampling = Some(Default::default());
        capabilities
    });
    assert_eq!(
        with_sampling.call_tool("strict", json!({})).await.unwrap().content[0].as_text(),
        Some("sampling available")
    );
}

#[tokio::test]
async fn resources_fixed_templated_and_listed() {
    let client = TestClient::new(&server());
    let discover = client.discover().await.unwrap();
    assert!(discover.capabilities.resources.is_some());
    assert!(discover.capabilities.prompts.is_some());
    assert!(discover.capabilities.tools.is_some());

    let config = client.read_resource("config://app").await.unwrap();
    assert_eq!((config.ttl_ms, config.cache_scope), (60000, mcp_rounds::model::CacheScope::Public));
    let ResourceContents::Text(text) = &config.contents[0] else { panic!("text expected") };
    assert_eq!(
        (text.uri.as_str(), text.mime_type.as_deref(), text.text.as_str()),
        ("config://app", Some("application/json"), r#"{"theme":"dark"}"#)
    );

    let note = client.read_resource("notes://projects/alpha/notes/1").await.unwrap();
    assert_eq!(note.cache_scope, mcp_rounds::model::CacheScope::Private, "private by default");
    let ResourceContents::Text(text) = &note.contents[0] else { panic!("text expected") };
    assert_eq!(text.text, "# second\n\nin alpha");
    assert_eq!(text.mime_type.as_deref(), Some("text/markdown"));

    // Equivalent spellings find the same resource.
    assert!(client.read_resource("NOTES://projects/%61lpha/notes/1").await.is_ok());

    let blob = client.read_resource("docs://guide/intro.md").await.unwrap();
    let ResourceContents::Blob(blob) = &blob.contents[0] else { panic!("blob expected") };
    assert_eq!(blob.blob, "Z3VpZGUvaW50cm8ubWQ=");

    for missing in [
        "notes://projects/alpha/notes/7",
        "notes://projects/alpha/notes/x",
        "notes://projects/a%2Fb/notes/1",
        "notes://projects/../notes/1",
        "docs://a/../../etc/passwd",
        "nothing://here",
        "not a uri",
    ] {
        let err = client.read_resource(missing).await.unwrap_err();
        assert_eq!(err.code, -32602, "{missing}");
        assert_eq!(err.data, Some(json!({"uri": missing})), "{missing}");
    }

    let listed = client.list_resources().await.unwrap();
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["config://app", "notes://projects/main/notes/0", "notes://projects/main/notes/1"]);

    let templates = client.list_resource_templates().await.unwrap();
    let templates: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(templates, ["docs://{+path}", "notes://projects/{project}/notes/{id}"]);
}

#[tokio::test]
async fn resource_lists_page_in_order() {
    let server = Server::builder("paged", "1")
        .state(Notes(Mutex::new((0..7).map(|i| format!("n{i}")).collect())))
        .handlers(handlers![note, app_config])
        .page_size(3)
        .build()
        .unwrap();
    let client = TestClient::new(&server);
    let all = client.list_resources().await.unwrap();
    assert_eq!(all.len(), 8);
    assert!(all.windows(2).all(|w| w[0].uri < w[1].uri), "sorted by URI across pages");
    let first: Value = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(first["resources"].as_array().unwrap().len(), 3);
    assert_eq!(first["cacheScope"], "private");
    let bad = client.request::<Value>("resources/list", json!({"cursor": "bm9wZQ"})).await.unwrap_err();
    assert_eq!(bad.code, -32602);
}

#[tokio::test]
async fn prompts_render_and_check_arguments() {
    let client = TestClient::new(&server()).as_principal(Principal::new("grace"));
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompts).unwrap(),
        json!([
            {"name": "review_note", "title": "Review", "description": "Review a note.",
             "arguments": [
                {"name": "uri", "description": "The note's URI.", "required": true},
                {"name": "focus", "description": "What to focus on.", "required": false}
             ]},
            {"name": "summarize", "description": "Summarize, asynchronously.",
             "arguments": [{"name": "noteUri", "required": true}]}
        ])
    );
    let got = client.get_prompt("review_note", json!({"uri": "notes://x"})).await.unwrap();
    assert_eq!(got.messages.len(), 2);
    assert_eq!(got.messages[0].role, Role::User);
    assert!(matches!(&got.messages[0].content, ContentBlock::Text(t) if t.text == "Review notes://x for grace"));
    assert!(matches!(&got.messages[1].content, ContentBlock::Text(t) if t.text == "Focusing on everything"));

    let summary = client.get_prompt("summarize", json!({"noteUri": "n://1"})).await.unwrap();
    assert!(matches!(&summary.messages[0].content, ContentBlock::Text(t) if t.text == "Summarize n://1"));

    let missing = client.get_prompt("review_note", json!({})).await.unwrap_err();
    assert_eq!((missing.code, missing.data), (-32602, Some(json!({"field": "arguments.uri"}))));
    let unknown = client.get_prompt("review_note", json!({"uri": "u", "bogus": "x"})).await.unwrap_err();
    assert_eq!(unknown.code, -32602);
    let no_such = client.get_prompt("nope", json!({})).await.unwrap_err();
    assert_eq!(no_such.code, -32602);
}

#[test]
fn servers_that_cannot_be_served_are_refused_at_build() {
    let missing_state = Server::builder("s", "1").handlers(handlers![create_note]).build().unwrap_err();
    assert!(
        matches!(&missing_state, BuildError::MissingState { handler, .. } if handler == "create_note"),
        "{missing_state}"
    );
    assert!(missing_state.to_string().contains("Notes"));

    // Within one handlers![...] a duplicate does not compile (see the compile-fail cases);
    // across lists given separately, the builder refuses it.
    let twice = |list: fn() -> Vec<mcp_rounds::Handler>| {
        Server::builder("s", "1").handlers(list()).handlers(list()).build().unwrap_err()
    };
    assert_eq!(twice(|| handlers![add]), BuildError::DuplicateTool("add".into()));
    assert_eq!(twice(|| handlers![app_config]), BuildError::DuplicateResource("config://app".into()));
    assert_eq!(twice(|| handlers![review_note]), BuildError::DuplicatePrompt("review_note".into()));
}
