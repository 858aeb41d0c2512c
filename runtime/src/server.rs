//! The server: what it offers, built once, and the entry point transports call.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::catalog::ResourceCatalog;
use crate::changes::Changes;
use crate::context::{Notifier, Principal, RequestContext, RoundsConfig, Shared, StateMap};
use crate::error::{BuildError, Error, ErrorCode};
use crate::extract::Requirements;
use crate::handler::{Handler, HandlerKind};
use crate::headers::StandardHeaders;
use crate::jsonrpc::{self, Request};
use crate::model::{
    CacheHints, DiscoverResult, Implementation, JsonObject, ListPromptsResult, ListToolsResult, PromptsCapability,
    ResourcesCapability, ResultMeta, ServerCapabilities, ToolsCapability, is_valid_tool_name,
};
use crate::pagination::{DEFAULT_PAGE_SIZE, Pager, fingerprint};
use crate::prompt::PromptRoute;
use crate::replay::ReplayStore;
use crate::request_state::KeyRing;
use crate::resource::ResourceRoute;
use crate::tasks::{TaskStore, TaskSupport, TasksConfig};
use crate::tool::{IntoToolRoute, ToolRoute};
use crate::version::SUPPORTED_PROTOCOL_VERSIONS;

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
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<Result<ToolRoute, BuildError>>,
    resources: Vec<Result<ResourceRoute, BuildError>>,
    prompts: Vec<Result<PromptRoute, BuildError>>,
    state: StateMap,
    rounds: RoundsConfig,
    page_size: usize,
    discover_cache: CacheHints,
    tools_cache: CacheHints,
    prompts_cache: CacheHints,
    templates_cache: CacheHints,
    resources_cache: Option<CacheHints>,
    stamp_server_info: bool,
    subscriptions: SubscriptionPolicy,
    legacy_sessions: bool,
    tasks: TasksConfig,
}

/// Decides which resource URIs a listener may subscribe to.
pub(crate) type SubscriptionPolicy = Arc<dyn Fn(&RequestContext, &str) -> bool + Send + Sync>;

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder").field("info", &self.info).finish_non_exhaustive()
    }
}

/// Lists whose items do not change while the server runs: shared by everyone for 5 minutes.
const STATIC_LIST_CACHE: CacheHints = CacheHints::public(300_000);

impl ServerBuilder {
    fn new(info: Implementation) -> Self {
        ServerBuilder {
            info,
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
            state: StateMap::default(),
            rounds: RoundsConfig::default(),
            page_size: DEFAULT_PAGE_SIZE,
            discover_cache: STATIC_LIST_CACHE,
            tools_cache: STATIC_LIST_CACHE,
            prompts_cache: STATIC_LIST_CACHE,
            templates_cache: STATIC_LIST_CACHE,
            resources_cache: None,
            stamp_server_info: true,
            subscriptions: Arc::new(|_, _| true),
            legacy_sessions: true,
            tasks: TasksConfig::default(),
        }
    }

    /// Replaces the server's self-description (title, description, icons, website).
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Guidance for the model, returned by `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Registers annotated functions, listed with [`handlers!`](crate::handlers).
    pub fn handlers(mut self, handlers: impl IntoIterator<Item = Handler>) -> Self {
        for Handler(kind) in handlers {
            match kind {
                HandlerKind::Tool(route) => self.tools.push(route),
                HandlerKind::Resource(route) => self.resources.push(route),
                HandlerKind::Prompt(route) => self.prompts.push(route),
            }
        }
        self
    }

    /// Registers a tool built by hand (annotated functions go through [`handlers`](Self::handlers)).
    pub fn tool(mut self, tool: impl IntoToolRoute) -> Self {
        self.tools.push(tool.into_route());
        self
    }

    /// Registers several hand-built tools.
    pub fn tools(mut self, routes: impl IntoIterator<Item = ToolRoute>) -> Self {
        self.tools.extend(routes.into_iter().map(Ok));
        self
    }

    /// Registers shared state, available to handlers as [`State<T>`](crate::State).
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(Arc::new(value));
        self
    }

    /// The keys that sign and verify `requestState` (required by tools with rounds). Load them
    /// from configuration, so that every instance behind a load balancer shares them; use
    /// [`KeyRing::development`](crate::request_state::KeyRing::development) only on purpose.
    pub fn state_keys(mut self, keys: KeyRing) -> Self {
        self.rounds.keys = Some(keys);
        self
    }

    /// How long a `requestState` stays valid (default 5 minutes).
    pub fn state_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.rounds.ttl = ttl;
        self
    }

    /// Where single-use states are claimed (default: in memory, this process only). Share one
    /// store between every instance that serves the same tools.
    pub fn replay_store(mut self, store: impl ReplayStore) -> Self {
        self.rounds.store = Arc::new(store);
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
        self.subscriptions = Arc::new(allow);
        self
    }

    /// Items per page of every list (default 500).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// Cache hints of `server/discover` (default: public, 5 minutes).
    pub fn discover_cache(mut self, hints: CacheHints) -> Self {
        self.discover_cache = hints;
        self
    }

    /// Cache hints of `tools/list` (default: public, 5 minutes).
    pub fn tools_cache(mut self, hints: CacheHints) -> Self {
        self.tools_cache = hints;
        self
    }

    /// Cache hints of `prompts/list` (default: public, 5 minutes).
    pub fn prompts_cache(mut self, hints: CacheHints) -> Self {
        self.prompts_cache = hints;
        self
    }

    /// Cache hints of `resources/templates/list` (default: public, 5 minutes).
    pub fn resource_templates_cache(mut self, hints: CacheHints) -> Self {
        self.templates_cache = hints;
        self
    }

    /// Cache hints of `resources/list`. The default is public for 5 minutes when the list is
    /// fixed, and private with no reuse when a template lists its resources per request (they
    /// may depend on who asks).
    pub fn resources_cache(mut self, hints: CacheHints) -> Self {
        self.resources_cache = Some(hints);
        self
    }

    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]` (default true).
    pub fn stamp_server_info(mut self, stamp: bool) -> Self {
        self.stamp_server_info = stamp;
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

    /// Checks the description and renders everything that does not change per request.
    pub fn build(self) -> Result<Server, BuildError> {
        let info = Arc::new(self.info);
        let result_meta =
            ResultMeta { server_info: self.stamp_server_info.then(|| info.clone()), ..Default::default() };

        let mut tools = self.tools.into_iter().collect::<Result<Vec<_>, _>>()?;
        for route in &tools {
            let name = &route.tool.name;
            if !is_valid_tool_name(name) {
                return Err(BuildError::InvalidToolName(name.clone()));
            }
            if route.tool.input_schema.get("type").and_then(|t| t.as_str()) != Some("object") {
                return Err(BuildError::InputSchemaNotObject(name.clone()));
            }
            if let Err(problem) = &route.param_headers {
                return Err(BuildError::InvalidParamHeader { tool: name.clone(), problem: problem.clone() });
            }
            check_state(&self.state, &route.requirements, name)?;
            if route.uses_rounds && self.rounds.keys.is_none() {
                return Err(BuildError::NoStateKeys(name.clone()));
            }
        }
        if self.rounds.keys.as_ref().is_some_and(KeyRing::is_development) {
            tracing::warn!("requestState is signed with a development key: no other process will accept it");
        }
        tools.sort_by(|a, b| a.tool.name.cmp(&b.tool.name));
        if let Some(pair) = tools.windows(2).find(|w| w[0].tool.name == w[1].tool.name) {
            return Err(BuildError::DuplicateTool(pair[0].tool.name.clone()));
        }

        let mut prompts = self.prompts.into_iter().collect::<Result<Vec<_>, _>>()?;
        for route in &prompts {
            check_state(&self.state, &route.requirements, &route.prompt.name)?;
            if route.uses_rounds && self.rounds.keys.is_none() {
                return Err(BuildError::NoStateKeys(route.prompt.name.clone()));
            }
        }
        prompts.sort_by(|a, b| a.prompt.name.cmp(&b.prompt.name));
        if let Some(pair) = prompts.windows(2).find(|w| w[0].prompt.name == w[1].prompt.name) {
            return Err(BuildError::DuplicatePrompt(pair[0].prompt.name.clone()));
        }

        let resources = self.resources.into_iter().collect::<Result<Vec<_>, _>>()?;
        for route in &resources {
            check_state(&self.state, &route.requirements, &route.descriptor.name)?;
        }
        let catalog =
            ResourceCatalog::new(resources, self.page_size, self.resources_cache, self.templates_cache, &result_meta)?;

        // Every list can change and every resource can be subscribed to: `Changes` announces
        // them and subscriptions/listen delivers them.
        let capabilities = ServerCapabilities {
            tools: (!tools.is_empty()).then_some(ToolsCapability { list_changed: Some(true) }),
            prompts: (!prompts.is_empty()).then_some(PromptsCapability { list_changed: Some(true) }),
            resources: (!catalog.is_empty())
                .then_some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) }),
            logging: Some(JsonObject::new()),
            completions: (prompts.iter().any(|r| r.completes) || catalog.completes()).then(JsonObject::new),
            extensions: tools
                .iter()
                .any(|r| r.task != TaskSupport::Never)
                .then(|| [(crate::model::TASKS_EXTENSION.to_owned(), JsonObject::new())].into_iter().collect()),
            ..Default::default()
        };

        let discover = render(&DiscoverResult {
            supported_versions: SUPPORTED_PROTOCOL_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            capabilities: capabilities.clone(),
            instructions: self.instructions.clone(),
            ttl_ms: self.discover_cache.ttl_ms,
            cache_scope: self.discover_cache.cache_scope,
            meta: result_meta.clone(),
            ..Default::default()
        });

        let tool_list = RenderedList::new(&tools, self.page_size, |page, next_cursor| {
            render(&ListToolsResult {
                tools: page.iter().map(|r| r.tool.clone()).collect(),
                next_cursor,
                ttl_ms: self.tools_cache.ttl_ms,
                cache_scope: self.tools_cache.cache_scope,
                meta: result_meta.clone(),
                ..Default::default()
            })
        });
        let prompt_list = RenderedList::new(&prompts, self.page_size, |page, next_cursor| {
            render(&ListPromptsResult {
                prompts: page.iter().map(|r| r.prompt.clone()).collect(),
                next_cursor,
                ttl_ms: self.prompts_cache.ttl_ms,
                cache_scope: self.prompts_cache.cache_scope,
                meta: result_meta.clone(),
                ..Default::default()
            })
        });
        let tool_routes = tools.into_iter().map(|r| (r.tool.name.clone().into_boxed_str(), r)).collect();
        let prompt_routes = prompts.into_iter().map(|r| (r.prompt.name.clone().into_boxed_str(), r)).collect();

        Ok(Server {
            inner: Arc::new(Inner {
                info,
                instructions: self.instructions,
                legacy_sessions: self.legacy_sessions,
                result_meta,
                capabilities,
                discover,
                shared: Arc::new(Shared { state: self.state, rounds: self.rounds, changes: Changes::default() }),
                tasks: self.tasks,
                tools: tool_routes,
                tool_list,
                prompts: prompt_routes,
                prompt_list,
                resources: catalog,
                subscriptions: self.subscriptions,
            }),
        })
    }
}

fn check_state(state: &StateMap, requirements: &Requirements, handler: &str) -> Result<(), BuildError> {
    match requirements.missing_state(state) {
        Some(missing) => {
            Err(BuildError::MissingState { handler: handler.to_owned(), state: missing.type_name().to_owned() })
        }
        None => Ok(()),
    }
}

/// Serializes a value that is known to serialize (protocol types with string keys).
pub(crate) fn render<T: Serialize>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("protocol types serialize to JSON")
}

/// A list cut into pages and rendered once.
pub(crate) struct RenderedList {
    pub(crate) pager: Pager,
    pub(crate) pages: Vec<Box<RawValue>>,
}

impl RenderedList {
    pub(crate) fn new<T: Serialize>(
        items: &[T],
        page_size: usize,
        mut render_page: impl FnMut(&[T], Option<String>) -> Box<RawValue>,
    ) -> Self {
        let rendered: Vec<Box<RawValue>> = items.iter().map(render).collect();
        let pager = Pager::new(items.len(), page_size, fingerprint(rendered.iter().map(|r| r.get().as_bytes())));
        let pages = (0..pager.page_count())
            .map(|i| {
                let (range, next) = pager.page(i);
                render_page(&items[range], next)
            })
            .collect();
        RenderedList { pager, pages }
    }

    pub(crate) fn page(&self, cursor: Option<&str>) -> Result<&RawValue, Error> {
        Ok(&self.pages[self.pager.page_index(cursor)?])
    }
}

impl Serialize for ToolRoute {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.tool.serialize(serializer)
    }
}

impl Serialize for PromptRoute {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.prompt.serialize(serializer)
    }
}

pub(crate) struct Inner {
    pub(crate) info: Arc<Implementation>,
    pub(crate) instructions: Option<String>,
    pub(crate) legacy_sessions: bool,
    pub(crate) result_meta: ResultMeta,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) discover: Box<RawValue>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) tasks: TasksConfig,
    pub(crate) tools: HashMap<Box<str>, ToolRoute>,
    pub(crate) tool_list: RenderedList,
    pub(crate) prompts: HashMap<Box<str>, PromptRoute>,
    pub(crate) prompt_list: RenderedList,
    pub(crate) resources: ResourceCatalog,
    pub(crate) subscriptions: SubscriptionPolicy,
}

impl Inner {
    /// Whether some tool runs as a task (and so the `tasks/*` methods exist).
    pub(crate) fn runs_tasks(&self) -> bool {
        self.capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(crate::model::TASKS_EXTENSION))
    }
}

/// The encoded answer to one request, with the error code when it is an error (transports
/// map codes to statuses).
#[derive(Debug)]
pub struct Response {
    /// One JSON-RPC response object, without framing.
    pub bytes: Vec<u8>,
    /// The error code, if the response is an error.
    pub error: Option<ErrorCode>,
}

/// One request as a transport hands it over.
#[derive(Debug)]
pub struct Call {
    /// The request.
    pub request: Request,
    /// Who is calling.
    pub principal: Principal,
    /// Cancelled when the client cancels or goes away.
    pub cancellation: CancellationToken,
    /// HTTP only: the standard headers, checked against the body.
    pub headers: Option<StandardHeaders>,
    /// Where the request's notifications go; without one, progress and logs are dropped and
    /// `subscriptions/listen` is refused.
    pub notifier: Option<Notifier>,
    /// Cancelled when the server shuts down: listen streams end with a result.
    pub shutdown: CancellationToken,
}

impl Call {
    /// A call with no headers, no notification stream and fresh tokens.
    pub fn new(request: Request, principal: Principal) -> Self {
        Call {
            request,
            principal,
            cancellation: CancellationToken::new(),
            headers: None,
            notifier: None,
            shutdown: CancellationToken::new(),
        }
    }
}

/// An MCP server: cheap to clone, shared by every connection and transport.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.result_meta.server_info)
            .field("tools", &self.inner.tools.len())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts describing a server with its name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(Implementation::new(name, version))
    }

    /// What `server/discover` advertises.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.capabilities
    }

    /// Announces changes to `subscriptions/listen` streams.
    pub fn changes(&self) -> Changes {
        self.inner.shared.changes.clone()
    }

    /// Answers one request. The future owns everything it needs, so transports can spawn it.
    pub fn handle(
        &self,
        request: Request,
        principal: Principal,
        cancellation: CancellationToken,
    ) -> impl Future<Output = Response> + Send + 'static {
        self.handle_call(Call { cancellation, ..Call::new(request, principal) })
    }

    /// Answers one request with everything a transport can provide.
    pub fn handle_call(&self, call: Call) -> impl Future<Output = Response> + Send + 'static {
        let inner = self.inner.clone();
        let span = tracing::debug_span!("request", id = %call.request.id, method = %call.request.method);
        async move {
            let id = call.request.id.clone();
            let dispatched = crate::future::CatchPanic(Box::pin(crate::router::dispatch(inner, call)));
            match dispatched.await.unwrap_or_else(|()| Err(Error::internal())) {
                Ok(bytes) => Response { bytes, error: None },
                Err(error) => {
                    tracing::debug!(code = error.code().code(), "request failed");
                    Response { bytes: jsonrpc::encode_error(Some(&id), &error), error: Some(error.code()) }
                }
            }
        }
        .instrument(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolCall;
    use crate::model::{CallToolResult, JsonObject, Tool};

    fn route(name: &str) -> ToolRoute {
        ToolRoute::new(Tool::new(name, Tool::no_arguments_schema()), |_c: ToolCall| async {
            Ok(CallToolResult::text("x").into())
        })
    }

    #[test]
    fn descriptions_that_cannot_be_served_are_refused() {
        let err = Server::builder("s", "1").tool(route("a")).tool(route("a")).build().unwrap_err();
        assert_eq!(err, BuildError::DuplicateTool("a".into()));
        let err = Server::builder("s", "1").tool(route("bad name")).build().unwrap_err();
        assert_eq!(err, BuildError::InvalidToolName("bad name".into()));
        let array = ToolRoute::new(
            Tool::new("arr", serde_json::from_value::<JsonObject>(serde_json::json!({"type": "array"})).unwrap()),
            |_c: ToolCall| async { Ok(CallToolResult::text("x").into()) },
        );
        let err = Server::builder("s", "1").tool(array).build().unwrap_err();
        assert_eq!(err, BuildError::InputSchemaNotObject("arr".into()));
    }

    #[test]
    fn tools_capability_follows_registration() {
        assert!(Server::builder("s", "1").build().unwrap().capabilities().tools.is_none());
        assert!(Server::builder("s", "1").tool(route("a")).build().unwrap().capabilities().tools.is_some());
    }

    async fn call(server: &Server, id: i64, method: &str, params: serde_json::Value) -> serde_json::Value {
        let mut params = params;
        params["_meta"] = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        let request = Request {
            id: id.into(),
            method: method.into(),
            params: Some(serde_json::value::to_raw_value(&params).unwrap()),
        };
        let response = server.handle(request, Principal::anonymous(), CancellationToken::new()).await;
        serde_json::from_slice(&response.bytes).unwrap()
    }

    #[tokio::test]
    async fn tools_list_pages_in_name_order_with_opaque_cursors() {
        let server = Server::builder("s", "1")
            .tools(["e", "c", "a", "d", "b"].map(route))
            .page_size(2)
            .tools_cache(CacheHints::private(0))
            .build()
            .unwrap();
        let mut names = Vec::new();
        let mut cursor = serde_json::Value::Null;
        for id in 0.. {
            let params = if cursor.is_null() { serde_json::json!({}) } else { serde_json::json!({"cursor": cursor}) };
            let page = call(&server, id, "tools/list", params).await;
            let result = &page["result"];
            assert_eq!(result["cacheScope"], "private");
            assert_eq!(result["ttlMs"], 0);
            names.extend(result["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()));
            cursor = result.get("nextCursor").cloned().unwrap_or_default();
            if cursor.is_null() {
                assert_eq!(id, 2, "five tools in pages of two make three pages");
                break;
            }
        }
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
    }

    #[tokio::test]
    async fn server_info_stamping_can_be_turned_off() {
        let quiet = Server::builder("s", "1").tool(route("a")).stamp_server_info(false).build().unwrap();
        let discover = call(&quiet, 1, "server/discover", serde_json::json!({})).await;
        assert!(discover["result"].get("_meta").is_none());
        let called = call(&quiet, 2, "tools/call", serde_json::json!({"name": "a"})).await;
        assert!(called["result"].get("_meta").is_none());
        let loud = Server::builder("s", "1").tool(route("a")).build().unwrap();
        let called = call(&loud, 2, "tools/call", serde_json::json!({"name": "a"})).await;
        assert_eq!(called["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "s");
    }
}
