//! A call the server turned into a task (the tasks extension): polled to its end at the pace
//! the server asks, its input requests answered by the handler, each new state shown to the
//! handler, and cancelled if the caller stops waiting.

use std::time::Duration;

use serde_json::value::RawValue;

use super::error::ClientError;
use super::rounds::answer_round;
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

/// Cancels the task if the caller stops waiting before it ends.
struct Abandon {
    client: Client,
    task_id: Option<String>,
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

impl Client {
    /// Follows the task `created` to its end: the tool's result, as the server stored it.
    pub(crate) async fn follow_task(&self, created: &RawValue) -> Result<Box<RawValue>, ClientError> {
        let method = Method::ToolsCall.name();
        let created: CreateTaskResult = read(method, created)?;
        let mut task = created.task;
        let mut abandon = Abandon { client: self.clone(), task_id: Some(task.task_id.clone()) };
        let mut details: Option<DetailedTask> = None;
        let mut rounds = 0;
        loop {
            self.inner.handler.task(&task);
            match task.status {
                TaskStatus::Working => {
                    let poll = task.poll_interval_ms.map_or(DEFAULT_POLL, Duration::from_millis);
                    tokio::time::sleep(poll.clamp(MIN_POLL, MAX_POLL)).await;
                }
                TaskStatus::InputRequired => {
                    let asked = details.as_ref().and_then(|d| d.input_requests.clone()).unwrap_or_default();
                    let requests: InputRequests =
                        serde_json::from_value(serde_json::Value::Object(asked.into_iter().collect()))
                            .map_err(|e| ClientError::unexpected(Method::TasksGet.name(), e.to_string()))?;
                    if !requests.is_empty() {
                        rounds += 1;
                        let answers = answer_round(&*self.inner.handler, requests, rounds).await?;
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
                    return Err(ClientError::TaskCancelled { task_id: task.task_id });
                }
            }
            let params = TaskIdParams { task_id: task.task_id.clone() };
            let raw = self.send(Method::TasksGet, &params, Extras::naming(Some(&params.task_id))).await?;
            let detailed: DetailedTask = read(Method::TasksGet.name(), &raw)?;
            task = detailed.task.clone();
            details = Some(detailed);
        }
    }
}
