//! MCP Apps views as a client sees them: the tool's link, the view's listing and reads (under
//! every content hash), the extension in the capabilities, the per-request detection, and the
//! build errors for views that could not work in a host.

use mcp_rounds::apps::View;
use mcp_rounds::model::{ClientCapabilities, ResourceContents, UiCsp};
use mcp_rounds::testing::TestClient;
use mcp_rounds::{BuildError, Readable, RequestContext, Server, handlers, tool, view};
use serde_json::json;

const BOARD: &str = "<!doctype html><html><body><ul id=\"items\"></ul></body></html>";

/// The board.
#[view(
    "ui://todo/board",
    html = "<!doctype html><html><body><ul id=\"items\"></ul></body></html>",
    title = "To-do board",
    connect_domains("https://api.todo.example"),
    permissions("clipboard_write"),
    prefers_border
)]
struct Board;

/// A view its function renders per read, for the caller.
#[view("ui://todo/whoami")]
fn whoami(context: RequestContext) -> String {
    format!("<!doctype html><p>{}</p>", if context.renders_apps() { "rendering host" } else { "plain client" })
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Items {
    items: Vec<String>,
}

impl std::fmt::Display for Items {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} to do: {}", self.items.len(), self.items.join(", "))
    }
}

/// Lists the to-dos.
#[tool(ui = "ui://todo/board", read_only)]
fn todo_list() -> Readable<Items> {
    Readable(Items { items: vec!["milk".into(), "eggs".into()] })
}

/// Ticks one off: only the board calls it.
#[tool(visibility("app"), idempotent)]
fn todo_tick(item: String) -> String {
    format!("ticked {item}")
}

fn server() -> Server {
    Server::builder("todo", "1.0.0").handlers(handlers![Board, whoami, todo_list, todo_tick]).build().unwrap()
}

fn renders() -> ClientCapabilities {
    serde_json::from_value(
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}),
    )
    .unwrap()
}

#[tokio::test]
async fn a_tool_links_to_its_view_under_the_documents_hash() {
    let server = server();
    let client = TestClient::new(&server);
    let tools = client.list_tools().await.unwrap();
    let list = tools.iter().find(|t| t.name == "todo_list").unwrap();
    let meta = serde_json::to_value(&list.meta).unwrap();
    let link = meta["ui"]["resourceUri"].as_str().unwrap().to_owned();
    assert!(link.starts_with("ui://todo/board?v=") && link.len() == "ui://todo/board?v=".len() + 12, "{link}");
    assert_eq!(meta["ui/resourceUri"], link.as_str(), "the legacy key follows the same link");
    // App-only tools stay listed: hiding them is the host's business.
    let tick = tools.iter().find(|t| t.name == "todo_tick").unwrap();
    assert_eq!(serde_json::to_value(&tick.meta).unwrap(), json!({"ui": {"visibility": ["app"]}}));

    let listed = client.list_resources().await.unwrap();
    let board = listed.iter().find(|r| r.uri == link).expect("listed under the linked URI");
    assert_eq!(board.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    let declared = json!({"ui": {"csp": {"connectDomains": ["https://api.todo.example"]},
                                 "permissions": {"clipboardWrite": {}}, "prefersBorder": true}});
    assert_eq!(serde_json::to_value(&board.meta).unwrap(), declared);

    // The current hash, an old one and none all read the current document.
    for uri in [link.clone(), "ui://todo/board?v=000000000000".into(), "ui://todo/board".into()] {
        let read = client.read_resource(&uri).await.unwrap();
        let ResourceContents::Text(text) = &read.contents[0] else { panic!("a view is text") };
        assert_eq!((text.uri.as_str(), text.text.as_str()), (uri.as_str(), BOARD));
        assert_eq!(text.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
        assert_eq!(serde_json::to_value(&text.meta).unwrap(), declared);
        assert_eq!(read.ttl_ms > 0, uri == link, "only the hashed URI's content never changes");
    }

    let result = client.call_tool("todo_list", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("2 to do: milk, eggs"), "text a person reads, not JSON");
    assert_eq!(result.structured_content, Some(json!({"items": ["milk", "eggs"]})));
}

#[tokio::test]
async fn the_server_declares_the_extension_and_a_handler_sees_who_renders() {
    let server = server();
    let discover = TestClient::new(&server).discover().await.unwrap();
    let extensions = discover.capabilities.extensions.unwrap();
    assert_eq!(
        serde_json::to_value(&extensions["io.modelcontextprotocol/ui"]).unwrap(),
        json!({"mimeTypes": ["text/html;profile=mcp-app"]})
    );

    let read_as = |client: TestClient| async move {
        let read = client.read_resource("ui://todo/whoami").await.unwrap();
        let ResourceContents::Text(text) = &read.contents[0] else { panic!("a view is text") };
        assert_eq!(text.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
        assert!(text.meta.as_ref().unwrap().contains_key("ui"));
        text.text.clone()
    };
    assert!(read_as(TestClient::new(&server).with_capabilities(renders())).await.contains("rendering host"));
    assert!(read_as(TestClient::new(&server)).await.contains("plain client"));
}

#[test]
fn views_that_could_not_work_in_a_host_are_build_errors() {
    let build = |view: View| Server::builder("v", "1").view(view).build().map(|_| ()).unwrap_err();
    let page = |body: &str| format!("<!doctype html><html><body>{body}</body></html>");

    let relative = build(View::document("ui://v/a", "a", page("<script src=\"app.js\"></script>")));
    assert!(matches!(&relative, BuildError::InvalidView { view, .. } if view == "ui://v/a"));
    assert!(relative.to_string().contains("<script src=\"app.js\">"), "{relative}");

    let undeclared = build(View::document("ui://v/a", "a", page("<img src=\"https://img.example/x.png\">")));
    assert!(undeclared.to_string().contains("resourceDomains"), "{undeclared}");

    let csp = UiCsp::default().connect_domains(["https://api.example; script-src *"]);
    let bad_source = build(View::document("ui://v/a", "a", page("")).csp(csp));
    assert!(bad_source.to_string().contains("connectDomains"), "{bad_source}");

    let not_ui = build(View::document("https://v/a", "a", page("")));
    assert!(not_ui.to_string().contains("ui://"), "{not_ui}");
    let fragment = build(View::document("ui://v/a", "a", "<p>not a document</p>"));
    assert!(fragment.to_string().contains("<!doctype html>"), "{fragment}");

    let unknown = Server::builder("v", "1").handlers(handlers![todo_list]).build().map(|_| ()).unwrap_err();
    assert!(
        matches!(&unknown, BuildError::UnknownView { tool, view } if tool == "todo_list" && view == "ui://todo/board"),
        "{unknown}"
    );
}

#[tokio::test]
async fn a_rendered_view_that_loads_a_relative_file_is_never_served() {
    let view = View::rendered("ui://v/bad", "bad", |_: RequestContext| async {
        Ok("<!doctype html><script src=\"app.js\"></script>".to_owned())
    });
    let server = Server::builder("v", "1").view(view).build().unwrap();
    let refused = TestClient::new(&server).read_resource("ui://v/bad").await.unwrap_err();
    assert_eq!(refused.code, -32603);
}

/// A 2025-11-25 client declares the extension once, in `initialize`; each request of its
/// session is seen with it.
#[cfg(feature = "client")]
#[tokio::test]
async fn a_handler_sees_who_renders_in_both_eras() {
    use mcp_rounds::client::{Client, Lifecycle};
    use mcp_rounds::transport::in_process::InProcess;

    for lifecycle in [Lifecycle::Discover, Lifecycle::Legacy] {
        for (capabilities, expected) in [(renders(), "rendering host"), (ClientCapabilities::default(), "plain client")]
        {
            let client = Client::builder()
                .capabilities(capabilities)
                .lifecycle(lifecycle)
                .connect(InProcess::new(&server()))
                .await
                .unwrap();
            assert_eq!(client.protocol().is_legacy(), lifecycle == Lifecycle::Legacy);
            let read = client.read_resource("ui://todo/whoami").await.unwrap();
            let ResourceContents::Text(text) = &read.contents[0] else { panic!("a view is text") };
            assert!(text.text.contains(expected), "{lifecycle:?}: {}", text.text);
            let tools = client.list_all_tools().await.unwrap();
            let ui = tools.iter().find(|t| t.name == "todo_tick").and_then(|t| t.ui()).unwrap();
            assert_eq!(ui.visibility, Some(vec![mcp_rounds::model::Visibility::App]));
            client.close().await;
        }
    }
}
