//! Tools as the server sees them: a descriptor and the handler that runs a call.
//!
//! Write tools with [`#[tool]`](macro@crate::tool) on a plain function; [`ToolRoute`] is the
//! hand-written form.

mod output;
mod params;

use std::future::Future;
use std::sync::Arc;

pub use output::{IntoToolError, IntoToolOutcome, Json, Readable, ReadableOutcome, ToolError, assert_readable};
pub use params::{Args, ToolInfo, ToolInvocation, ToolParam};

use crate::context::RequestContext;
use crate::error::{BuildError, Error};
use crate::extract::Requirements;
use crate::future::BoxFuture;
use crate::headers::{ParamHeader, param_headers};
use crate::model::{CallToolResult, JsonObject, Outcome, Tool};
use crate::tasks::TaskSupport;

/// What a tool handler receives for one `tools/call`.
#[derive(Debug)]
pub struct ToolCall {
    /// The tool's name.
    pub name: Arc<str>,
    /// The arguments (an empty object when the client sent none).
    pub arguments: JsonObject,
    /// Answers to the previous round's input requests, on a retry, undecoded: only the
    /// answers a round asked for are read, so unknown extra entries are ignored.
    pub input_responses: Option<JsonObject>,
    /// The previous round's `requestState`, exactly as the client echoed it (unverified).
    pub request_state: Option<String>,
    /// The request being served.
    pub context: RequestContext,
}

/// Runs calls of one tool. Implemented for async closures taking a [`ToolCall`]; the
/// `#[tool]` macro implements it for annotated functions.
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs one call. `Err` is a protocol error; a tool's own failure is
    /// `Ok(CallToolResult::error(..).into())`.
    fn call(&self, call: ToolCall) -> BoxFuture<'_, Result<Outcome<CallToolResult>, Error>>;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<CallToolResult>, Error>> + Send + 'static,
{
    fn call(&self, call: ToolCall) -> BoxFuture<'_, Result<Outcome<CallToolResult>, Error>> {
        Box::pin(self(call))
    }
}

/// A tool ready to register: its descriptor and its handler.
///
/// ```
/// use mcp_rounds::model::{CallToolResult, Tool};
/// use mcp_rounds::{Server, ToolCall, ToolRoute};
///
/// let echo = ToolRoute::new(
///     Tool::new("echo", serde_json::from_value(serde_json::json!({
///         "type": "object",
///         "properties": {"text": {"type": "string"}},
///         "required": ["text"]
///     })).unwrap()),
///     |call: ToolCall| async move {
///         let text = call.arguments.get("text").and_then(|t| t.as_str()).unwrap_or_default();
///         Ok(CallToolResult::text(text).into())
///     },
/// );
/// let server = Server::builder("echo-server", "1.0.0").tool(echo).build().unwrap();
/// ```
#[derive(Clone)]
pub struct ToolRoute {
    pub(crate) name: Arc<str>,
    pub(crate) tool: Tool,
    pub(crate) handler: Arc<dyn ToolHandler>,
    pub(crate) requirements: Requirements,
    pub(crate) uses_rounds: bool,
    /// The `x-mcp-header` declarations of the input schema, read once here; the error (an
    /// invalid declaration) is reported by `ServerBuilder::build`.
    pub(crate) param_headers: Result<Arc<[ParamHeader]>, String>,
    pub(crate) task: TaskSupport,
    /// The OAuth scopes a call needs, checked before the handler runs.
    pub(crate) scopes: Arc<[Arc<str>]>,
}

impl ToolRoute {
    /// Pairs a descriptor with its handler.
    pub fn new(tool: Tool, handler: impl ToolHandler) -> Self {
        ToolRoute {
            name: tool.name.as_str().into(),
            param_headers: param_headers(&tool.input_schema).map(Arc::from),
            tool,
            handler: Arc::new(handler),
            requirements: Requirements::default(),
            uses_rounds: false,
            task: TaskSupport::Never,
            scopes: Arc::new([]),
        }
    }

    /// The OAuth scopes a call needs (all of them); a caller without them gets -31403, over
    /// HTTP a 403 `insufficient_scope` challenge, before the handler runs. The same as
    /// `#[tool(scopes("..."))]`.
    pub fn scopes<S: Into<Arc<str>>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the tool runs as a task (see [`tasks`](crate::tasks)).
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task = support;
        self
    }

    /// The descriptor.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// The arguments clients repeat in `Mcp-Param-*` headers (none when the declarations
    /// are invalid, which keeps the server from being built).
    pub fn param_headers(&self) -> &[ParamHeader] {
        self.param_headers.as_deref().unwrap_or_default()
    }
}

impl std::fmt::Debug for ToolRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRoute").field("tool", &self.tool.name).finish_non_exhaustive()
    }
}

/// A tool described by `#[tool]`: implemented by the unit struct the macro puts in place of
/// the function.
#[doc(hidden)]
pub trait ToolDefinition: Send + Sync + 'static {
    /// The descriptor, or what is wrong with the function's parameters.
    fn describe() -> Result<Tool, String>;

    /// Whether the tool has rounds (and so needs state keys).
    fn uses_rounds() -> bool {
        false
    }

    /// What the parameters need from the server.
    fn requirements(requirements: &mut Requirements) {
        let _ = requirements;
    }

    /// Whether the tool runs as a task.
    fn task_support() -> TaskSupport {
        TaskSupport::Never
    }

    /// The OAuth scopes a call needs.
    fn scopes() -> &'static [&'static str] {
        &[]
    }

    /// Runs one call.
    fn call(&self, call: ToolCall) -> BoxFuture<'_, Result<Outcome<CallToolResult>, Error>>;
}

/// Anything [`ServerBuilder::tool`](crate::ServerBuilder::tool) accepts: a `#[tool]` function
/// or a [`ToolRoute`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "expected a function annotated with #[tool], or a ToolRoute",
    note = "put #[mcp_rounds::tool] on the function, or build a ToolRoute by hand"
)]
pub trait IntoToolRoute {
    /// The route, or why it cannot be served.
    fn into_route(self) -> Result<ToolRoute, BuildError>;
}

impl IntoToolRoute for ToolRoute {
    fn into_route(self) -> Result<ToolRoute, BuildError> {
        Ok(self)
    }
}

struct DefinedTool<T>(T);

impl<T: ToolDefinition> ToolHandler for DefinedTool<T> {
    fn call(&self, call: ToolCall) -> BoxFuture<'_, Result<Outcome<CallToolResult>, Error>> {
        self.0.call(call)
    }
}

impl<T: ToolDefinition> IntoToolRoute for T {
    fn into_route(self) -> Result<ToolRoute, BuildError> {
        let tool = T::describe().map_err(|problem| BuildError::InvalidTool {
            tool: std::any::type_name::<T>().rsplit("::").next().unwrap_or_default().to_owned(),
            problem,
        })?;
        let mut requirements = Requirements::default();
        T::requirements(&mut requirements);
        Ok(ToolRoute {
            name: tool.name.as_str().into(),
            param_headers: param_headers(&tool.input_schema).map(Arc::from),
            tool,
            handler: Arc::new(DefinedTool(self)),
            requirements,
            uses_rounds: T::uses_rounds(),
            task: T::task_support(),
            scopes: T::scopes().iter().map(|&scope| Arc::from(scope)).collect(),
        })
    }
}
