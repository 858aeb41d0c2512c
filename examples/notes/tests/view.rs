//! The notes board, an MCP Apps view: on the wire exactly as the extension defines it, over
//! stdio and HTTP in both protocol eras, and working in a real browser inside a host built on
//! the official `AppBridge`, its tool calls changing the notes on disk.

use mcp_rounds::client::{ChildProcess, Client, Lifecycle, StreamableHttp};
use mcp_rounds::model::{CallToolResult, ResourceContents};
use mcp_rounds_tests::apps_host::AppsHost;
use mcp_rounds_tests::client::bounded;
use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::node::NodeTools;
use mcp_rounds_tests::notes::NotesData;
use mcp_rounds_tests::python::target_dir;
use serde_json::{Value, json};

const BOARD: &str = include_str!("../views/board.html");
const UI: &str = "io.modelcontextprotocol/ui";
const UI_MIME: &str = "text/html;profile=mcp-app";

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_notes-server")
}

/// A client that does not render views: everything it gets must still make sense to it.
fn plain(lifecycle: Lifecycle) -> mcp_rounds::client::ClientBuilder {
    Client::builder().name("view-tests", "0").lifecycle(lifecycle)
}

async fn assert_board_on_the_wire(client: &Client, data: &NotesData, era: &str) {
    let extensions = client.server_capabilities().and_then(|c| c.extensions.clone()).unwrap_or_default();
    assert_eq!(serde_json::to_value(&extensions[UI]).unwrap(), json!({"mimeTypes": [UI_MIME]}), "{era}");

    let tools = client.list_all_tools().await.unwrap();
    let linked: Vec<&str> = tools
        .iter()
        .filter(|t| t.meta.as_ref().is_some_and(|m| m.contains_key("ui")))
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(linked, ["notes_list"], "{era}: only notes_list links the board");
    let meta = serde_json::to_value(&tools.iter().find(|t| t.name == "notes_list").unwrap().meta).unwrap();
    let link = meta["ui"]["resourceUri"].as_str().unwrap();
    let hash = link.strip_prefix("ui://notes/board?v=").unwrap_or_else(|| panic!("{era}: {link}"));
    assert!(hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit()), "{era}: {link}");
    assert_eq!(meta, json!({"ui": {"resourceUri": link}, "ui/resourceUri": link}), "{era}: visible to model and app");

    let read = client.read_resource(link).await.unwrap();
    let [ResourceContents::Text(view)] = read.contents.as_slice() else { panic!("{era}: one HTML text: {read:?}") };
    assert_eq!(
        (view.uri.as_str(), view.mime_type.as_deref(), view.text.as_str()),
        (link, Some(UI_MIME), BOARD),
        "{era}"
    );
    assert_eq!(serde_json::to_value(&view.meta).unwrap(), json!({"ui": {"prefersBorder": true}}), "{era}");
    let listed = client.list_all_resources().await.unwrap();
    let entry = listed.iter().find(|r| r.uri == link).unwrap_or_else(|| panic!("{era}: the board is listed"));
    assert_eq!(entry.mime_type.as_deref(), Some(UI_MIME), "{era}");

    let result = client.call_tool("notes_list", json!({"workspaceUri": data.workspace_uri()})).await.unwrap();
    assert_readable(&result, era);
}

/// `notes_list` says in words what its structured content holds: a line per note.
fn assert_readable(result: &CallToolResult, era: &str) {
    let structured = result.structured_content.as_ref().expect("the notes the board shows");
    let notes = structured["notes"].as_array().unwrap();
    let text = result.content[0].as_text().expect("a text block");
    assert!(serde_json::from_str::<Value>(text).is_err(), "{era}: text for a person, not JSON: {text}");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(format!("{} notes:", notes.len()).as_str()), "{era}: {text}");
    let expected: Vec<String> =
        notes.iter().map(|n| format!("- {} ({})", n["title"].as_str().unwrap(), n["id"].as_str().unwrap())).collect();
    assert_eq!(lines.map(str::to_owned).collect::<Vec<_>>(), expected, "{era}");
}

#[tokio::test]
async fn the_board_is_on_the_wire_exactly_over_stdio_and_http_in_both_eras() {
    for lifecycle in [Lifecycle::Discover, Lifecycle::Legacy] {
        let data = NotesData::new(&format!("view-stdio-{lifecycle:?}"));
        let child = ChildProcess::new(binary()).args(["--data", data.arg(), "--stdio"]);
        bounded("the board over stdio", async {
            let client = plain(lifecycle).connect(child).await.expect("connect over stdio");
            assert_board_on_the_wire(&client, &data, &format!("stdio {lifecycle:?}")).await;
            client.close().await;
        })
        .await;

        let data = NotesData::new(&format!("view-http-{lifecycle:?}"));
        let server = HttpProcess::spawn(binary(), &["--data", data.arg()]);
        let http = StreamableHttp::new(format!("http://{}/mcp", server.address)).bearer(data.token());
        bounded("the board over HTTP", async {
            let client = plain(lifecycle).connect(http).await.expect("connect over HTTP");
            assert_board_on_the_wire(&client, &data, &format!("HTTP {lifecycle:?}")).await;
            client.close().await;
        })
        .await;
        server.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_works_in_a_real_browser_through_the_official_app_bridge() {
    let node = NodeTools::install();
    let data = NotesData::new("view-browser");
    let server = HttpProcess::spawn(binary(), &["--data", data.arg()]);
    let http = StreamableHttp::new(format!("http://{}/mcp", server.address)).bearer(data.token());
    let client = plain(Lifecycle::Discover).connect(http).await.expect("connect over HTTP");
    let workspace = data.workspace_uri();
    let listed = client.call_tool("notes_list", json!({"workspaceUri": workspace})).await.unwrap();
    let notes = listed.structured_content.unwrap()["notes"].as_array().unwrap().clone();
    let titles: Vec<&str> = notes.iter().map(|n| n["title"].as_str().unwrap()).collect();
    let first = &notes[0];
    let text = client.call_tool("notes_read", json!({"workspaceUri": workspace, "id": first["id"]})).await.unwrap();
    let line =
        text.content[0].as_text().unwrap().lines().find(|l| !l.is_empty() && !l.starts_with('#')).unwrap().to_owned();

    let host = AppsHost::start(client, "notes_list", json!({"workspaceUri": workspace}), &node).await;
    assert_eq!(
        host.policy,
        "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
         media-src 'self' data:; connect-src 'none'",
        "the board declares no origins, so the host applies the specification's default, which allows no network"
    );
    let shots = target_dir().join("views");
    std::fs::create_dir_all(&shots).unwrap();
    let screenshot = shots.join("notes-board.png");
    let plan = json!({
        "url": host.url,
        "screenshot": screenshot,
        "titles": titles,
        "open": {"title": first["title"], "text": line},
        "edit": {"body": "Edited in the board."},
        "create": {"title": "Board retro", "body": "Written in the board, saved through the host."},
    });
    let mut browser = node.script("apps-browser.mjs");
    browser.arg(plan.to_string());
    let output = tokio::task::spawn_blocking(move || browser.output()).await.unwrap().expect("run the browser");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the browser: {stdout}\n{stderr}\nscreenshot: {}", screenshot.display());
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("the browser's report");

    assert_eq!(seen["steps"], json!(["titles shown", "note opened", "note edited", "note created"]), "{seen}");
    let shown: Vec<&str> = seen["titles"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    for title in titles.iter().chain(["Board retro"].iter()) {
        assert!(shown.contains(title), "{title:?} in the board: {shown:?}");
    }
    assert_eq!(seen["violations"], json!([]), "no CSP violation in the view or the proxy");
    assert_eq!(seen["consoleViolations"], json!([]), "no CSP violation reported to the console");
    assert_eq!(seen["errors"], json!([]), "no error in the host, the proxy or the view");
    assert_eq!(seen["hostState"], "tool result sent", "{seen}");
    // ...because none was tried: the policy holds when the view does try.
    assert_eq!(seen["probe"]["violation"]["directive"], "connect-src", "{seen}");
    assert!(seen["probe"]["fetchError"].is_string(), "the fetch failed: {seen}");

    // The view's calls went through the host to the server, and changed the notes on disk.
    let calls: Vec<(String, Value)> =
        host.calls().into_iter().map(|c| (c["name"].as_str().unwrap().to_owned(), c["arguments"].clone())).collect();
    let names: Vec<&str> = calls.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["notes_read", "notes_edit", "notes_list", "notes_create", "notes_list"], "{calls:?}");
    assert_eq!(calls[0].1, json!({"workspaceUri": workspace, "id": first["id"]}));
    assert_eq!(
        calls[1].1,
        json!({"workspaceUri": workspace, "id": first["id"], "title": first["title"], "body": "Edited in the board."})
    );
    assert_eq!(
        calls[3].1,
        json!({"workspaceUri": workspace, "title": "Board retro", "body": "Written in the board, saved through the host."})
    );
    let edited = std::fs::read_to_string(data.path.join(format!("workspace/{}.md", first["id"].as_str().unwrap())));
    assert!(edited.as_deref().is_ok_and(|text| text.contains("Edited in the board.")), "{edited:?}");
    assert!(data.notes().contains(&"board-retro".to_owned()), "{:?}", data.notes());
    let saved = std::fs::read_to_string(data.path.join("workspace/board-retro.md")).unwrap();
    assert!(saved.contains("# Board retro") && saved.contains("saved through the host"), "{saved}");
    for shot in [screenshot.clone(), shots.join("notes-board-opened.png")] {
        assert!(std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000), "a screenshot at {}", shot.display());
    }
    drop(host);
    server.stop();
}
