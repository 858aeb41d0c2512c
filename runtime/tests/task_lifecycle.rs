//! Tasks over their whole life: expiry and pruning, and a task whose instance stopped.

use std::time::Duration;

use serde_json::json;

use mcp_rounds::model::{CallToolResult, ClientCapabilities, JsonObject, TASKS_EXTENSION, TaskStatus, Tool};
use mcp_rounds::tasks::{MemoryTaskStore, TaskStore, TaskSupport};
use mcp_rounds::testing::{TestClient, task_record};
use mcp_rounds::{Server, ToolCall, ToolRoute};

fn slow() -> ToolRoute {
    ToolRoute::new(Tool::new("slow", Tool::no_arguments_schema()), |_call: ToolCall| async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok(CallToolResult::text("slept").into())
    })
    .task_support(TaskSupport::Optional)
}

fn client(server: &Server) -> TestClient {
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), JsonObject::new());
    let mut capabilities = ClientCapabilities::default();
    capabilities.extensions = Some(extensions);
    TestClient::new(server).with_capabilities(capabilities)
}

#[tokio::test]
async fn an_expired_task_is_unknown_and_gets_pruned() {
    let store = MemoryTaskStore::default();
    let server = Server::builder("s", "1")
        .tool(slow())
        .task_store(store.clone())
        .task_ttl(Some(Duration::from_secs(3600)))
        .build()
        .unwrap();
    let client = client(&server);
    let created = client.request_raw("tools/call", json!({"name": "slow"})).await;
    assert_eq!(created["result"]["ttlMs"], 3_600_000, "the client is told the configured lifetime");
    // A task whose lifetime ran out long ago (no need to wait for one to).
    let mut old = task_record("old");
    old.principal = None;
    old.created_at_ms = now_ms() - 60_000;
    old.ttl_ms = Some(1);
    store.create(&old).await.unwrap();
    let expired = client.request_raw("tasks/get", json!({"taskId": "old"})).await;
    assert_eq!(expired["error"]["code"], -32602, "{expired}");
    assert_eq!(expired["error"]["message"], "Task has expired: old");
    assert_eq!(store.prune(now_ms()).await.unwrap(), 1, "only the expired one");
    let gone = client.request_raw("tasks/get", json!({"taskId": "old"})).await;
    assert_eq!(gone["error"]["message"], "Unknown task: old");
    let task = created["result"]["taskId"].as_str().unwrap();
    let kept = client.request_raw("tasks/get", json!({"taskId": task})).await;
    assert!(kept["result"]["status"].is_string(), "{kept}");
}

#[tokio::test]
async fn a_task_whose_instance_stopped_renewing_is_reported_failed_once() {
    let store = MemoryTaskStore::default();
    let server = Server::builder("s", "1").tool(slow()).task_store(store.clone()).build().unwrap();
    // Left by an instance that died: working, its lease long gone, nobody here runs it.
    let mut orphan = task_record("orphan");
    orphan.principal = None;
    orphan.ttl_ms = None;
    orphan.lease_until_ms = Some(now_ms() - 1);
    store.create(&orphan).await.unwrap();
    let client = client(&server);
    let seen = client.request_raw("tasks/get", json!({"taskId": "orphan"})).await;
    assert_eq!(seen["result"]["status"], "failed", "{seen}");
    assert_eq!(seen["result"]["error"]["code"], -32603);
    let stored = store.get("orphan").await.unwrap().unwrap();
    assert_eq!(stored.status, TaskStatus::Failed);
    assert_eq!(stored.version, 2, "failed exactly once");
    let again = client.request_raw("tasks/get", json!({"taskId": "orphan"})).await;
    assert_eq!(again["result"]["status"], "failed");
    assert_eq!(store.get("orphan").await.unwrap().unwrap().version, 2);

    // A task whose lease is still good stays working.
    let mut alive = task_record("alive");
    alive.principal = None;
    alive.ttl_ms = None;
    alive.lease_until_ms = Some(now_ms() + 60_000);
    store.create(&alive).await.unwrap();
    let seen = client.request_raw("tasks/get", json!({"taskId": "alive"})).await;
    assert_eq!(seen["result"]["status"], "working");
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}
