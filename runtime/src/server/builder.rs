//! Describing a server: what it serves, how it signs state and keeps tasks, and the layers
//! around its dispatch.

use std::convert::Infallible;
use std::sync::Arc;

use tower::{Layer, Service, ServiceExt as _};

use super::{Inner, Server};
use crate::apps::IntoView;
use crate::context::RequestContext;
use crate::dispatch::tasks::TaskRuntime;
use crate::dispatch::{BoxDispatch, BoxError, Dispatch, Layers, McpRequest, McpResponse};
use crate::error::BuildError;
use crate::handler::{Handler, HandlerKind};
use crate::model::{CacheHints, Implementation};
use crate::registry::Description;
use crate::replay::ReplayStore;
use crate::request_state::KeyRing;
use crate::tasks::TaskStore;
use crate::tool::{IntoToolRoute, ToolRoute};

/// Wraps the service built so far in one more layer.
type Wrap = Box<dyn FnOnce(BoxDispatch) -> BoxDispatch + Send>;

/// Builds a [`Server`].
///
/// ```
/// use mcp_rounds::Server;
/// use mcp_rounds::model::CacheHints;
///
/// let server = Server::builder("weather", "1.2.0")
///     .instructions("Use get_forecast for anything about tomorrow.")
///     .discover_cache(CacheHints::public(3_600_000))
///     .build()
///     .unwrap();
/// ```
#[must_use = "a builder does nothing until .build() is called"]
pub struct ServerBuilder {
    description: Description,
    tasks: TaskRuntime,
    legacy_sessions: bool,
    telemetry: bool,
    layers: Vec<Wrap>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder").field("info", &self.description.info).finish_non_exhaustive()
    }
}

impl ServerBuilder {
    pub(super) fn new(info: Implementation) -> Self {
        ServerBuilder {
            description: Description::new(info),
            tasks: TaskRuntime::default(),
            legacy_sessions: true,
            telemetry: true,
            layers: Vec::new(),
        }
    }

    /// Replaces the server's self-description (title, description, icons, website).
    pub fn info(mut self, info: Implementation) -> Self {
        self.description.info = info;
        self
    }

    /// Guidance for the model, returned by `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.description.instructions = Some(instructions.into());
        self
    }

    /// Registers annotated functions, listed with [`handlers!`](crate::handlers).
    pub fn handlers(mut self, handlers: impl IntoIterator<Item = Handler>) -> Self {
        for Handler(kind) in handlers {
            match kind {
                HandlerKind::Tool(route) => self.description.tools.push(route),
                HandlerKind::Resource(route) => self.description.resources.push(route),
                HandlerKind::Prompt(route) => self.description.prompts.push(route),
                HandlerKind::View(view) => self.description.resources.push(view.into_route()),
            }
        }
        self
    }

    /// Registers a tool built by hand (annotated functions go through [`handlers`](Self::handlers)).
    pub fn tool(mut self, tool: impl IntoToolRoute) -> Self {
        self.description.tools.push(tool.into_route());
        self
    }

    /// Registers an MCP Apps view built by hand (`#[view]` items go through
    /// [`handlers`](Self::handlers)); see [`apps`](crate::apps).
    pub fn view(mut self, view: impl IntoView) -> Self {
        self.description.resources.push(view.into_view().into_route());
        self
    }

    /// Registers several hand-built tools.
    pub fn tools(mut self, routes: impl IntoIterator<Item = ToolRoute>) -> Self {
        self.description.tools.extend(routes.into_iter().map(Ok));
        self
    }

    /// Registers shared state, available to handlers as [`State<T>`](crate::State).
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.description.state.insert(Arc::new(value));
        self
    }

    /// The keys that sign and verify `requestState` (required by tools with rounds). Load them
    /// from configuration, so that every instance behind a load balancer shares them; use
    /// [`KeyRing::development`](crate::request_state::KeyRing::development) only on purpose.
    pub fn state_keys(mut self, keys: KeyRing) -> Self {
        self.description.rounds.keys = Some(keys);
        self
    }

    /// How long a `requestState` stays valid (default 5 minutes).
    pub fn state_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.description.rounds.ttl = ttl;
        self
    }

    /// Where single-use states are claimed (default: in memory, this process only). Share one
    /// store between every instance that serves the same tools.
    pub fn replay_store(mut self, store: impl ReplayStore) -> Self {
        self.description.rounds.store = Arc::new(store);
        self
    }

    /// Where tasks are kept (default: in memory, this process only). Share one store between
    /// every instance that serves the same tools, so that any of them answers `tasks/get`.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.tasks.store = Arc::new(store);
        self
    }

    /// How long a task stays readable after it was created (default one day); `None` keeps
    /// it until the store is cleared.
    pub fn task_ttl(mut self, ttl: Option<std::time::Duration>) -> Self {
        self.tasks.ttl = ttl;
        self
    }

    /// How long the instance running a task vouches for it between renewals (default 15 s).
    /// A task whose instance stops (a crash, a restart) is reported failed this long after.
    pub fn task_lease(mut self, lease: std::time::Duration) -> Self {
        self.tasks.lease = lease.max(std::time::Duration::from_millis(100));
        self
    }

    /// Which resources a listener may subscribe to: `allow(context, uri)` sees the request and
    /// the normalized URI, and a URI it refuses is left out of the acknowledged filter (the
    /// client learns nothing about whether it exists). By default every resource the server
    /// serves may be subscribed to; a server whose resources belong to someone should check
    /// here exactly what its reads check.
    pub fn authorize_subscriptions(
        mut self,
        allow: impl Fn(&RequestContext, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.description.subscriptions = Arc::new(allow);
        self
    }

    /// Items per page of every list (default 500).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.description.page_size = page_size.max(1);
        self
    }

    /// Cache hints of `server/discover` (default: public, 5 minutes).
    pub fn discover_cache(mut self, hints: CacheHints) -> Self {
        self.description.discover_cache = hints;
        self
    }

    /// Cache hints of `tools/list` (default: public, 5 minutes).
    pub fn tools_cache(mut self, hints: CacheHints) -> Self {
        self.description.tools_cache = hints;
        self
    }

    /// Cache hints of `prompts/list` (default: public, 5 minutes).
    pub fn prompts_cache(mut self, hints: CacheHints) -> Self {
        self.description.prompts_cache = hints;
        self
    }

    /// Cache hints of `resources/templates/list` (default: public, 5 minutes).
    pub fn resource_templates_cache(mut self, hints: CacheHints) -> Self {
        self.description.templates_cache = hints;
        self
    }

    /// Cache hints of `resources/list`. The default is public for 5 minutes when the list is
    /// fixed, and private with no reuse when a template lists its resources per request (they
    /// may depend on who asks).
    pub fn resources_cache(mut self, hints: CacheHints) -> Self {
        self.description.resources_cache = Some(hints);
        self
    }

    /// Serves the Agent Skills in `dir` through the skills extension
    /// (`io.modelcontextprotocol/skills`): one folder a skill, each with a `SKILL.md` whose
    /// frontmatter has `name` (the folder's name) and `description`, any files beside it.
    /// Clients find them with `skills/list` and `skills/get`, read their files as `skill://`
    /// resources and browse their folders with `resources/directory/read`. A skill added,
    /// changed or removed while the server runs is served as it is now, and listeners hear
    /// `notifications/resources/list_changed`. A skill that breaks a rule (see
    /// [`skills`](crate::skills)) is left out with a warning; the build fails only when `dir`
    /// itself cannot be read.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("skills-builder-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(dir.join("tps-report-writing")).unwrap();
    /// # std::fs::write(dir.join("tps-report-writing/SKILL.md"),
    /// #     "---\nname: tps-report-writing\ndescription: Write TPS reports.\n---\n# TPS reports\n").unwrap();
    /// use mcp_rounds::Server;
    ///
    /// let server = Server::builder("notes", "1.0.0").skills_dir(&dir).build().unwrap();
    /// # drop(server);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    #[cfg(feature = "skills")]
    pub fn skills_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.description.skills_dir = Some(dir.into());
        self
    }

    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]` (default true).
    pub fn stamp_server_info(mut self, stamp: bool) -> Self {
        self.description.stamp_server_info = stamp;
        self
    }

    /// Whether clients of revision 2025-11-25 and 2025-06-18 are served (default true): an
    /// `initialize` then opens a session in which the same tools, resources and prompts run
    /// unchanged, with rounds played out as live requests to the client. When false,
    /// `initialize` is answered -32601 with the versions this server speaks.
    pub fn legacy_sessions(mut self, serve: bool) -> Self {
        self.legacy_sessions = serve;
        self
    }

    /// Whether the server observes every request itself (default true): a server span by the
    /// OpenTelemetry semantic conventions for MCP around all of its layers, joined to the
    /// caller's trace, and the metrics (see [`telemetry`](crate::telemetry)). Turn it off to
    /// put a [`TelemetryLayer`](crate::middleware::TelemetryLayer) elsewhere in the stack, or
    /// a layer of your own in its place.
    pub fn telemetry(mut self, observe: bool) -> Self {
        self.telemetry = observe;
        self
    }

    /// Wraps dispatch in a [`tower::Layer`], on every transport and for clients of every
    /// revision. The layer's service takes an [`McpRequest`] and answers an [`McpResponse`]
    /// (see [`dispatch`](crate::dispatch)); an error it returns is answered as -32603, or as
    /// itself when it is an [`Error`](crate::Error). Each call wraps the layers added before
    /// it, as axum's `Router::layer` does: the last one added sees a request first.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<BoxDispatch> + Send + 'static,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + Sync + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError> + 'static,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        self.layers.push(Box::new(move |inner| BoxDispatch::new(layer.layer(inner).map_err(Into::into))));
        self
    }

    /// Checks the description, renders everything that does not change per request, and
    /// puts the layers around dispatch.
    pub fn build(self) -> Result<Server, BuildError> {
        let registry = Arc::new(self.description.build()?);
        let dispatch = Dispatch { registry: registry.clone(), tasks: Arc::new(self.tasks) };
        let layers = if self.layers.is_empty() {
            Layers::Bare(dispatch)
        } else {
            let bare = BoxDispatch::new(dispatch.map_err(|never: Infallible| match never {}));
            Layers::Layered(self.layers.into_iter().fold(bare, |inner, wrap| wrap(inner)))
        };
        let inner = Inner { registry, layers, legacy_sessions: self.legacy_sessions, telemetry: self.telemetry };
        Ok(Server { inner: Arc::new(inner) })
    }
}
