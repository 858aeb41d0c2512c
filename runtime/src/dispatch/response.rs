//! What dispatch answers with: a typed outcome, encoded only at the very end, once, for the
//! revision of the client that asked.

use std::sync::Arc;

use serde::Serialize;

use crate::error::Error;
use crate::model::{
    CallToolResult, CompleteResult, CreateTaskResult, DetailedTask, EmptyResult, GetPromptResult, InitializeResult,
    InputRequiredResult, ListResourcesResult, MayRequireInput, Outcome, ReadResourceResult, ResultMeta,
    SubscriptionsListenResult, TaskAck, WithResultMeta,
};
use crate::registry::Rendered;

/// The answer to one request.
#[derive(Debug)]
pub struct McpResponse {
    pub(crate) id: crate::model::RequestId,
    pub(crate) reply: Reply,
    /// Rounds played out with the client before this answer, within the request (a legacy
    /// session asks its client live).
    pub(crate) rounds_asked: u32,
}

/// How a request was answered.
#[derive(Debug)]
#[non_exhaustive]
pub enum Reply {
    /// A complete result.
    Complete(Completed),
    /// A `tools/call`, `prompts/get` or `resources/read` that needs input from the client.
    InputRequired(InputRequiredResult),
    /// A `tools/call` that goes on as a task.
    Task(CreateTaskResult),
    /// A JSON-RPC error.
    Error(Error),
}

/// A complete result, of whichever method answered.
#[derive(Debug)]
pub struct Completed(pub(crate) Body);

#[derive(Debug)]
pub(crate) enum Body {
    /// Rendered when the server was built (discover, the fixed lists).
    Rendered(Arc<Rendered>),
    Tool(CallToolResult),
    Prompt(GetPromptResult),
    Resource(ReadResourceResult),
    Resources(ListResourcesResult),
    Completion(CompleteResult),
    Task(Box<DetailedTask>),
    Ack(TaskAck),
    Listen(SubscriptionsListenResult),
    /// A legacy session's handshake.
    Initialize(Box<InitializeResult>),
    /// `{}`: a legacy session's `ping`, `logging/setLevel`, `resources/subscribe`.
    Empty(EmptyResult),
    #[cfg(feature = "skills")]
    Skills(crate::model::ListSkillsResult),
    #[cfg(feature = "skills")]
    Skill(crate::model::GetSkillResult),
    #[cfg(feature = "skills")]
    Directory(crate::model::ReadResourceDirectoryResult),
}

impl McpResponse {
    /// Answers request `id` with `reply`.
    pub fn new(id: crate::model::RequestId, reply: Reply) -> Self {
        McpResponse { id, reply, rounds_asked: 0 }
    }

    /// Answers request `id` with a JSON-RPC error.
    pub fn error(id: crate::model::RequestId, error: Error) -> Self {
        McpResponse::new(id, Reply::Error(error))
    }

    /// The id of the request this answers.
    pub fn id(&self) -> &crate::model::RequestId {
        &self.id
    }

    /// How the request was answered.
    pub fn reply(&self) -> &Reply {
        &self.reply
    }

    /// How the request was answered, to change it.
    pub fn reply_mut(&mut self) -> &mut Reply {
        &mut self.reply
    }
}

impl Reply {
    /// The error, when it is one.
    pub fn error(&self) -> Option<&Error> {
        match self {
            Reply::Error(error) => Some(error),
            _ => None,
        }
    }

    /// Whether a tool answered with its own failure (`isError`), which is a result, not an
    /// error.
    pub fn is_tool_error(&self) -> bool {
        matches!(self, Reply::Complete(Completed(Body::Tool(result))) if result.is_error())
    }

    pub(crate) fn rendered(rendered: Arc<Rendered>) -> Self {
        Reply::Complete(Completed(Body::Rendered(rendered)))
    }

    pub(crate) fn outcome<T: MayRequireInput + Into<Completed>>(outcome: Outcome<T>) -> Self {
        match outcome {
            Outcome::Complete(result) => Reply::Complete(result.into()),
            Outcome::InputRequired(asked) => Reply::InputRequired(asked),
        }
    }
}

impl Completed {
    /// The tool's result, when a tool answered.
    pub fn tool_result(&self) -> Option<&CallToolResult> {
        match &self.0 {
            Body::Tool(result) => Some(result),
            _ => None,
        }
    }

    /// The `_meta` of a result made for this request (a rendered one has its own already).
    pub(crate) fn meta_mut(&mut self) -> Option<&mut ResultMeta> {
        Some(match &mut self.0 {
            Body::Rendered(_) | Body::Ack(_) | Body::Initialize(_) | Body::Empty(_) => return None,
            Body::Tool(r) => r.result_meta_mut(),
            Body::Prompt(r) => r.result_meta_mut(),
            Body::Resource(r) => r.result_meta_mut(),
            Body::Resources(r) => r.result_meta_mut(),
            Body::Completion(r) => r.result_meta_mut(),
            Body::Task(r) => r.result_meta_mut(),
            Body::Listen(r) => r.result_meta_mut(),
            #[cfg(feature = "skills")]
            Body::Skills(r) => r.result_meta_mut(),
            #[cfg(feature = "skills")]
            Body::Skill(r) => r.result_meta_mut(),
            #[cfg(feature = "skills")]
            Body::Directory(r) => r.result_meta_mut(),
        })
    }
}

macro_rules! completed_from {
    ($($variant:ident($ty:ty)),* $(,)?) => {$(
        impl From<$ty> for Completed {
            fn from(result: $ty) -> Self {
                Completed(Body::$variant(result))
            }
        }

        impl From<$ty> for Reply {
            fn from(result: $ty) -> Self {
                Reply::Complete(Completed(Body::$variant(result)))
            }
        }
    )*};
}

completed_from!(
    Tool(CallToolResult),
    Prompt(GetPromptResult),
    Resource(ReadResourceResult),
    Resources(ListResourcesResult),
    Completion(CompleteResult),
    Task(Box<DetailedTask>),
    Ack(TaskAck),
    Listen(SubscriptionsListenResult),
    Initialize(Box<InitializeResult>),
    Empty(EmptyResult),
);

#[cfg(feature = "skills")]
completed_from!(
    Skills(crate::model::ListSkillsResult),
    Skill(crate::model::GetSkillResult),
    Directory(crate::model::ReadResourceDirectoryResult),
);

impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // Only ever encoded through `Rendered`'s own choice of revision.
            Body::Rendered(rendered) => rendered.current.serialize(serializer),
            Body::Tool(r) => r.serialize(serializer),
            Body::Prompt(r) => r.serialize(serializer),
            Body::Resource(r) => r.serialize(serializer),
            Body::Resources(r) => r.serialize(serializer),
            Body::Completion(r) => r.serialize(serializer),
            Body::Task(r) => r.serialize(serializer),
            Body::Ack(r) => r.serialize(serializer),
            Body::Listen(r) => r.serialize(serializer),
            Body::Initialize(r) => r.serialize(serializer),
            Body::Empty(r) => r.serialize(serializer),
            #[cfg(feature = "skills")]
            Body::Skills(r) => r.serialize(serializer),
            #[cfg(feature = "skills")]
            Body::Skill(r) => r.serialize(serializer),
            #[cfg(feature = "skills")]
            Body::Directory(r) => r.serialize(serializer),
        }
    }
}
