//! Extractors and layers of the user's own: one extractor serves a tool, a prompt and a
//! resource alike, and a layer of the user's hands values to handlers.

use std::collections::HashMap;
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_rounds::dispatch::{McpRequest, McpResponse};
use mcp_rounds::extract::{Extension, FromRequest, RequestParts, Requirements};
use mcp_rounds::future::BoxFuture;
use mcp_rounds::middleware::TimeoutLayer;
use mcp_rounds::testing::TestClient;
use mcp_rounds::{BuildError, Principal, Rejection, Server, State, handlers, prompt, resource, tool};
use serde_json::json;

/// The workspaces of each principal, registered as server state.
struct Directory(HashMap<&'static str, &'static str>);

/// The caller's workspace: looked up, after a wait, in the server's directory.
struct Workspace(&'static str);

impl FromRequest for Workspace {
    fn requirements(requirements: &mut Requirements) {
        requirements.state::<Directory>();
    }

    async fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
        // A real lookup waits for something; so does this one.
        tokio::task::yield_now().await;
        let State(directory) = request.extract::<State<Directory>>().await?;
        let principal = request.principal().name().unwrap_or("anonymous");
        match directory.0.get(principal) {
            Some(workspace) => Ok(Workspace(workspace)),
            None => Err(Rejection::Argument(format!("{principal} has no workspace"))),
        }
    }
}

/// Says which workspace the caller works in.
#[tool(read_only)]
fn where_am_i(workspace: Workspace) -> String {
    format!("tool: {}", workspace.0)
}

/// Asks for a summary of the caller's workspace.
#[prompt]
fn summarize(workspace: Workspace, topic: String) -> String {
    format!("prompt: summarize {topic} in {}", workspace.0)
}

/// The caller's notes in one folder.
#[resource("notes://{folder}")]
fn folder(folder: String, workspace: Workspace) -> String {
    format!("resource: {folder} of {}", workspace.0)
}

fn server() -> Server {
    Server::builder("workspaces", "1.0.0")
        .state(Directory([("alice", "north"), ("bob", "south")].into_iter().collect()))
        .handlers(handlers![where_am_i, summarize, folder])
        .build()
        .unwrap()
}

#[tokio::test]
async fn one_extractor_serves_a_tool_a_prompt_and_a_resource() {
    let server = server();
    let alice = TestClient::new(&server).as_principal(Principal::new("alice"));
    let called = alice.call_tool("where_am_i", json!({})).await.unwrap();
    assert_eq!(called.content[0].as_text(), Some("tool: north"));
    let got = alice.get_prompt("summarize", json!({"topic": "tps"})).await.unwrap();
    assert_eq!(serde_json::to_value(&got.messages[0].content).unwrap()["text"], "prompt: summarize tps in north");
    let read = alice.read_resource("notes://drafts").await.unwrap();
    assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "resource: drafts of north");

    let bob = TestClient::new(&server).as_principal(Principal::new("bob"));
    assert_eq!(bob.call_tool("where_am_i", json!({})).await.unwrap().content[0].as_text(), Some("tool: south"));
}

#[tokio::test]
async fn a_refusing_extractor_answers_as_each_kind_of_handler_does() {
    let server = server();
    let stranger = TestClient::new(&server).as_principal(Principal::new("carol"));
    // A tool's refused parameter is a tool error the model can read...
    let called = stranger.call_tool("where_am_i", json!({})).await.unwrap();
    assert!(called.is_error());
    assert_eq!(called.content[0].as_text(), Some("carol has no workspace"));
    // ...a prompt's and a resource's is -32602.
    let refused = stranger.get_prompt("summarize", json!({"topic": "x"})).await.unwrap_err();
    assert_eq!((refused.code, refused.message.as_str()), (-32602, "carol has no workspace"));
    let refused = stranger.read_resource("notes://x").await.unwrap_err();
    assert_eq!(refused.code, -32602);
}

#[test]
fn what_an_extractor_requires_is_checked_when_the_server_is_built() {
    let missing = Server::builder("workspaces", "1.0.0").handlers(handlers![where_am_i]).build().unwrap_err();
    assert!(matches!(missing, BuildError::MissingState { ref handler, .. } if handler == "where_am_i"), "{missing:?}");
    // What `.expect(...)` prints says what to change, in Display's words.
    let printed = format!("{missing:?}");
    assert_eq!(printed, missing.to_string());
    assert!(printed.contains("add .state(...) to the builder"), "{printed}");
}

/// A layer of the user's own: it finds out the caller's team and hands it to handlers.
#[derive(Clone)]
struct Team<S>(S);

#[derive(Clone, Debug, PartialEq)]
struct TeamName(String);

impl<S> tower::Service<McpRequest> for Team<S>
where
    S: tower::Service<McpRequest, Response = McpResponse>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<McpResponse, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, mut request: McpRequest) -> Self::Future {
        let team = match request.principal().name() {
            Some("alice") => "blue",
            _ => "red",
        };
        request.extensions_mut().insert(TeamName(team.to_owned()));
        Box::pin(self.0.call(request))
    }
}

/// Names the caller's team.
#[tool(read_only)]
fn my_team(Extension(team): Extension<TeamName>) -> String {
    team.0
}

/// Takes its time.
#[prompt]
async fn slow_prompt() -> String {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "too late".to_owned()
}

#[tokio::test]
async fn a_users_layer_hands_values_to_handlers() {
    let server = Server::builder("teams", "1.0.0")
        .handlers(handlers![my_team])
        .layer(tower::layer::layer_fn(Team))
        .build()
        .unwrap();
    let alice = TestClient::new(&server).as_principal(Principal::new("alice"));
    assert_eq!(alice.call_tool("my_team", json!({})).await.unwrap().content[0].as_text(), Some("blue"));
    let anyone = TestClient::new(&server);
    assert_eq!(anyone.call_tool("my_team", json!({})).await.unwrap().content[0].as_text(), Some("red"));

    // Without the layer, the handler's extension is missing: a server bug, answered -32603.
    let bare = Server::builder("teams", "1.0.0").handlers(handlers![my_team]).build().unwrap();
    let refused = TestClient::new(&bare).call_tool("my_team", json!({})).await.unwrap_err();
    assert_eq!(refused.code, -32603);
}

#[tokio::test(start_paused = true)]
async fn a_method_past_the_timeout_that_is_no_tool_is_an_internal_error_naming_the_limit() {
    let server = Server::builder("slow", "1.0.0")
        .handlers(handlers![slow_prompt])
        .layer(TimeoutLayer::new(Duration::from_millis(250)))
        .build()
        .unwrap();
    let refused = TestClient::new(&server).get_prompt("slow_prompt", json!({})).await.unwrap_err();
    assert_eq!(refused.code, -32603);
    assert_eq!(refused.message, "The request did not finish within 250ms");
    assert_eq!(refused.data, Some(json!({"timeoutMs": 250})));
}
