//! The worker that drives a task's tool to its end: it makes the task when the call has to
//! wait, renews the task's lease while the tool runs, notices a cancellation made on another
//! instance, and records the outcome.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{MAX_ATTEMPTS, TaskRuntime, announce};
use crate::context::{Principal, RequestContext};
use crate::dispatch::response::Reply;
use crate::error::{Error, ErrorCode};
use crate::future::{BoxFuture, CatchPanic};
use crate::jsonrpc::ErrorObject;
use crate::model::{
    CallToolResult, ClientCapabilities, CreateTaskResult, Outcome, RequestId, RequestMeta, TaskResultType, TaskStatus,
};
use crate::registry::Registry;
use crate::tasks::{TaskRecord, now_ms};
use crate::tool::{ToolCall, ToolRoute};
use crate::version::LATEST_PROTOCOL_VERSION;

/// A tool call on its way to an outcome.
type Work = BoxFuture<'static, Result<Outcome<CallToolResult>, Error>>;

fn work_of(route: &ToolRoute, call: ToolCall) -> Work {
    let handler = route.handler.clone();
    Box::pin(async move {
        CatchPanic(Box::pin(async move { handler.call(call).await })).await.unwrap_or_else(|()| Err(Error::internal()))
    })
}

/// What a running task needs: the tools, and where tasks are kept.
#[derive(Clone)]
pub(super) struct Worker {
    pub(super) registry: Arc<Registry>,
    pub(super) runtime: Arc<TaskRuntime>,
}

impl Worker {
    /// Runs the call; makes it a task as soon as it has to wait.
    pub(super) async fn start(self, route: &ToolRoute, mut call: ToolCall) -> Result<Reply, Error> {
        let runtime = &self.runtime;
        let token = CancellationToken::new();
        let caller = call.context.principal().clone();
        let principal = caller.name().map(str::to_owned);
        let capabilities = serde_json::to_value(call.context.client_capabilities()).unwrap_or_else(|_| json!({}));
        let arguments = call.arguments.clone();
        // The task has a cancellation of its own: closing the request's stream must not end
        // it. Its progress and log messages stop when the request is answered with the task.
        let (context, stream) = call.context.with_gated_stream();
        call.context =
            context.with_cancellation(token.clone()).with_task_detach(Some(Arc::new(AtomicBool::new(false))));
        let mut work = work_of(route, call);

        if let Poll::Ready(outcome) = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await {
            return Ok(Reply::outcome(outcome?));
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
            ttl_ms: runtime.ttl.map(|ttl| ttl.as_millis() as u64),
            poll_interval_ms: runtime.poll_interval.as_millis() as u64,
            lease_until_ms: Some(now + runtime.lease.as_millis() as i64),
            round: 0,
            input_requests: Default::default(),
            input_responses: Default::default(),
            request_state: None,
            result: None,
            error: None,
        };
        runtime.prune_now_and_then(now).await;
        // Durable before the client hears of it: a tasks/get right after the answer finds it.
        if let Err(e) = runtime.store.create(&record).await {
            // The call has begun (its single-use state may be claimed, its effect under way), so
            // "try again" could repeat it: with no task to keep its outcome, it is answered here.
            tracing::warn!(error = %e, tool = %route.name, "no task could be made; the call is answered when it ends");
            return Ok(Reply::outcome(work.await?));
        }
        if let Some(stream) = stream {
            stream.store(false, Ordering::Relaxed);
        }
        let task = record.task();
        self.spawn(record.id, work, token, caller);
        Ok(Reply::Task(CreateTaskResult { result_type: TaskResultType, task, meta: Default::default() }))
    }

    /// Drives `work` to its end, renewing the task's lease meanwhile and noticing a
    /// cancellation made on another instance, then records the outcome.
    fn spawn(self, id: String, work: Work, token: CancellationToken, principal: Principal) {
        self.runtime.running.lock().expect("running tasks lock").insert(id.clone(), token.clone());
        tokio::spawn(async move {
            let mut work = work;
            let every =
                (self.runtime.lease / 5).clamp(std::time::Duration::from_millis(50), std::time::Duration::from_secs(3));
            let mut ticker = tokio::time::interval(every);
            ticker.tick().await;
            let outcome = loop {
                tokio::select! {
                    outcome = &mut work => break outcome,
                    _ = ticker.tick() => renew(&self.runtime, &id, &token).await,
                }
            };
            self.runtime.running.lock().expect("running tasks lock").remove(&id);
            self.settle(&id, outcome, principal).await;
        });
    }

    /// Records how a run of the task's tool ended.
    async fn settle(&self, id: &str, outcome: Result<Outcome<CallToolResult>, Error>, principal: Principal) {
        let runtime = &self.runtime;
        // A round that asks nothing (the tool shed load) is simply run again.
        if let Ok(Outcome::InputRequired(asked)) = &outcome
            && asked.input_requests.as_ref().is_none_or(|r| r.is_empty())
        {
            let state = asked.request_state.clone();
            let resumed = runtime
                .change(id, |task| {
                    task.request_state = state.clone();
                    task.input_responses.clear();
                    task.status == TaskStatus::Working
                })
                .await;
            if let Ok(Some(task)) = resumed {
                self.clone().resume(task, principal);
            }
            return;
        }
        let applied = runtime
            .change(id, |task| {
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
            Ok(Some(_)) => announce(&self.registry.shared.changes, id),
            Ok(None) => tracing::debug!(task = id, "task ended after it was cancelled; its outcome is dropped"),
            Err(_) => tracing::error!(task = id, "the outcome of a task could not be recorded"),
        }
    }

    /// Runs the task's tool again with the answers it collected (on whichever instance
    /// received the last of them), as `principal`: the task's owner, as authenticated now.
    pub(super) fn resume(self, task: TaskRecord, principal: Principal) {
        let Some(route) = self.registry.tools.get(task.tool.as_str()) else {
            let error = Error::new(ErrorCode::InternalError, format!("The tool {} is no longer served", task.tool));
            tokio::spawn(async move { self.settle(&task.id, Err(error), principal).await });
            return;
        };
        let capabilities: ClientCapabilities =
            serde_json::from_value(task.client_capabilities.clone()).unwrap_or_default();
        let token = CancellationToken::new();
        let context = RequestContext::new(
            RequestId::from(format!("task-{}", task.id)),
            RequestMeta::new(LATEST_PROTOCOL_VERSION, capabilities),
            principal.clone(),
            token.clone(),
            self.registry.shared.clone(),
        );
        let call = ToolCall {
            name: route.name.clone(),
            arguments: task.arguments,
            input_responses: Some(task.input_responses),
            request_state: task.request_state,
            context,
        };
        let work = work_of(route, call);
        self.spawn(task.id, work, token, principal);
    }
}

/// Renews the lease when it runs short; cancels the work when the task was cancelled (or
/// vanished) meanwhile.
async fn renew(runtime: &TaskRuntime, id: &str, token: &CancellationToken) {
    for _ in 0..MAX_ATTEMPTS {
        let mut task = match runtime.store.get(id).await {
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
        let lease = runtime.lease.as_millis() as i64;
        if task.lease_until_ms.is_some_and(|until| until - now > lease / 2) {
            return;
        }
        task.version += 1;
        task.lease_until_ms = Some(now + lease);
        match runtime.store.replace(&task).await {
            Ok(true) => return,
            Ok(false) => continue,
            Err(error) => {
                tracing::warn!(%error, "task lease could not be renewed");
                return;
            }
        }
    }
}
