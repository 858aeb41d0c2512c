//! The tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call` answered at once with a
//! task the client polls (`tasks/get`), answers (`tasks/update`) or cancels (`tasks/cancel`).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Complete, JsonObject, NotificationMeta, ResultMeta};

/// The extension's identifier, in client and server capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

literal!(
    /// `"task"`: the `resultType` of a [`CreateTaskResult`].
    TaskResultType = "task"
);

/// Where a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client's answers (`tasks/update`).
    InputRequired,
    /// Finished with a result (which may be a tool error).
    Completed,
    /// Cancelled by the client.
    Cancelled,
    /// Ended with a protocol error.
    Failed,
}

impl TaskStatus {
    /// Whether the task has ended for good.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Cancelled | TaskStatus::Failed)
    }
}

/// The fields every view of a task carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// Unguessable id.
    pub task_id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// For people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub last_updated_at: String,
    /// How long after creation the task stays readable; `null` for as long as the server keeps it.
    pub ttl_ms: Option<u64>,
    /// How often the client might usefully poll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// `tools/call` answered with a task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// Always `"task"`.
    pub result_type: TaskResultType,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}

/// `tasks/get`: the task, with what its status calls for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DetailedTask {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// When `input_required`: what is still to be answered, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<IndexMap<String, Value>>,
    /// When `completed`: the tool's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// When `failed`: the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}

/// `notifications/tasks`: a task's state as it is now, on a listen stream that follows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskNotificationParams {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// When `input_required`: what is still to be answered, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<IndexMap<String, Value>>,
    /// When `completed`: the tool's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// When `failed`: the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The listen stream's subscription.
    #[serde(rename = "_meta", default, skip_serializing_if = "NotificationMeta::is_empty")]
    pub meta: NotificationMeta,
}

impl TaskNotificationParams {
    /// `task` as a listen stream announces it, tagged with `meta`.
    pub fn new(task: DetailedTask, meta: NotificationMeta) -> Self {
        let DetailedTask { task, input_requests, result, error, .. } = task;
        TaskNotificationParams { task, input_requests, result, error, meta }
    }
}

/// `tasks/get` and `tasks/cancel` parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
}

/// `tasks/update` parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers by key; keys the task is not waiting for are ignored.
    #[serde(default)]
    pub input_responses: JsonObject,
}

/// The acknowledgement of `tasks/update` and `tasks/cancel`: `{"resultType": "complete"}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskAck {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_task_is_flat_with_ttl_present_even_when_unlimited() {
        let task = Task {
            task_id: "t1".into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: "2026-11-30T12:00:00.000Z".into(),
            last_updated_at: "2026-11-30T12:00:00.000Z".into(),
            ttl_ms: None,
            poll_interval_ms: Some(1000),
        };
        let created = CreateTaskResult { result_type: TaskResultType, task, meta: ResultMeta::default() };
        let wire = serde_json::to_value(&created).unwrap();
        assert_eq!(
            wire,
            serde_json::json!({
                "resultType": "task", "taskId": "t1", "status": "working",
                "createdAt": "2026-11-30T12:00:00.000Z", "lastUpdatedAt": "2026-11-30T12:00:00.000Z",
                "ttlMs": null, "pollIntervalMs": 1000
            })
        );
        assert_eq!(serde_json::from_value::<CreateTaskResult>(wire).unwrap(), created);
        assert_eq!(serde_json::to_value(TaskStatus::InputRequired).unwrap(), "input_required");
        assert_eq!(serde_json::to_value(TaskAck::default()).unwrap(), serde_json::json!({"resultType": "complete"}));
    }
}
