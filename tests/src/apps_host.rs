//! A minimal MCP Apps web host, as a browser test needs one: a host page built on the official
//! `AppBridge` (npm `@modelcontextprotocol/ext-apps`, bundled once with esbuild), a backend
//! that reaches the MCP server with the mcp-rounds client (a page cannot: the server checks
//! Origin and wants a token), and a sandbox proxy on a second origin that enforces the view's
//! CSP with an HTTP header, built as the extension's specification asks of web hosts.
//!
//! The host shows one tool call: it reads the view the tool links to, calls the tool, and
//! hands the view the input and the real result. The view's own tool calls go through the
//! backend, which refuses a tool whose visibility leaves out the app, as a host must.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mcp_rounds::client::Client;
use mcp_rounds::model::{ResourceContents, Tool, UiCsp, Visibility};
use serde_json::{Value, json};

use crate::node::NodeTools;

const HOST_PAGE: &str = include_str!("../node/apps-host/host.html");
const HOST_SCRIPT: &str = include_str!("../node/apps-host/host.js");
const SANDBOX_PAGE: &str = include_str!("../node/apps-host/sandbox.html");

/// A running host: its page, and every tool call the view made through it.
pub struct AppsHost {
    /// The host page's URL (on 127.0.0.1).
    pub url: String,
    /// The sandbox proxy's origin (on localhost: another origin, and another site).
    pub sandbox_origin: String,
    /// The CSP the sandbox serves the view with.
    pub policy: String,
    shared: Arc<Shared>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

struct Shared {
    client: Client,
    tools: Vec<Tool>,
    /// What the page hands the bridge: the view's HTML and declarations, the tool input and its result.
    render: Value,
    policy: String,
    host_origin: String,
    bridge: String,
    calls: Mutex<Vec<Value>>,
}

impl AppsHost {
    /// Reads the view `tool` links to, calls it with `arguments`, and serves the host and the
    /// sandbox for a browser to open.
    pub async fn start(client: Client, tool: &str, arguments: Value, node: &NodeTools) -> AppsHost {
        let tools = client.list_all_tools().await.expect("tools/list");
        let linked = tools.iter().find(|t| t.name == tool).unwrap_or_else(|| panic!("no tool {tool}"));
        let uri = linked.ui().and_then(|ui| ui.resource_uri).expect("the tool links a view");
        let read = client.read_resource(&uri).await.expect("resources/read of the view");
        let Some(ResourceContents::Text(view)) = read.contents.first() else { panic!("a view is HTML text") };
        assert_eq!(view.mime_type.as_deref(), Some("text/html;profile=mcp-app"), "the view's MIME type");
        let declared = view.meta.as_ref().map_or(Value::Null, |m| m["ui"].clone());
        let csp: Option<UiCsp> = serde_json::from_value(declared["csp"].clone()).expect("a CSP the extension defines");
        let result = client.call_tool(tool, &arguments).await.expect("the tool's result");
        let render = json!({
            "html": view.text,
            "csp": declared["csp"],
            "permissions": declared["permissions"],
            "prefersBorder": declared["prefersBorder"],
            "toolInput": {"arguments": arguments},
            "toolResult": result,
        });

        let host = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the host");
        let sandbox = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the sandbox");
        let host_origin = format!("http://127.0.0.1:{}", port(&host));
        let sandbox_origin = format!("http://localhost:{}", port(&sandbox));
        let policy = content_security_policy(csp.as_ref());
        let shared = Arc::new(Shared {
            client,
            tools,
            render,
            policy: policy.clone(),
            host_origin: host_origin.clone(),
            bridge: bundle_app_bridge(node),
            calls: Mutex::new(Vec::new()),
        });
        let config = json!({"sandbox": format!("{sandbox_origin}/sandbox.html")});
        let host_routes = Router::new()
            .route("/", get(|| async { html(HOST_PAGE.to_owned()) }))
            .route("/host.js", get(|| async { script(HOST_SCRIPT.to_owned()) }))
            .route("/app-bridge.js", get(|State(s): State<Arc<Shared>>| async move { script(s.bridge.clone()) }))
            .route("/api/config", get(move || async move { axum::Json(config) }))
            .route("/api/render", get(|State(s): State<Arc<Shared>>| async move { axum::Json(s.render.clone()) }))
            .route("/api/tools/call", post(call_tool))
            // Browsers ask for it; a 404 would be an error in the page's console.
            .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
            .with_state(shared.clone());
        let sandbox_routes = Router::new()
            .route("/sandbox.html", get(sandbox_page))
            .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
            .with_state(shared.clone());
        let tasks = vec![
            tokio::spawn(async move { axum::serve(host, host_routes).await.expect("serve the host") }),
            tokio::spawn(async move { axum::serve(sandbox, sandbox_routes).await.expect("serve the sandbox") }),
        ];
        AppsHost { url: format!("{host_origin}/"), sandbox_origin, policy, shared, tasks }
    }

    /// The tool calls the view made, in order: `{"name": ..., "arguments": ...}`.
    pub fn calls(&self) -> Vec<Value> {
        self.shared.calls.lock().unwrap().clone()
    }
}

impl Drop for AppsHost {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

fn port(listener: &tokio::net::TcpListener) -> u16 {
    listener.local_addr().map(|a: SocketAddr| a.port()).expect("a bound port")
}

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], body).into_response()
}

fn script(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], body)
        .into_response()
}

/// The proxy page, under the view's CSP (which the view's document inherits), told which
/// origin alone it talks to.
async fn sandbox_page(State(shared): State<Arc<Shared>>) -> Response {
    let page = SANDBOX_PAGE.replace("__HOST_ORIGIN__", &shared.host_origin);
    let mut response = html(page);
    response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, shared.policy.parse().expect("a header value"));
    response
}

/// A `tools/call` from the view, made with the host's client unless the tool is not the app's
/// to call.
async fn call_tool(State(shared): State<Arc<Shared>>, axum::Json(params): axum::Json<Value>) -> Response {
    let name = params["name"].as_str().unwrap_or_default().to_owned();
    shared.calls.lock().unwrap().push(params.clone());
    let Some(tool) = shared.tools.iter().find(|t| t.name == name) else {
        return (StatusCode::NOT_FOUND, format!("no tool {name}")).into_response();
    };
    if tool.ui().and_then(|ui| ui.visibility).is_some_and(|who| !who.contains(&Visibility::App)) {
        return (StatusCode::FORBIDDEN, format!("{name} is not visible to apps")).into_response();
    }
    match shared.client.call_tool(&name, &params["arguments"]).await {
        Ok(result) => axum::Json(result).into_response(),
        Err(error) => (StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
    }
}

/// The CSP a web host serves a view under, from its `_meta.ui.csp` as the extension's
/// specification builds it, or the specification's default when the view declares none.
fn content_security_policy(csp: Option<&UiCsp>) -> String {
    let Some(csp) = csp else {
        return "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; \
                img-src 'self' data:; media-src 'self' data:; connect-src 'none'"
            .to_owned();
    };
    let list = |sources: &Option<Vec<String>>| sources.iter().flatten().cloned().collect::<Vec<_>>().join(" ");
    let (resources, connect) = (list(&csp.resource_domains), list(&csp.connect_domains));
    let frames = Some(list(&csp.frame_domains)).filter(|s| !s.is_empty()).unwrap_or("'none'".into());
    let base = Some(list(&csp.base_uri_domains)).filter(|s| !s.is_empty()).unwrap_or("'self'".into());
    [
        "default-src 'none'".to_owned(),
        format!("script-src 'self' 'unsafe-inline' {resources}"),
        format!("style-src 'self' 'unsafe-inline' {resources}"),
        format!("connect-src 'self' {connect}"),
        format!("img-src 'self' data: {resources}"),
        format!("font-src 'self' {resources}"),
        format!("media-src 'self' data: {resources}"),
        format!("frame-src {frames}"),
        "object-src 'none'".to_owned(),
        format!("base-uri {base}"),
    ]
    .map(|directive| directive.trim().to_owned())
    .join("; ")
}

/// `AppBridge` and its transport as one browser module, bundled from the pinned packages once
/// per install.
fn bundle_app_bridge(node: &NodeTools) -> String {
    let out: PathBuf = node.dir().join("app-bridge.bundle.js");
    if !out.exists() {
        let temporary = node.dir().join(format!(".app-bridge.{}.js", std::process::id()));
        let status = node
            .command("esbuild")
            .arg(node.dir().join("app-bridge-entry.mjs"))
            .args(["--bundle", "--format=esm", "--platform=browser", "--log-level=warning"])
            .arg(format!("--outfile={}", temporary.display()))
            .status()
            .expect("run esbuild");
        assert!(status.success(), "esbuild could not bundle AppBridge: {status}");
        std::fs::rename(&temporary, &out).expect("move the bundle into place");
    }
    std::fs::read_to_string(&out).expect("read the AppBridge bundle")
}
