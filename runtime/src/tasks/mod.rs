//! Long-running tools as tasks: the `io.modelcontextprotocol/tasks` extension.
//!
//! A tool opts in with `#[tool(task)]` (a task when the client declared the extension on the
//! request, an ordinary call otherwise) or `#[tool(task = "required")]` (only as a task: a
//! client without the extension gets -32021). Such a call that does not finish at once is
//! answered with a task, created durably in a [`TaskStore`] before the answer goes out; the
//! work goes on, and its end is recorded there: the result (`completed`, tool errors
//! included), the protocol error (`failed`), or the questions of a round (`input_required`),
//! which `tasks/update` answers and which resume the tool through the same round machinery a
//! `tools/call` retry uses. Rounds the tool asks before it has anything to wait for are asked
//! synchronously, as the extension recommends; a tool that wants to become a task first calls
//! [`TaskScope::detach`].
//!
//! Every instance sharing a store answers `tasks/get`, `tasks/update` and `tasks/cancel` for
//! every task: the instance running a task renews a lease on it, sees a cancellation made
//! elsewhere, and a task whose instance stopped is reported `failed`, never left `working`.
//! A task is visible only to the principal that created it.

#[doc(hidden)]
pub mod contract;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use crate::replay::StoreError;
#[cfg(feature = "postgres")]
pub use postgres::PostgresTaskStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteTaskStore;

use crate::error::Rejection;
use crate::extract::{FromRequest, RequestParts};
use crate::future::BoxFuture;
use crate::model::{JsonObject, Task, TaskStatus};

/// Whether a tool runs as a task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never: an ordinary call.
    #[default]
    Never,
    /// When the client declared the extension on the request; an ordinary call otherwise.
    Optional,
    /// Only as a task: a client without the extension gets -32021.
    Required,
}

/// One task as stored: what the protocol shows, and what resuming it needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// The task's id.
    pub id: String,
    /// Bumped by every change; a change applies only to the version it read.
    pub version: u64,
    /// Who created it; nobody else sees it.
    pub principal: Option<String>,
    /// The tool.
    pub tool: String,
    /// The call's arguments.
    pub arguments: JsonObject,
    /// The client capabilities the call declared (a resumed round sees the same).
    pub client_capabilities: Value,
    /// Where it is.
    pub status: TaskStatus,
    /// For people.
    #[serde(default)]
    pub status_message: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: i64,
    /// Milliseconds since the Unix epoch.
    pub updated_at_ms: i64,
    /// Readable this long after creation; `None` while the server keeps it.
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval.
    pub poll_interval_ms: u64,
    /// While `working`: until when the instance running it vouches for it.
    #[serde(default)]
    pub lease_until_ms: Option<i64>,
    /// Rounds asked so far; keeps the keys the client sees unique for the task's life.
    #[serde(default)]
    pub round: u32,
    /// While `input_required`: the round's outstanding requests, by the round's own key.
    #[serde(default)]
    pub input_requests: IndexMap<String, Value>,
    /// The round's answers received so far, by the round's own key.
    #[serde(default)]
    pub input_responses: JsonObject,
    /// The round's signed state; never shown to the client.
    #[serde(default)]
    pub request_state: Option<String>,
    /// When `completed`: the tool's result.
    #[serde(default)]
    pub result: Option<Value>,
    /// When `failed`: the JSON-RPC error.
    #[serde(default)]
    pub error: Option<Value>,
}

impl TaskRecord {
    /// When it stops being readable (milliseconds since the epoch), if ever.
    pub fn expires_at_ms(&self) -> Option<i64> {
        self.ttl_ms.map(|ttl| self.created_at_ms.saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX)))
    }

    /// The key the client sees for the round's own `key`: unique for the task's whole life.
    pub(crate) fn public_key(&self, key: &str) -> String {
        if self.round <= 1 { key.to_owned() } else { format!("{key}~{}", self.round) }
    }

    /// The protocol's view.
    pub(crate) fn task(&self) -> Task {
        Task {
            task_id: self.id.clone(),
            status: self.status,
            status_message: self.status_message.clone(),
            created_at: rfc3339(self.created_at_ms),
            last_updated_at: rfc3339(self.updated_at_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: Some(self.poll_interval_ms),
        }
    }
}

fn rfc3339(ms: i64) -> String {
    let time = UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    humantime::format_rfc3339_millis(time).to_string()
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Where tasks are kept. Every instance that serves the same tools shares one.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task.
    fn create(&self, task: &TaskRecord) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The task `id`, if it exists.
    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, StoreError>>;

    /// Replaces the task if its stored version is `task.version - 1`; `false` when it changed
    /// meanwhile (or is gone), in which case the caller reads it again.
    fn replace(&self, task: &TaskRecord) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Deletes the tasks that expired before `now_ms`; how many.
    fn prune(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>>;
}

/// Tasks in memory: for tests and single-process servers.
#[derive(Clone, Debug, Default)]
pub struct MemoryTaskStore {
    tasks: Arc<Mutex<HashMap<String, TaskRecord>>>,
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: &TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let task = task.clone();
        Box::pin(async move {
            let mut tasks = self.tasks.lock().expect("task map lock");
            if tasks.contains_key(&task.id) {
                return Err(StoreError(format!("task {} exists already", task.id)));
            }
            tasks.insert(task.id.clone(), task);
            Ok(())
        })
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, StoreError>> {
        let found = self.tasks.lock().expect("task map lock").get(id).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn replace(&self, task: &TaskRecord) -> BoxFuture<'_, Result<bool, StoreError>> {
        let task = task.clone();
        Box::pin(async move {
            let mut tasks = self.tasks.lock().expect("task map lock");
            match tasks.get_mut(&task.id) {
                Some(stored) if stored.version + 1 == task.version => {
                    *stored = task;
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    fn prune(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let mut tasks = self.tasks.lock().expect("task map lock");
            let before = tasks.len();
            tasks.retain(|_, t| t.expires_at_ms().is_none_or(|at| at >= now_ms));
            Ok((before - tasks.len()) as u64)
        })
    }
}

/// Default readable lifetime of a task: one day.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// Default lease: a task whose instance has not renewed it for this long is reported failed.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(15);

/// A tool's view of the task it may run as. An extractor: add a `TaskScope` parameter to a
/// `#[tool(task)]` function.
///
/// ```
/// use mcp_rounds::tasks::TaskScope;
/// use mcp_rounds::tool;
///
/// /// Exports everything; takes a while.
/// #[tool(task)]
/// async fn export(scope: TaskScope) -> String {
///     // Become a task before the long part, so that the client is answered at once.
///     scope.detach().await;
///     "exported".to_owned()
/// }
/// ```
#[derive(Clone, Debug)]
pub struct TaskScope {
    detach: Option<Arc<std::sync::atomic::AtomicBool>>,
    cancellation: CancellationToken,
}

impl TaskScope {
    /// Answers the client with a task now and carries on in the background, when this call
    /// may run as a task; does nothing otherwise (the client did not declare the extension,
    /// or this call is a task already). Rounds asked after this are asked through the task.
    pub async fn detach(&self) {
        if let Some(flag) = &self.detach
            && !flag.swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            // One poll that is not ready: the runtime sees the call wait, and makes the task.
            let mut yielded = false;
            std::future::poll_fn(|cx| {
                if yielded {
                    std::task::Poll::Ready(())
                } else {
                    yielded = true;
                    cx.waker().wake_by_ref();
                    std::task::Poll::Pending
                }
            })
            .await;
        }
    }

    /// Cancelled when the client cancels the task (or the request, before it became one).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }
}

impl FromRequest for TaskScope {
    async fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
        let context = request.context();
        Ok(TaskScope { detach: context.task_detach(), cancellation: context.cancellation().clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) use super::contract::{task_record as record, task_store_contract as store_contract};

    #[tokio::test]
    async fn the_memory_store_keeps_the_contract() {
        store_contract(&MemoryTaskStore::default()).await;
    }

    #[test]
    fn keys_the_client_sees_stay_unique_across_rounds() {
        let mut task = record("t");
        task.round = 1;
        assert_eq!(task.public_key("confirm"), "confirm");
        task.round = 2;
        assert_eq!(task.public_key("confirm"), "confirm~2");
        assert_eq!(task.task().created_at, "1970-01-01T00:00:01.000Z");
    }
}
