//! The protocol's operations on tasks (a `tools/call` that becomes one, `tasks/get`,
//! `tasks/update`, `tasks/cancel`); the worker that drives a task's tool to its end is in
//! [`worker`].
//!
//! Every change to a task is a compare-and-swap on its version, so instances sharing a store
//! never overwrite each other: the first terminal status wins (a cancellation is not undone by
//! a tool that finishes afterwards), and two partial answers both land.

mod worker;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::response::Reply;
use crate::changes::{ChangeEvent, Changes};
use crate::context::RequestContext;
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::ErrorObject;
use crate::model::{ClientCapabilities, DetailedTask, JsonObject, TASKS_EXTENSION, TaskStatus};
use crate::registry::Registry;
use crate::tasks::{DEFAULT_TASK_LEASE, DEFAULT_TASK_TTL, MemoryTaskStore, TaskRecord, TaskStore, now_ms};
use crate::tool::{ToolCall, ToolRoute};

/// -32021 naming the tasks extension: the caller did not declare it on this request.
pub(crate) fn required() -> Error {
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), JsonObject::new());
    Error::missing_capability(ClientCapabilities { extensions: Some(extensions), ..Default::default() })
}

/// How many times a change is retried when other writers keep changing the task.
const MAX_ATTEMPTS: usize = 32;

/// How often a process prunes expired tasks (when it creates one).
const PRUNE_EVERY_MS: i64 = 60_000;

/// How this server keeps and times tasks, and the tasks running in this process.
pub(crate) struct TaskRuntime {
    pub(crate) store: Arc<dyn TaskStore>,
    /// How long a task stays readable after creation.
    pub(crate) ttl: Option<Duration>,
    pub(crate) poll_interval: Duration,
    /// How long an instance vouches for a running task between renewals.
    pub(crate) lease: Duration,
    /// Tasks running in this process, with what cancels them.
    running: Mutex<HashMap<String, CancellationToken>>,
    /// When this process last pruned expired tasks (milliseconds since the epoch).
    pruned_at: AtomicI64,
}

impl Default for TaskRuntime {
    fn default() -> Self {
        TaskRuntime {
            store: Arc::new(MemoryTaskStore::default()),
            ttl: Some(DEFAULT_TASK_TTL),
            poll_interval: Duration::from_secs(1),
            lease: DEFAULT_TASK_LEASE,
            running: Mutex::default(),
            pruned_at: AtomicI64::default(),
        }
    }
}

impl std::fmt::Debug for TaskRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRuntime").field("ttl", &self.ttl).field("lease", &self.lease).finish_non_exhaustive()
    }
}

fn unknown(id: &str) -> Error {
    Error::invalid_params(format!("Unknown task: {id}")).with_data(json!({ "taskId": id }))
}

fn announce(changes: &Changes, id: &str) {
    changes.announce(ChangeEvent::TaskUpdated(id.into()));
}

impl TaskRuntime {
    /// Runs a call of a task tool from a client that declared the extension: answered
    /// directly when it finishes (or asks a round) without waiting, as a task otherwise.
    pub(crate) async fn start(
        self: &Arc<Self>,
        registry: &Arc<Registry>,
        route: &ToolRoute,
        call: ToolCall,
    ) -> Result<Reply, Error> {
        worker::Worker { registry: registry.clone(), runtime: self.clone() }.start(route, call).await
    }

    /// `tasks/get`. A task whose instance stopped renewing its lease is reported failed.
    pub(crate) async fn get(
        &self,
        registry: &Registry,
        context: &RequestContext,
        id: &str,
    ) -> Result<DetailedTask, Error> {
        let task = self.load(id, context).await?;
        let running_here = self.running.lock().expect("running tasks lock").contains_key(id);
        let abandoned = task.status == TaskStatus::Working
            && !running_here
            && task.lease_until_ms.is_some_and(|until| until < now_ms());
        if !abandoned {
            return Ok(detailed(&task));
        }
        let error = Error::new(
            ErrorCode::InternalError,
            "The server running this task stopped before it finished; call the tool again",
        );
        let failed = self
            .change(id, |task| {
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
            announce(&registry.shared.changes, id);
        }
        let task = self.load(id, context).await?;
        Ok(detailed(&task))
    }

    /// The task `id` for a listen stream, if `context`'s principal may see it.
    pub(crate) async fn visible(&self, context: &RequestContext, id: &str) -> Option<DetailedTask> {
        let task = self.load(id, context).await.ok()?;
        Some(detailed(&task))
    }

    /// `tasks/update`: answers for the outstanding requests; the tool resumes once all are
    /// in. Answers to anything the task is not waiting for are ignored.
    pub(crate) async fn update(
        self: &Arc<Self>,
        registry: &Arc<Registry>,
        context: &RequestContext,
        id: &str,
        responses: &JsonObject,
    ) -> Result<(), Error> {
        let task = self.load(id, context).await?;
        // The answers resume the tool as this caller: it needs the tool's scopes as a call does.
        if let Some(route) = registry.tools.get(task.tool.as_str()) {
            context.principal().require_scopes(&route.scopes)?;
        }
        let lease = self.lease.as_millis() as i64;
        let updated = self
            .change(id, |task| {
                if task.status != TaskStatus::InputRequired {
                    return false;
                }
                let answered: Vec<String> = task
                    .input_requests
                    .keys()
                    .filter(|key| responses.contains_key(&task.public_key(key)))
                    .cloned()
                    .collect();
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
            announce(&registry.shared.changes, id);
            if task.status == TaskStatus::Working {
                worker::Worker { registry: registry.clone(), runtime: self.clone() }
                    .resume(task, context.principal().clone());
            }
        }
        Ok(())
    }

    /// `tasks/cancel`: the task is cancelled at once, and its tool sees its cancellation
    /// signal. Cancelling a task that has ended changes nothing.
    pub(crate) async fn cancel(&self, registry: &Registry, context: &RequestContext, id: &str) -> Result<(), Error> {
        self.load(id, context).await?;
        let cancelled = self
            .change(id, |task| {
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
            if let Some(token) = self.running.lock().expect("running tasks lock").get(id) {
                token.cancel();
            }
            announce(&registry.shared.changes, id);
        }
        Ok(())
    }

    /// The task `id` as `context`'s principal may see it.
    async fn load(&self, id: &str, context: &RequestContext) -> Result<TaskRecord, Error> {
        let task = self.store.get(id).await.map_err(|e| e.refusal())?.ok_or_else(|| unknown(id))?;
        // Someone else's task does not exist, as far as this caller can tell.
        if task.principal.as_deref() != context.principal().name() {
            return Err(unknown(id));
        }
        if task.expires_at_ms().is_some_and(|at| at < now_ms()) {
            return Err(Error::invalid_params(format!("Task has expired: {id}")).with_data(json!({ "taskId": id })));
        }
        Ok(task)
    }

    /// Applies `change` to the task until it sticks; `None` when the task is gone, or
    /// `change` declined (returned false).
    async fn change(
        &self,
        id: &str,
        mut change: impl FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, Error> {
        for _ in 0..MAX_ATTEMPTS {
            let Some(mut task) = self.store.get(id).await.map_err(|e| e.refusal())? else { return Ok(None) };
            if !change(&mut task) {
                return Ok(None);
            }
            task.version += 1;
            task.updated_at_ms = now_ms();
            if self.store.replace(&task).await.map_err(|e| e.refusal())? {
                return Ok(Some(task));
            }
        }
        tracing::error!(task = id, "task kept changing under this update");
        Err(Error::internal())
    }

    /// Deletes expired tasks, at most once a minute per process.
    async fn prune_now_and_then(&self, now: i64) {
        let last = self.pruned_at.load(Ordering::Relaxed);
        if now - last < PRUNE_EVERY_MS
            || self.pruned_at.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_err()
        {
            return;
        }
        if let Err(error) = self.store.prune(now).await {
            tracing::warn!(%error, "expired tasks could not be pruned");
        }
    }
}

/// The protocol's view of a task, with what its status calls for.
fn detailed(task: &TaskRecord) -> DetailedTask {
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
    detailed
}
