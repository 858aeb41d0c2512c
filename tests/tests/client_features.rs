//! What a client user expects beyond one call, against the fixture server over stdio and HTTP:
//! listen streams of typed changes (and their end when dropped), results cached by their hints
//! and forgotten when the server says they changed, progress to the call that asked for it,
//! a call cancelled by dropping its future (or by its timeout), and tasks followed to their end.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_rounds::client::{Asking, ChildProcess, Client, ClientError, ClientHandler, Lifecycle, Notice, StreamableHttp};
use mcp_rounds::model::{
    CallToolRequestParams, ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationCapability, JsonObject,
    SubscriptionFilter, TASKS_EXTENSION, Task, TaskStatus,
};
use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::python::target_dir;
use serde_json::{Map, Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

/// A directory of its own for one test's notes and audit log.
fn scratch(name: &str) -> PathBuf {
    let dir = target_dir().join(format!("tmp/client-features-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every method the audit log recorded, in order.
fn audited(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["method"].as_str().unwrap().to_owned())
        .collect()
}

/// Waits for `condition`, checking again as time passes, for at most 20 s.
async fn eventually(what: &str, mut condition: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !condition().await {
        assert!(Instant::now() < deadline, "{what} did not happen within 20 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Answers every form with `go: true`, and records the tasks it was shown.
#[derive(Default)]
struct Agent {
    tasks: Mutex<Vec<TaskStatus>>,
}

impl ClientHandler for Agent {
    async fn elicit(&self, request: ElicitRequestParams, _asking: &Asking) -> Result<ElicitResult, mcp_rounds::Error> {
        let _ = request;
        let mut content = Map::new();
        content.insert("go".into(), json!(true));
        Ok(ElicitResult::accept(Some(content)))
    }

    fn task(&self, task: &Task) {
        self.tasks.lock().unwrap().push(task.status);
    }
}

fn capabilities() -> ClientCapabilities {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(ElicitationCapability::form());
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), JsonObject::new());
    capabilities.extensions = Some(extensions);
    capabilities
}

async fn over_stdio(dir: &Path, agent: &Arc<Agent>) -> Client {
    let fixture =
        ChildProcess::new(FIXTURE).args(["--tasks", "--notes"]).arg(dir).arg("--audit").arg(dir.join("audit.jsonl"));
    Client::builder().capabilities(capabilities()).handler(agent.clone()).connect(fixture).await.unwrap()
}

async fn over_http(dir: &Path, agent: &Arc<Agent>) -> (Client, HttpProcess) {
    let audit = dir.join("audit.jsonl");
    let args = ["--tasks", "--notes", dir.to_str().unwrap(), "--audit", audit.to_str().unwrap()];
    let server = HttpProcess::spawn(FIXTURE, &args);
    let url = format!("http://{}/mcp", server.address);
    let client =
        Client::builder().capabilities(capabilities()).handler(agent.clone()).connect(StreamableHttp::new(url)).await;
    (client.unwrap(), server)
}

async fn listen_and_cache(client: &Client, dir: &Path) {
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = Some(true);
    filter.resource_subscriptions = Some(vec!["fixture://readme".into()]);
    let mut changes = client.listen(filter).await.unwrap();
    let Some(Ok(Notice::Acknowledged(agreed))) = changes.next().await else { panic!("acknowledged first") };
    assert_eq!(agreed.tools_list_changed, Some(true));
    assert_eq!(client.call_tool("listeners", json!({})).await.unwrap().content[0].as_text(), Some("1"));

    // The read-me is public for a minute: the second read is the cache's.
    let first = client.read_resource("fixture://readme").await.unwrap();
    assert_eq!(client.read_resource("fixture://readme").await.unwrap(), first);
    let reads = || audited(&dir.join("audit.jsonl")).iter().filter(|m| *m == "resources/read").count();
    assert_eq!(reads(), 1, "{:?}", audited(&dir.join("audit.jsonl")));

    client.call_tool("announce", json!({"kind": "tools"})).await.unwrap();
    assert_eq!(changes.next().await.unwrap().unwrap(), Notice::ToolsListChanged);
    client.call_tool("announce", json!({"kind": "updated", "uri": "fixture://readme"})).await.unwrap();
    let updated = changes.next().await.unwrap().unwrap();
    assert_eq!(updated, Notice::ResourceUpdated { uri: "fixture://readme".into() });
    // Said to have changed: read from the server again.
    client.read_resource("fixture://readme").await.unwrap();
    assert_eq!(reads(), 2);

    // Dropping the stream ends it on the server.
    drop(changes);
    eventually("the listen stream ending", async || {
        client.call_tool("listeners", json!({})).await.unwrap().content[0].as_text() == Some("0")
    })
    .await;
}

#[tokio::test]
async fn listen_and_cache_over_stdio() {
    let dir = scratch("listen-stdio");
    let client = over_stdio(&dir, &Arc::default()).await;
    listen_and_cache(&client, &dir).await;
    client.close().await;
}

#[tokio::test]
async fn listen_and_cache_over_http() {
    let dir = scratch("listen-http");
    let (client, _server) = over_http(&dir, &Arc::default()).await;
    listen_and_cache(&client, &dir).await;
}

async fn progress_cancel_and_tasks(client: &Client, dir: &Path, agent: &Agent) {
    // Progress goes to the call that asked for it.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    let mut arguments = Map::new();
    arguments.insert("steps".into(), json!(3));
    let params = CallToolRequestParams::new("progress", arguments);
    let done = client.call_tool_with_progress(params, move |p| kept.lock().unwrap().push(p.progress)).await.unwrap();
    assert_eq!(done.content[0].as_text(), Some("done in 3 steps"));
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);

    // A call whose future is dropped is cancelled on the server (here a task: `tasks/cancel`).
    let call = client.call_tool("slow_task", json!({"ms": 60_000, "label": "dropped"}));
    let waited = tokio::time::timeout(Duration::from_millis(300), call).await;
    assert!(waited.is_err(), "a minute's work is not done in 300 ms");
    eventually("the server seeing the cancel", async || dir.join("dropped.cancelled").exists()).await;

    // A task, followed to its end; then a task that asks twice on the way.
    let result = client.call_tool("slow_task", json!({"ms": 40, "label": "task"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("task done after 40 ms"));
    let statuses = agent.tasks.lock().unwrap().clone();
    assert_eq!(statuses.first(), Some(&TaskStatus::Working), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&TaskStatus::Completed), "{statuses:?}");
    let asked = client.call_tool("asking_task", json!({})).await.unwrap();
    assert_eq!(asked.content[0].as_text(), Some("went on twice"));
    assert!(agent.tasks.lock().unwrap().contains(&TaskStatus::InputRequired));
}

#[tokio::test]
async fn progress_cancel_and_tasks_over_stdio() {
    let dir = scratch("tasks-stdio");
    let agent = Arc::new(Agent::default());
    let client = over_stdio(&dir, &agent).await;
    progress_cancel_and_tasks(&client, &dir, &agent).await;
}

#[tokio::test]
async fn progress_cancel_and_tasks_over_http() {
    let dir = scratch("tasks-http");
    let agent = Arc::new(Agent::default());
    let (client, _server) = over_http(&dir, &agent).await;
    progress_cancel_and_tasks(&client, &dir, &agent).await;
}

/// A call that outlives the client's timeout fails with a typed error and is cancelled on the
/// server: `notifications/cancelled` on stdio, the response stream closed over HTTP.
async fn times_out(client: Client, dir: &Path) {
    let error = client.call_tool("sleep", json!({"ms": 60_000})).await.unwrap_err();
    assert!(matches!(error, ClientError::Timeout { .. }), "{error}");
    assert!(error.is_timeout());
    // The audit layer records a request the client gave up on as cancelled.
    let log = dir.join("audit.jsonl");
    eventually("the server seeing the cancel", async || {
        std::fs::read_to_string(&log).unwrap_or_default().lines().any(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            record["method"] == "tools/call" && record["outcome"] == "Cancelled"
        })
    })
    .await;
}

#[tokio::test]
async fn a_request_timeout_is_a_typed_error_and_a_cancel_over_stdio() {
    let dir = scratch("timeout-stdio");
    let fixture = ChildProcess::new(FIXTURE).arg("--audit").arg(dir.join("audit.jsonl"));
    let client = Client::builder().request_timeout(Duration::from_millis(300)).connect(fixture).await.unwrap();
    times_out(client, &dir).await;
}

#[tokio::test]
async fn a_request_timeout_is_a_typed_error_and_a_cancel_over_http() {
    let dir = scratch("timeout-http");
    let audit = dir.join("audit.jsonl");
    let server = HttpProcess::spawn(FIXTURE, &["--audit", audit.to_str().unwrap()]);
    let http = StreamableHttp::new(format!("http://{}/mcp", server.address));
    let client = Client::builder().request_timeout(Duration::from_millis(300)).connect(http).await.unwrap();
    times_out(client, &dir).await;
}

#[tokio::test]
async fn a_2025_11_25_session_listens_to_its_own_notifications() {
    let dir = scratch("legacy-listen");
    let fixture = ChildProcess::new(FIXTURE).arg("--notes").arg(&dir);
    let client = Client::builder().lifecycle(Lifecycle::Legacy).connect(fixture).await.unwrap();
    assert!(client.protocol().is_legacy());
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = Some(true);
    filter.resource_subscriptions = Some(vec!["fixture://items/1".into()]);
    let mut changes = client.listen(filter).await.unwrap();
    assert!(matches!(changes.next().await, Some(Ok(Notice::Acknowledged(_)))));
    client.call_tool("announce", json!({"kind": "updated", "uri": "fixture://items/1"})).await.unwrap();
    assert_eq!(changes.next().await.unwrap().unwrap(), Notice::ResourceUpdated { uri: "fixture://items/1".into() });
    client.call_tool("announce", json!({"kind": "tools"})).await.unwrap();
    assert_eq!(changes.next().await.unwrap().unwrap(), Notice::ToolsListChanged);
    client.close().await;
}

/// A TCP proxy in front of a server whose connections the test can cut, as a network fault
/// would, while the server itself stays up.
struct Proxy {
    address: String,
    cut: tokio::sync::watch::Sender<u64>,
}

impl Proxy {
    async fn start(upstream: String) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let (cut, cuts) = tokio::sync::watch::channel(0u64);
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let mut cuts = cuts.clone();
                cuts.borrow_and_update();
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(&upstream).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cuts.changed() => {}
                    }
                });
            }
        });
        Proxy { address, cut }
    }

    /// Drops every connection open now.
    fn cut(&self) {
        self.cut.send_modify(|n| *n += 1);
    }
}

#[tokio::test]
async fn a_listen_stream_cut_by_the_network_listens_again() {
    let server = HttpProcess::spawn(FIXTURE, &[]);
    let proxy = Proxy::start(server.address.clone()).await;
    let http = StreamableHttp::new(format!("http://{}/mcp", proxy.address));
    let client = Client::builder().connect(http).await.unwrap();
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = Some(true);
    let mut changes = client.listen(filter).await.unwrap();
    assert!(matches!(changes.next().await, Some(Ok(Notice::Acknowledged(_)))));
    proxy.cut();
    assert_eq!(changes.next().await.unwrap().unwrap(), Notice::Relistened);
    assert!(matches!(changes.next().await, Some(Ok(Notice::Acknowledged(_)))), "the new stream is acknowledged");
    client.call_tool("announce", json!({"kind": "tools"})).await.unwrap();
    assert_eq!(changes.next().await.unwrap().unwrap(), Notice::ToolsListChanged);
}

#[tokio::test]
async fn a_2025_11_25_session_is_sent_the_cancel_of_a_call_given_up_on() {
    let dir = scratch("timeout-legacy");
    let fixture = ChildProcess::new(FIXTURE).arg("--audit").arg(dir.join("audit.jsonl"));
    let client = Client::builder()
        .lifecycle(Lifecycle::Legacy)
        .request_timeout(Duration::from_millis(300))
        .connect(fixture)
        .await
        .unwrap();
    times_out(client, &dir).await;
}

#[tokio::test]
async fn a_quiet_listen_stream_outlives_the_idle_timeout_that_bounds_every_answer() {
    let dir = scratch("idle-listen");
    let server = HttpProcess::spawn(FIXTURE, &["--notes", dir.to_str().unwrap()]);
    let url = format!("http://{}/mcp", server.address);
    let idle = Duration::from_millis(200);
    let client = Client::builder().idle_timeout(idle).connect(StreamableHttp::new(url)).await.unwrap();
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = Some(true);
    let mut changes = client.listen(filter).await.unwrap();
    let Some(Ok(Notice::Acknowledged(_))) = changes.next().await else { panic!("acknowledged first") };
    // An answer slower to start than the idle timeout fails it; meanwhile the stream, quiet
    // for far longer, stays open.
    for _ in 0..3 {
        let slow = client.call_tool("sleep", json!({"ms": 1000})).await.expect_err("a second of silence");
        assert!(slow.is_timeout(), "{slow:?}");
    }
    client.call_tool("announce", json!({"kind": "tools"})).await.unwrap();
    assert_eq!(changes.next().await.unwrap().unwrap(), Notice::ToolsListChanged, "the same stream, not reopened");
}
