//! A call the server turned into a task (the tasks extension): polled to its end at the pace
//! the server asks, its input requests answered by the handler, each new state shown to the
//! handler, and cancelled if the caller stops waiting.

use std::time::Duration;

use serde_json::value::RawValue;

use super::error::ClientError;
use super::{Client, Extras, read};
use crate::jsonrpc::ErrorObject;
use crate::method::Method;
use crate::model::{
    CreateTaskResult, DetailedTask, InputRequests, JsonObject, TaskAck, TaskIdParams, TaskStatus, UpdateTaskParams,
};

/// How often a task is polled when the server does not say, and the bounds on what it says.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(30);

/// How long a task's cancel may take when the client gives up on it itself.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);

/// Cancels the task if the caller stops waiting before it ends.
struct Abandon {
    client: Client,
    task_id: Option<String>,
}

impl Abandon {
    /// Cancels the task now and waits (a little) for the server to take it: the client gave
    /// up on it (a limit, a failure), and its process may end right after.
    async fn cancel_now(&mut self) {
        let Some(task_id) = self.task_id.take() else { return };
        let params = TaskIdParams { task_id };
        let cancel = self.client.send(Method::TasksCancel, &params, Extras::naming(Some(&params.task_id)));
        let _ = tokio::time::timeout(CANCEL_TIMEOUT, cancel).await;
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let (Some(task_id), Ok(runtime)) = (self.task_id.take(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        let client = self.client.clone();
        runtime.spawn(async move {
            let params = TaskIdParams { task_id };
            let _ = client.send(Method::TasksCancel, &params, Extras::naming(Some(&params.task_id))).await;
        });
    }
}

/// Waits as long as the server asks before the task is polled again, within bounds.
async fn pause(task: &crate::model::Task) {
    let poll = task.poll_interval_ms.map_or(DEFAULT_POLL, Duration::from_millis);
    tokio::time::sleep(poll.clamp(MIN_POLL, MAX_POLL)).await;
}

impl Client {
    /// Follows the task `created` to its end: the tool's result, as the server stored it.
    /// Each answer to its input requests is a round of the call, counted in `rounds` against
    /// the client's round limit; past it, the task is cancelled.
    pub(crate) async fn follow_task(
        &self,
        created: &RawValue,
        rounds: &mut usize,
    ) -> Result<Box<RawValue>, ClientError> {
        let method = Method::ToolsCall.name();
        let created: CreateTaskResult = read(method, created)?;
        let mut task = created.task;
        let mut abandon = Abandon { client: self.clone(), task_id: Some(task.task_id.clone()) };
        let followed = self.follow(&mut task, &mut abandon, rounds).await;
        // Given up on (a limit, a failure): cancelled now, not when `abandon` is dropped, since
        // the process may end before a spawned cancel is sent.
        if followed.is_err() {
            abandon.cancel_now().await;
        }
        followed
    }

    /// Polls `task` to its end, answering what it asks; `abandon` forgets the task once it
    /// ended by itself.
    async fn follow(
        &self,
        task: &mut crate::model::Task,
        abandon: &mut Abandon,
        rounds: &mut usize,
    ) -> Result<Box<RawValue>, ClientError> {
        let method = Method::ToolsCall.name();
        let mut details: Option<DetailedTask> = None;
        loop {
            if task.status.is_terminal() && details.is_none() {
                // Created already ended: nothing to cancel, whatever reading it says; its result
                // (or error) is read before it is reported.
                abandon.task_id = None;
                details = Some(self.task_details(task).await?);
            }
            self.inner.handler.task(task);
            match task.status {
                TaskStatus::Working => pause(task).await,
                TaskStatus::InputRequired => {
                    let asked = details.as_ref().and_then(|d| d.input_requests.clone()).unwrap_or_default();
                    let requests: InputRequests =
                        serde_json::from_value(serde_json::Value::Object(asked.into_iter().collect()))
                            .map_err(|e| ClientError::unexpected(Method::TasksGet.name(), e.to_string()))?;
                    if requests.is_empty() {
                        // Nothing to answer yet: polled at the server's pace, not in a loop.
                        if details.is_some() {
                            pause(task).await;
                        }
                    } else {
                        let limit = self.inner.max_rounds;
                        if *rounds == limit {
                            return Err(ClientError::TooManyRounds { method: method.into(), limit });
                        }
                        *rounds += 1;
                        let answers = self.answer_round(requests, *rounds, Method::ToolsCall).await?;
                        let input_responses: JsonObject = match serde_json::to_value(answers) {
                            Ok(serde_json::Value::Object(answers)) => answers,
                            _ => JsonObject::new(),
                        };
                        let update = UpdateTaskParams { task_id: task.task_id.clone(), input_responses };
                        let raw = self.send(Method::TasksUpdate, &update, Extras::naming(Some(&task.task_id))).await?;
                        read::<TaskAck>(Method::TasksUpdate.name(), &raw)?;
                    }
                }
                TaskStatus::Completed => {
                    abandon.task_id = None;
                    let result = details.and_then(|d| d.result).unwrap_or_default();
                    return serde_json::value::to_raw_value(&result)
                        .map_err(|e| ClientError::unexpected(method, e.to_string()));
                }
                TaskStatus::Failed => {
                    abandon.task_id = None;
                    let error =
                        details.and_then(|d| d.error).and_then(|e| serde_json::from_value::<ErrorObject>(e).ok());
                    let error =
                        error.unwrap_or(ErrorObject { code: -32603, message: "the task failed".into(), data: None });
                    return Err(ClientError::Protocol { method: method.into(), error: Box::new(error) });
                }
                TaskStatus::Cancelled => {
                    abandon.task_id = None;
                    return Err(ClientError::TaskCancelled { task_id: task.task_id.clone() });
                }
            }
            let detailed = self.task_details(task).await?;
            *task = detailed.task.clone();
            details = Some(detailed);
        }
    }

    /// `tasks/get` of `task`.
    async fn task_details(&self, task: &crate::model::Task) -> Result<DetailedTask, ClientError> {
        let params = TaskIdParams { task_id: task.task_id.clone() };
        let raw = self.send(Method::TasksGet, &params, Extras::naming(Some(&params.task_id))).await?;
        read(Method::TasksGet.name(), &raw)
    }
}
