//! The protocol's operations on tasks (a `tools/call` that becomes one, `tasks/get`,
//! `tasks/update`, `tasks/cancel`) and the worker that drives a task's tool to its end.
//!
//! Every change to a task is a compare-and-swap on its version, so instances sharing a store
//! never overwrite each other: the first terminal status wins (a cancellation is not undone by
//! a tool that finishes afterwards), and two partial answers both land.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::task::Poll;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{TaskRecord, TasksConfig, now_ms};
use crate::changes::{ChangeEvent, Changes};
use crate::context::{Principal, RequestContext};
use crate::error::{Error, ErrorCode};
use crate::future::{BoxFuture, CatchPanic};
use crate::jsonrpc::{ErrorObject, RequestId, encode_result};
use crate::model::{
    CallToolResult, ClientCapabilities, CreateTaskResult, DetailedTask, Outcome, RequestMeta, TaskResultType,
    TaskStatus,
};
use crate::server::Inner;
use crate::tool::{ToolCall, ToolRoute};
use crate::version::LATEST_PROTOCOL_VERSION;

/// A tool call on its way to an outcome.
type Work = BoxFuture<'static, Result<Outcome<CallToolResult>, Error>>;

/// How many times a change is retried when other writers keep changing the task.
const MAX_ATTEMPTS: usize = 32;

fn store_error(error: &super::StoreError) -> Error {
    tracing::error!(%error, "task store failed");
    Error::internal()
}

fn unknown(id: &str) -> Error {
    Error::invalid_params(format!("Unknown task: {id}")).with_data(json!({ "taskId": id }))
}

fn work_of(route: &ToolRoute, call: ToolCall) -> Work {
    let handler = route.handler.clone();
    Box::pin(async move {
        CatchPanic(Box::pin(async move { handler.call(call).await })).await.unwrap_or_else(|()| Err(Error::internal()))
    })
}

/// Runs a call of a task tool from a client that declared the extension: answered directly
/// when it finishes (or asks a round) without waiting, as a task otherwise.
pub(crate) async fn start(
    inner: &Arc<Inner>,
    id: &RequestId,
    route: &ToolRoute,
    mut call: ToolCall,
) -> Result<Vec<u8>, Error> {
    let config = inner.tasks.clone();
    let token = CancellationToken::new();
    let principal = call.context.principal().name().map(str::to_owned);
    let capabilities = serde_json::to_value(call.context.client_capabilities()).unwrap_or_else(|_| json!({}));
    let arguments = call.arguments.clone();
    // The task has a cancellation of its own: closing the request's stream must not end it.
    // Its progress and log messages stop when the request is answered with the task.
    let (context, stream) = call.context.with_gated_stream();
    call.context = context.with_cancellation(token.clone()).with_task_detach(Some(Arc::new(AtomicBool::new(false))));
    let mut work = work_of(route, call);

    if let Poll::Ready(outcome) = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await {
        let mut outcome = outcome?;
        crate::router::stamp(outcome.result_meta_mut(), inner);
        return Ok(encode_result(id, &outcome));
    }

    let now = now_ms();
    let record = TaskRecord {
        id: crate::ids::random_id(),
        version: 1,
        principal,
        tool: route.name.to_string(),
        arguments,
        client_capabilities: capabilities,
        status: TaskStatus::Working,
        status_message: None,
        created_at_ms: now,
        updated_at_ms: now,
        ttl_ms: config.ttl.map(|ttl| ttl.as_millis() as u64),
        poll_interval_ms: config.poll_interval.as_millis() as u64,
        lease_until_ms: Some(now + config.lease.as_millis() as i64),
        round: 0,
        input_requests: Default::default(),
        input_responses: Default::default(),
        request_state: None,
        result: None,
        error: None,
    };
    config.prune_now_and_then(now).await;
    // Durable before the client hears of it: a tasks/get right after the answer finds it.
    config.store.create(&record).await.map_err(|e| store_error(&e))?;
    if let Some(stream) = stream {
        stream.store(false, std::sync::atomic::Ordering::Relaxed);
    }
    let task = record.task();
    spawn_worker(inner.clone(), record.id, work, token);
    let mut created = CreateTaskResult { result_type: TaskResultType, task, meta: Default::default() };
    crate::router::stamp(&mut created.meta, inner);
    Ok(encode_result(id, &created))
}

/// Drives `work` to its end, renewing the task's lease meanwhile and noticing a cancellation
/// made on another instance, then records the outcome.
fn spawn_worker(inner: Arc<Inner>, id: String, work: Work, token: CancellationToken) {
    let config = inner.tasks.clone();
    config.running.lock().expect("running tasks lock").insert(id.clone(), token.clone());
    tokio::spawn(async move {
        let mut work = work;
        let every = (config.lease / 5).clamp(std::time::Duration::from_millis(50), std::time::Duration::from_secs(3));
        let mut ticker = tokio::time::interval(every);
        ticker.tick().await;
        let outcome = loop {
            tokio::select! {
                outcome = &mut work => break outcome,
                _ = ticker.tick() => renew(&config, &id, &token).await,
            }
        };
        config.running.lock().expect("running tasks lock").remove(&id);
        settle(&inner, &id, outcome).await;
    });
}

/// Renews the lease when it runs short; cancels the work when the task was cancelled (or
/// vanished) meanwhile.
async fn renew(config: &TasksConfig, id: &str, token: &CancellationToken) {
    for _ in 0..MAX_ATTEMPTS {
        let mut task = match config.store.get(id).await {
            Ok(Some(task)) => task,
            Ok(None) => return token.cancel(),
            Err(error) => {
                tracing::warn!(%error, "task lease could not be read");
                return;
            }
        };
        if task.status != TaskStatus::Working {
            return token.cancel();
        }
        let now = now_ms();
        let lease = config.lease.as_millis() as i64;
        if task.lease_until_ms.is_some_and(|until| until - now > lease / 2) {
            return;
        }
        task.version += 1;
        task.lease_until_ms = Some(now + lease);
        match config.store.replace(&task).await {
            Ok(true) => return,
            Ok(false) => continue,
            Err(error) => {
                tracing::warn!(%error, "task lease could not be renewed");
                return;
            }
        }
    }
}

/// Applies `change` to the task until it sticks; `None` when the task is gone, or `change`
/// declined (returned false), or the store failed.
async fn change(
    config: &TasksConfig,
    id: &str,
    mut change: impl FnMut(&mut TaskRecord) -> bool,
) -> Result<Option<TaskRecord>, Error> {
    for _ in 0..MAX_ATTEMPTS {
        let Some(mut task) = config.store.get(id).await.map_err(|e| store_error(&e))? else { return Ok(None) };
        if !change(&mut task) {
            return Ok(None);
        }
        task.version += 1;
        task.updated_at_ms = now_ms();
        if config.store.replace(&task).await.map_err(|e| store_error(&e))? {
            return Ok(Some(task));
        }
    }
    tracing::error!(task = id, "task kept changing under this update");
    Err(Error::internal())
}

fn announce(changes: &Changes, id: &str) {
    changes.announce(ChangeEvent::TaskUpdated(id.into()));
}

/// Records how a run of the task's tool ended.
async fn settle(inner: &Arc<Inner>, id: &str, outcome: Result<Outcome<CallToolResult>, Error>) {
    let config = &inner.tasks;
    // A round that asks nothing (the tool shed load) is simply run again.
    if let Ok(Outcome::InputRequired(asked)) = &outcome
        && asked.input_requests.as_ref().is_none_or(|r| r.is_empty())
    {
        let state = asked.request_state.clone();
        let resumed = change(config, id, |task| {
            task.request_state = state.clone();
            task.input_responses.clear();
            task.status == TaskStatus::Working
        })
        .await;
        if let Ok(Some(task)) = resumed {
            resume(inner, task);
        }
        return;
    }
    let applied = change(config, id, |task| {
        if task.status.is_terminal() {
            // Cancelled meanwhile: that stands.
            return false;
        }
        task.lease_until_ms = None;
        task.input_requests.clear();
        task.input_responses.clear();
        match &outcome {
            Ok(Outcome::Complete(result)) => {
                task.status = TaskStatus::Completed;
                task.status_message = None;
                task.request_state = None;
                task.result = Some(serde_json::to_value(result).unwrap_or(Value::Null));
            }
            Ok(Outcome::InputRequired(asked)) => {
                task.status = TaskStatus::InputRequired;
                task.status_message = Some("Waiting for answers: send them with tasks/update".to_owned());
                task.round += 1;
                task.request_state = asked.request_state.clone();
                task.input_requests = asked
                    .input_requests
                    .iter()
                    .flatten()
                    .map(|(key, request)| (key.clone(), serde_json::to_value(request).unwrap_or(Value::Null)))
                    .collect();
            }
            Err(error) => {
                task.status = TaskStatus::Failed;
                task.status_message = Some(error.message().to_owned());
                task.request_state = None;
                task.error = Some(serde_json::to_value(ErrorObject::from(error)).unwrap_or(Value::Null));
            }
        }
        true
    })
    .await;
    match applied {
        Ok(Some(_)) => announce(&inner.shared.changes, id),
        Ok(None) => tracing::debug!(task = id, "task ended after it was cancelled; its outcome is dropped"),
        Err(_) => tracing::error!(task = id, "the outcome of a task could not be recorded"),
    }
}

/// Runs the task's tool again with the answers it collected (on whichever instance received
/// the last of them).
fn resume(inner: &Arc<Inner>, task: TaskRecord) {
    let Some(route) = inner.tools.get(task.tool.as_str()) else {
        let error = Error::new(ErrorCode::InternalError, format!("The tool {} is no longer served", task.tool));
        let inner = inner.clone();
        tokio::spawn(async move { settle(&inner, &task.id, Err(error)).await });
        return;
    };
    let capabilities: ClientCapabilities = serde_json::from_value(task.client_capabilities.clone()).unwrap_or_default();
    let principal = task.principal.as_deref().map_or_else(Principal::anonymous, Principal::new);
    let token = CancellationToken::new();
    let context = RequestContext::new(
        RequestId::from(format!("task-{}", task.id)),
        RequestMeta::new(LATEST_PROTOCOL_VERSION, capabilities),
        principal,
        token.clone(),
        inner.shared.clone(),
    );
    let call = ToolCall {
        name: route.name.clone(),
        arguments: task.arguments,
        input_responses: Some(task.input_responses),
        request_state: task.request_state,
        context,
    };
    spawn_worker(inner.clone(), task.id, work_of(route, call), token);
}

/// The task `id` as `context`'s principal may see it.
async fn load(config: &TasksConfig, id: &str, context: &RequestContext) -> Result<TaskRecord, Error> {
    let task = config.store.get(id).await.map_err(|e| store_error(&e))?.ok_or_else(|| unknown(id))?;
    // Someone else's task does not exist, as far as this caller can tell.
    if task.principal.as_deref() != context.principal().name() {
        return Err(unknown(id));
    }
    if task.expires_at_ms().is_some_and(|at| at < now_ms()) {
        return Err(Error::invalid_params(format!("Task has expired: {id}")).with_data(json!({ "taskId": id })));
    }
    Ok(task)
}

/// The protocol's view of a task, with what its status calls for.
fn detailed(inner: &Inner, task: &TaskRecord) -> DetailedTask {
    let mut detailed = DetailedTask {
        result_type: Default::default(),
        task: task.task(),
        input_requests: None,
        result: None,
        error: None,
        meta: Default::default(),
    };
    match task.status {
        TaskStatus::InputRequired => {
            detailed.input_requests = Some(
                task.input_requests.iter().map(|(key, request)| (task.public_key(key), request.clone())).collect(),
            );
        }
        TaskStatus::Completed => detailed.result = task.result.clone(),
        TaskStatus::Failed => detailed.error = task.error.clone(),
        TaskStatus::Working | TaskStatus::Cancelled => {}
    }
    crate::router::stamp(&mut detailed.meta, inner);
    detailed
}

/// `tasks/get`. A task whose instance stopped renewing its lease is reported failed.
pub(crate) async fn get(inner: &Arc<Inner>, context: &RequestContext, id: &str) -> Result<DetailedTask, Error> {
    let config = &inner.tasks;
    let task = load(config, id, context).await?;
    let running_here = config.running.lock().expect("running tasks lock").contains_key(id);
    let abandoned = task.status == TaskStatus::Working
        && !running_here
        && task.lease_until_ms.is_some_and(|until| until < now_ms());
    if !abandoned {
        return Ok(detailed(inner, &task));
    }
    let error = Error::new(
        ErrorCode::InternalError,
        "The server running this task stopped before it finished; call the tool again",
    );
    let failed = change(config, id, |task| {
        if task.status != TaskStatus::Working || task.lease_until_ms.is_none_or(|until| until >= now_ms()) {
            return false;
        }
        task.status = TaskStatus::Failed;
        task.status_message = Some(error.message().to_owned());
        task.lease_until_ms = None;
        task.error = Some(serde_json::to_value(ErrorObject::from(&error)).unwrap_or(Value::Null));
        true
    })
    .await?;
    if failed.is_some() {
        tracing::warn!(task = id, "a task was abandoned by the instance running it; it is now failed");
        announce(&inner.shared.changes, id);
    }
    let task = load(config, id, context).await?;
    Ok(detailed(inner, &task))
}

/// The task `id` for a listen stream, if `context`'s principal may see it.
pub(crate) async fn visible(inner: &Inner, context: &RequestContext, id: &str) -> Option<DetailedTask> {
    let task = load(&inner.tasks, id, context).await.ok()?;
    Some(detailed(inner, &task))
}

/// `tasks/update`: answers for the outstanding requests; the tool resumes once all are in.
/// Answers to anything the task is not waiting for are ignored.
pub(crate) async fn update(
    inner: &Arc<Inner>,
    context: &RequestContext,
    id: &str,
    responses: &crate::model::JsonObject,
) -> Result<(), Error> {
    let config = &inner.tasks;
    load(config, id, context).await?;
    let lease = config.lease.as_millis() as i64;
    let updated = change(config, id, |task| {
        if task.status != TaskStatus::InputRequired {
            return false;
        }
        let answered: Vec<String> =
            task.input_requests.keys().filter(|key| responses.contains_key(&task.public_key(key))).cloned().collect();
        if answered.is_empty() {
            return false;
        }
        for key in answered {
            task.input_requests.shift_remove(&key);
            let answer = responses.get(&task.public_key(&key)).cloned().unwrap_or(Value::Null);
            task.input_responses.insert(key, answer);
        }
        if task.input_requests.is_empty() {
            task.status = TaskStatus::Working;
            task.status_message = None;
            task.lease_until_ms = Some(now_ms() + lease);
        }
        true
    })
    .await?;
    if let Some(task) = updated {
        announce(&inner.shared.changes, id);
        if task.status == TaskStatus::Working {
            resume(inner, task);
        }
    }
    Ok(())
}

/// `tasks/cancel`: the task is cancelled at once, and its tool sees its cancellation signal.
/// Cancelling a task that has ended changes nothing.
pub(crate) async fn cancel(inner: &Arc<Inner>, context: &RequestContext, id: &str) -> Result<(), Error> {
    let config = &inner.tasks;
    load(config, id, context).await?;
    let cancelled = change(config, id, |task| {
        if task.status.is_terminal() {
            return false;
        }
        task.status = TaskStatus::Cancelled;
        task.status_message = Some("Cancelled by the client".to_owned());
        task.lease_until_ms = None;
        task.input_requests.clear();
        task.input_responses.clear();
        task.request_state = None;
        true
    })
    .await?;
    if cancelled.is_some() {
        if let Some(token) = config.running.lock().expect("running tasks lock").get(id) {
            token.cancel();
        }
        announce(&inner.shared.changes, id);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use crate::model::{CallToolResult, ClientCapabilities, JsonObject, TASKS_EXTENSION, TaskStatus, Tool};
    use crate::tasks::{MemoryTaskStore, TaskStore, TaskSupport};
    use crate::testing::{TestClient, task_record};
    use crate::{Server, ToolCall, ToolRoute};

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
        TestClient::new(server)
            .with_capabilities(ClientCapabilities { extensions: Some(extensions), ..Default::default() })
    }

    #[tokio::test]
    async fn an_expired_task_is_unknown_and_gets_pruned() {
        let store = MemoryTaskStore::default();
        let server = Server::builder("s", "1")
            .tool(slow())
            .task_store(store.clone())
            .task_ttl(Some(Duration::from_millis(1)))
            .build()
            .unwrap();
        let client = client(&server);
        let created = client.request_raw("tools/call", json!({"name": "slow"})).await;
        let task = created["result"]["taskId"].as_str().unwrap().to_owned();
        assert_eq!(created["result"]["ttlMs"], 1);
        tokio::time::sleep(Duration::from_millis(30)).await;
        let expired = client.request_raw("tasks/get", json!({"taskId": task})).await;
        assert_eq!(expired["error"]["code"], -32602, "{expired}");
        assert!(expired["error"]["message"].as_str().unwrap().contains("expired"));
        assert_eq!(store.prune(super::now_ms()).await.unwrap(), 1);
        let gone = client.request_raw("tasks/get", json!({"taskId": task})).await;
        assert_eq!(gone["error"]["message"], format!("Unknown task: {task}"));
    }

    #[tokio::test]
    async fn a_task_whose_instance_stopped_renewing_is_reported_failed_once() {
        let store = MemoryTaskStore::default();
        let server = Server::builder("s", "1").tool(slow()).task_store(store.clone()).build().unwrap();
        // Left by an instance that died: working, its lease long gone, nobody here runs it.
        let mut orphan = task_record("orphan");
        orphan.principal = None;
        orphan.ttl_ms = None;
        orphan.lease_until_ms = Some(super::now_ms() - 1);
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
        alive.lease_until_ms = Some(super::now_ms() + 60_000);
        store.create(&alive).await.unwrap();
        let seen = client.request_raw("tasks/get", json!({"taskId": "alive"})).await;
        assert_eq!(seen["result"]["status"], "working");
    }
}
