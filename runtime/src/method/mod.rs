//! Every method of both revisions and of the extensions, declared once: its name, who sends
//! it, which revisions have it, its parameters and result, and what the rest of the framework
//! needs to know of it (whether it may answer `input_required`, whether it may become a task,
//! what it names for `Mcp-Name` and for telemetry, which capability offers it).
//!
//! The server routes, parses, checks headers, observes and times requests by [`Method`]; a
//! client builds requests and reads results through the same entries, by their [`typed`]
//! markers:
//!
//! ```
//! use mcp_rounds::method::{Method, Subject, Typed, typed};
//! use mcp_rounds::model::CallToolRequestParams;
//!
//! let method = Method::from_name("tools/call").unwrap();
//! assert_eq!(method, typed::ToolsCall::METHOD);
//! assert!(method.may_require_input() && method.task_capable());
//! assert_eq!(method.subject(), Some(Subject::Tool));
//! assert_eq!(Subject::Tool.param(), "name");
//!
//! // What a client sends and reads back, typed by the entry.
//! let params: <typed::ToolsCall as Typed>::Params = CallToolRequestParams::new("add", Default::default());
//! let answer = r#"{"resultType": "complete", "content": [{"type": "text", "text": "3"}]}"#;
//! let result: <typed::ToolsCall as Typed>::Result = serde_json::from_str(answer).unwrap();
//! assert!(result.complete().is_some());
//! # let _ = params;
//! ```
//!
//! Adding a method is one entry in the table plus its handler.

mod embedded;
mod table;

use serde::Serialize;
use serde::de::DeserializeOwned;

pub use table::{Method, typed};

use crate::model::{SKILLS_EXTENSION, TASKS_EXTENSION};

/// A method's parameters and result, known at compile time: what a client sends and what it
/// decodes. Implemented by the markers in [`typed`], one per entry of the table.
pub trait Typed {
    /// The entry.
    const METHOD: Method;
    /// `params` without `_meta` (which the envelope adds).
    type Params: Serialize + DeserializeOwned;
    /// The result; `()` for a notification, which has none.
    type Result: Serialize + DeserializeOwned;
}

/// Who sends a method, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Direction {
    /// A request the client sends the server.
    ClientRequest,
    /// A request the server asks of its client: embedded in an `input_required` result
    /// (`inputRequests`) in 2026-07-28, sent as a request of its own in a 2025-11-25 session.
    InputRequest,
    /// A notification the client sends.
    ClientNotification,
    /// A notification the server sends.
    ServerNotification,
    /// A notification either side sends.
    Notification,
}

/// The revisions that have a method: 2026-07-28, the 2025-11-25 (and 2025-06-18) sessions, or
/// both. A method of the sessions only was removed in 2026-07-28.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Revisions(u8);

impl Revisions {
    /// 2026-07-28 only: new in the stateless revision.
    pub const CURRENT: Revisions = Revisions(0b01);
    /// 2025-11-25 sessions only: removed in 2026-07-28.
    pub const LEGACY: Revisions = Revisions(0b10);
    /// Both.
    pub const BOTH: Revisions = Revisions(0b11);

    /// Whether 2026-07-28 has it.
    pub const fn current(self) -> bool {
        self.0 & Self::CURRENT.0 != 0
    }

    /// Whether a 2025-11-25 session has it.
    pub const fn legacy(self) -> bool {
        self.0 & Self::LEGACY.0 != 0
    }
}

/// What a request names in its parameters: the `Mcp-Name` header repeats it over HTTP, and
/// its server span is named after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Subject {
    /// A tool, by `name`.
    Tool,
    /// A prompt, by `name`.
    Prompt,
    /// A resource, by `uri`.
    Resource,
    /// A task, by `taskId`.
    Task,
}

impl Subject {
    /// The member of `params` that holds it.
    pub const fn param(self) -> &'static str {
        match self {
            Subject::Tool | Subject::Prompt => "name",
            Subject::Resource => "uri",
            Subject::Task => "taskId",
        }
    }
}

/// What a server offers that a method belongs to: without it, the method is not found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Capability {
    /// `tools`.
    Tools,
    /// `resources`.
    Resources,
    /// `prompts`.
    Prompts,
    /// `completions`.
    Completions,
    /// The tasks extension.
    Tasks,
    /// The skills extension.
    Skills,
}

impl Capability {
    /// Its name, as a server's capabilities spell it (an extension's id for an extension).
    pub const fn name(self) -> &'static str {
        match self {
            Capability::Tools => "tools",
            Capability::Resources => "resources",
            Capability::Prompts => "prompts",
            Capability::Completions => "completions",
            Capability::Tasks => TASKS_EXTENSION,
            Capability::Skills => SKILLS_EXTENSION,
        }
    }

    /// The extension's id, for a capability an extension adds.
    pub const fn extension(self) -> Option<&'static str> {
        match self {
            Capability::Tasks => Some(TASKS_EXTENSION),
            Capability::Skills => Some(SKILLS_EXTENSION),
            _ => None,
        }
    }

    /// How a reason for "not found" names it.
    pub(crate) const fn described(self) -> &'static str {
        match self {
            Capability::Tasks => "tasks",
            Capability::Skills => "skills",
            other => other.name(),
        }
    }
}

/// What the table says of one method besides its name and types.
#[derive(Clone, Copy, Debug)]
struct Facts {
    direction: Direction,
    revisions: Revisions,
    input_required: bool,
    task: bool,
    subject: Option<Subject>,
    capability: Option<Capability>,
}

impl Facts {
    const fn new(direction: Direction, revisions: Revisions) -> Self {
        Facts { direction, revisions, input_required: false, task: false, subject: None, capability: None }
    }

    const fn request(revisions: Revisions) -> Self {
        Facts::new(Direction::ClientRequest, revisions)
    }

    const fn input_request() -> Self {
        Facts::new(Direction::InputRequest, Revisions::BOTH)
    }

    const fn notification(direction: Direction, revisions: Revisions) -> Self {
        Facts::new(direction, revisions)
    }

    /// It may answer `input_required`.
    const fn rounds(self) -> Self {
        Facts { input_required: true, ..self }
    }

    /// A client that declares the tasks extension may get a task for an answer.
    const fn task(self) -> Self {
        Facts { task: true, ..self }
    }

    const fn names(self, subject: Subject) -> Self {
        Facts { subject: Some(subject), ..self }
    }

    const fn offered_by(self, capability: Capability) -> Self {
        Facts { capability: Some(capability), ..self }
    }
}

impl Method {
    /// Who sends it, and how.
    pub const fn direction(self) -> Direction {
        self.facts().direction
    }

    /// The revisions that have it.
    pub const fn revisions(self) -> Revisions {
        self.facts().revisions
    }

    /// Whether it may answer `input_required` (`tools/call`, `prompts/get`, `resources/read`).
    pub const fn may_require_input(self) -> bool {
        self.facts().input_required
    }

    /// Whether it may answer with a task, for a client that declares the tasks extension.
    pub const fn task_capable(self) -> bool {
        self.facts().task
    }

    /// What a request of it names in its parameters (`Mcp-Name`, the server span's name).
    pub const fn subject(self) -> Option<Subject> {
        self.facts().subject
    }

    /// The capability of the server it belongs to, when it belongs to one.
    pub const fn capability(self) -> Option<Capability> {
        self.facts().capability
    }

    /// Whether it is a request a client sends.
    pub const fn is_client_request(self) -> bool {
        matches!(self.direction(), Direction::ClientRequest)
    }

    /// Whether it is a method 2025-11-25 had and 2026-07-28 removed.
    pub const fn removed(self) -> bool {
        let revisions = self.revisions();
        revisions.legacy() && !revisions.current()
    }
}

impl AsRef<str> for Method {
    fn as_ref(&self) -> &str {
        self.name()
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
