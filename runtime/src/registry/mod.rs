//! What a server serves, checked and rendered once when it is built and never changed while
//! it serves: its tools, prompts and resources with their handlers, its capabilities, and every
//! result that does not depend on the request (discover, the lists).

mod build;
mod catalog;
mod rendered;

use std::collections::HashMap;
use std::sync::Arc;

pub(crate) use build::{Description, STATIC_LIST_CACHE};
pub(crate) use catalog::Listing;
pub(crate) use rendered::Rendered;

use crate::context::{RequestContext, Shared};
use crate::method::Capability;
use crate::model::{Implementation, ServerCapabilities, TASKS_EXTENSION};
use crate::prompt::PromptRoute;
use crate::tool::ToolRoute;
use catalog::ResourceCatalog;
use rendered::RenderedList;

/// Decides which resource URIs a listener may subscribe to.
pub(crate) type SubscriptionPolicy = Arc<dyn Fn(&RequestContext, &str) -> bool + Send + Sync>;

/// A built server's description.
pub(crate) struct Registry {
    pub(crate) info: Arc<Implementation>,
    pub(crate) instructions: Option<String>,
    /// The `serverInfo` stamp results of this revision carry, unless turned off.
    pub(crate) stamp: Option<Arc<Implementation>>,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) discover: Arc<Rendered>,
    pub(crate) shared: Arc<Shared>,
    /// Found by name on every call: hashed with foldhash, seeded per process, rather than
    /// SipHash (the names are the server's own; a client only looks them up).
    pub(crate) tools: HashMap<Box<str>, ToolRoute, foldhash::fast::RandomState>,
    pub(crate) tool_list: RenderedList,
    pub(crate) prompts: HashMap<Box<str>, PromptRoute, foldhash::fast::RandomState>,
    pub(crate) prompt_list: RenderedList,
    pub(crate) resources: ResourceCatalog,
    pub(crate) subscriptions: SubscriptionPolicy,
    /// The skills directory, when the server serves one.
    #[cfg(feature = "skills")]
    pub(crate) skills: Option<Arc<crate::skills::Live>>,
}

impl Registry {
    /// Whether some tool runs as a task (and so the `tasks/*` methods exist).
    pub(crate) fn runs_tasks(&self) -> bool {
        self.capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION))
    }

    /// Whether the server offers `capability`, and so the methods the method table says
    /// belong to it.
    pub(crate) fn offers(&self, capability: Capability) -> bool {
        match capability {
            Capability::Tools => self.capabilities.tools.is_some(),
            Capability::Resources => self.capabilities.resources.is_some(),
            Capability::Prompts => self.capabilities.prompts.is_some(),
            Capability::Completions => self.capabilities.completions.is_some(),
            Capability::Tasks => self.runs_tasks(),
            #[cfg(feature = "skills")]
            Capability::Skills => self.skills.is_some(),
            #[cfg(not(feature = "skills"))]
            Capability::Skills => false,
        }
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("info", &self.info)
            .field("tools", &self.tools.len())
            .field("prompts", &self.prompts.len())
            .finish_non_exhaustive()
    }
}
