//! Building a [`Registry`]: every check a description must pass, and every rendering that does
//! not depend on the request, done once.

use std::sync::Arc;

use super::catalog::ResourceCatalog;
use super::rendered::{Rendered, RenderedList};
use super::{Registry, SubscriptionPolicy};
use crate::changes::Changes;
use crate::context::{RoundsConfig, Shared, StateMap, is_scope_token};
use crate::error::BuildError;
use crate::extract::Requirements;
use crate::model::{
    CacheHints, DiscoverResult, Implementation, JsonObject, ListPromptsResult, ListToolsResult, PromptsCapability,
    ResourcesCapability, ServerCapabilities, TASKS_EXTENSION, ToolsCapability, is_valid_tool_name,
};
use crate::pagination::DEFAULT_PAGE_SIZE;
use crate::prompt::PromptRoute;
use crate::request_state::KeyRing;
use crate::resource::ResourceRoute;
use crate::tasks::TaskSupport;
use crate::tool::ToolRoute;
use crate::version::SUPPORTED_PROTOCOL_VERSIONS;

/// Lists whose items do not change while the server runs: shared by everyone for 5 minutes.
pub(crate) const STATIC_LIST_CACHE: CacheHints = CacheHints::public(300_000);

/// Everything a registry is built from, as the server builder collected it.
pub(crate) struct Description {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) tools: Vec<Result<ToolRoute, BuildError>>,
    pub(crate) resources: Vec<Result<ResourceRoute, BuildError>>,
    pub(crate) prompts: Vec<Result<PromptRoute, BuildError>>,
    pub(crate) state: StateMap,
    pub(crate) rounds: RoundsConfig,
    pub(crate) page_size: usize,
    pub(crate) discover_cache: CacheHints,
    pub(crate) tools_cache: CacheHints,
    pub(crate) prompts_cache: CacheHints,
    pub(crate) templates_cache: CacheHints,
    pub(crate) resources_cache: Option<CacheHints>,
    pub(crate) stamp_server_info: bool,
    pub(crate) subscriptions: SubscriptionPolicy,
    #[cfg(feature = "skills")]
    pub(crate) skills_dir: Option<std::path::PathBuf>,
}

impl Description {
    /// A server named `info` that offers nothing yet.
    pub(crate) fn new(info: Implementation) -> Self {
        Description {
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
            #[cfg(feature = "skills")]
            skills_dir: None,
        }
    }

    /// Checks the description and renders everything that does not change per request.
    pub(crate) fn build(self) -> Result<Registry, BuildError> {
        let info = Arc::new(self.info);
        let stamp = self.stamp_server_info.then(|| info.clone());
        let keys = self.rounds.keys.is_some();

        let mut tools = self.tools.into_iter().collect::<Result<Vec<_>, _>>()?;
        for route in &tools {
            let name = &route.tool.name;
            if !is_valid_tool_name(name) {
                return Err(BuildError::InvalidToolName(name.clone()));
            }
            if let Some(bad) = route.scopes.iter().find(|scope| !is_scope_token(scope)) {
                let problem =
                    format!("scope {bad:?} is not an OAuth scope: use visible ASCII without spaces, \" or \\");
                return Err(BuildError::InvalidTool { tool: name.clone(), problem });
            }
            if route.tool.input_schema.get("type").and_then(|t| t.as_str()) != Some("object") {
                return Err(BuildError::InputSchemaNotObject(name.clone()));
            }
            if let Err(problem) = &route.param_headers {
                return Err(BuildError::InvalidParamHeader { tool: name.clone(), problem: problem.clone() });
            }
            check_handler(&self.state, &route.requirements, route.uses_rounds && !keys, name)?;
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
            check_handler(&self.state, &route.requirements, route.uses_rounds && !keys, &route.prompt.name)?;
        }
        prompts.sort_by(|a, b| a.prompt.name.cmp(&b.prompt.name));
        if let Some(pair) = prompts.windows(2).find(|w| w[0].prompt.name == w[1].prompt.name) {
            return Err(BuildError::DuplicatePrompt(pair[0].prompt.name.clone()));
        }

        let resources = self.resources.into_iter().collect::<Result<Vec<_>, _>>()?;
        for route in &resources {
            check_handler(&self.state, &route.requirements, false, &route.descriptor.name)?;
        }
        #[cfg(feature = "skills")]
        let skills = match &self.skills_dir {
            Some(dir) => Some(open_skills(dir, &resources)?),
            None => None,
        };
        let catalog = ResourceCatalog::new(
            resources,
            self.page_size,
            self.resources_cache,
            self.templates_cache,
            stamp.as_ref(),
            #[cfg(feature = "skills")]
            skills.clone(),
        )?;
        for route in &mut tools {
            crate::apps::link_tool(&mut route.tool, |uri| catalog.view(uri))?;
        }

        // Every list can change and every resource can be subscribed to: `Changes` announces
        // them and subscriptions/listen delivers them.
        let capabilities = ServerCapabilities {
            tools: (!tools.is_empty()).then_some(ToolsCapability { list_changed: Some(true) }),
            prompts: (!prompts.is_empty()).then_some(PromptsCapability { list_changed: Some(true) }),
            resources: (!catalog.is_empty())
                .then_some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) }),
            logging: Some(JsonObject::new()),
            completions: (prompts.iter().any(|r| r.completes) || catalog.completes()).then(JsonObject::new),
            extensions: extensions(&tools, &catalog),
            ..Default::default()
        };
        #[cfg(feature = "skills")]
        let capabilities = with_skills(capabilities, skills.is_some());

        let discover = Rendered::new(
            DiscoverResult {
                supported_versions: SUPPORTED_PROTOCOL_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
                capabilities: capabilities.clone(),
                instructions: self.instructions.clone(),
                ttl_ms: self.discover_cache.ttl_ms,
                cache_scope: self.discover_cache.cache_scope,
                ..Default::default()
            },
            stamp.as_ref(),
        );
        let tool_list = RenderedList::new(&tools, self.page_size, |page, next_cursor| {
            let list = ListToolsResult {
                tools: page.iter().map(|r| r.tool.clone()).collect(),
                next_cursor,
                ttl_ms: self.tools_cache.ttl_ms,
                cache_scope: self.tools_cache.cache_scope,
                ..Default::default()
            };
            Rendered::new(list, stamp.as_ref())
        });
        let prompt_list = RenderedList::new(&prompts, self.page_size, |page, next_cursor| {
            let list = ListPromptsResult {
                prompts: page.iter().map(|r| r.prompt.clone()).collect(),
                next_cursor,
                ttl_ms: self.prompts_cache.ttl_ms,
                cache_scope: self.prompts_cache.cache_scope,
                ..Default::default()
            };
            Rendered::new(list, stamp.as_ref())
        });

        let shared = Arc::new(Shared { state: self.state, rounds: self.rounds, changes: Changes::default() });
        #[cfg(feature = "skills")]
        if let Some(skills) = &skills {
            skills.watch(shared.changes.clone());
        }
        Ok(Registry {
            info,
            instructions: self.instructions,
            stamp,
            capabilities,
            discover,
            shared,
            tools: tools.into_iter().map(|r| (r.tool.name.clone().into_boxed_str(), r)).collect(),
            tool_list,
            prompts: prompts.into_iter().map(|r| (r.prompt.name.clone().into_boxed_str(), r)).collect(),
            prompt_list,
            resources: catalog,
            subscriptions: self.subscriptions,
            #[cfg(feature = "skills")]
            skills,
        })
    }
}

/// The extensions the server's own handlers use: tasks when a tool runs as one, MCP Apps when
/// it has views.
fn extensions(
    tools: &[ToolRoute],
    catalog: &ResourceCatalog,
) -> Option<std::collections::BTreeMap<String, JsonObject>> {
    let mut extensions = std::collections::BTreeMap::new();
    if tools.iter().any(|r| r.task != TaskSupport::Never) {
        extensions.insert(TASKS_EXTENSION.to_owned(), JsonObject::new());
    }
    if catalog.has_views() {
        extensions.insert(crate::model::UI_EXTENSION.to_owned(), crate::model::ui_settings());
    }
    (!extensions.is_empty()).then_some(extensions)
}

/// The skills of `dir`, which owns the `skill://` scheme: no resource of the server's may use it.
#[cfg(feature = "skills")]
fn open_skills(dir: &std::path::Path, resources: &[ResourceRoute]) -> Result<Arc<crate::skills::Live>, BuildError> {
    if let Some(route) = resources.iter().find(|route| route.descriptor.template.as_str().starts_with("skill://")) {
        return Err(BuildError::InvalidResource {
            resource: route.descriptor.name.clone(),
            problem: "skill:// URIs are the skills directory's; use a scheme of your own".into(),
        });
    }
    crate::skills::Live::open(dir)
        .map_err(|e| BuildError::SkillsDirectory { path: dir.display().to_string(), problem: e.to_string() })
}

/// Declares the skills extension, with `resources/directory/read`, and the resources its files
/// are read through.
#[cfg(feature = "skills")]
fn with_skills(mut capabilities: ServerCapabilities, skills: bool) -> ServerCapabilities {
    if skills {
        capabilities.resources = Some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) });
        let settings: JsonObject = [("directoryRead".to_owned(), serde_json::Value::Bool(true))].into_iter().collect();
        capabilities.extensions.get_or_insert_default().insert(crate::model::SKILLS_EXTENSION.to_owned(), settings);
    }
    capabilities
}

/// What one handler needs that the server may lack: registered state, and keys for rounds.
fn check_handler(
    state: &StateMap,
    requirements: &Requirements,
    lacks_keys: bool,
    handler: &str,
) -> Result<(), BuildError> {
    if let Some(missing) = requirements.missing_state(state) {
        return Err(BuildError::MissingState { handler: handler.to_owned(), state: missing.type_name().to_owned() });
    }
    if lacks_keys {
        return Err(BuildError::NoStateKeys(handler.to_owned()));
    }
    Ok(())
}

impl serde::Serialize for ToolRoute {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.tool.serialize(serializer)
    }
}

impl serde::Serialize for PromptRoute {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.prompt.serialize(serializer)
    }
}
