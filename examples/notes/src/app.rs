//! The server: its shared state and every tool, resource and prompt registered on it.

use std::sync::Arc;
use std::time::Duration;

use mcp_rounds::replay::ReplayStore;
use mcp_rounds::tasks::TaskStore;
use mcp_rounds::{Changes, Principal, Server, ToolError, handlers};

use crate::config::{Config, Provider};
use crate::faults;
use crate::scope::{Scope, ScopeError, Workspace};
use crate::store::NoteError;
use crate::summarize::{BuiltinModel, Model};

/// What every handler shares.
pub struct Notes {
    /// Who may use which workspace.
    pub scope: Scope,
    /// Which model `summarize_notes` uses.
    pub provider: Provider,
    /// The server's own model, for `provider = "builtin"`.
    pub model: Arc<dyn Model>,
    /// Whether tools announce their own changes (the files are not watched).
    pub announce: bool,
}

/// What a tool changed, to announce.
#[derive(Clone, Copy, Debug)]
pub enum NoteChange<'a> {
    /// A note with this id was created.
    Created(&'a str),
    /// A note was edited.
    Edited(&'a str),
    /// A note was deleted.
    Deleted(&'a str),
}

impl Notes {
    /// The workspace a `workspaceUri` argument names, or the tool error that says it may not be
    /// used (the same for a missing, foreign or escaping workspace).
    pub fn workspace(&self, principal: &Principal, uri: &str) -> Result<Arc<Workspace>, ToolError> {
        self.scope.workspace(principal, uri).map_err(|e| match e {
            ScopeError::NotAFileUri => ToolError::new(format!("{e}; got {uri:?}")),
            ScopeError::NotAuthorized => ToolError::new(format!("{uri}: {e}")),
        })
    }
}

impl Notes {
    /// Tells listeners of a change one of this server's tools made, unless the file watcher
    /// does (it sees every change, so announcing here too would tell them twice).
    pub fn announce(&self, changes: &Changes, workspace: &Workspace, change: NoteChange<'_>) {
        let (NoteChange::Created(id) | NoteChange::Edited(id) | NoteChange::Deleted(id)) = change;
        if !self.announce || faults::drops_change(id) {
            return;
        }
        match change {
            NoteChange::Created(_) => changes.resources_list_changed(),
            NoteChange::Edited(_) => changes.resource_updated(&workspace.note_uri(id)),
            NoteChange::Deleted(_) => {
                changes.resources_list_changed();
                changes.resource_updated(&workspace.note_uri(id));
            }
        }
    }
}

/// A note operation's failure as the model sees it; file-system details stay in the log.
pub fn note_error(e: NoteError) -> ToolError {
    if let NoteError::Io(io) = &e {
        tracing::warn!(error = %io, "note operation failed");
    }
    ToolError::new(e.to_string())
}

const INSTRUCTIONS: &str = "Notes are Markdown files in workspaces; every tool takes the workspace as a file:// URI \
(workspaceUri). Find notes with notes_list, read one with notes_read, write with notes_create and notes_edit. \
notes_delete asks the user which matching note to delete and to confirm; summarize_notes asks the model to pick \
representative notes, then to summarize them; notes_export returns a whole workspace as one document (as a task \
for clients that support them). Each note is also a resource, notes://{workspace}/{id}.";

/// The server over `config`, claiming single-use states in `store` and keeping tasks in `tasks`.
pub fn server(config: &Config, store: impl ReplayStore, tasks: impl TaskStore) -> Result<Server, String> {
    let notes = Notes {
        scope: config.scope.clone(),
        provider: config.provider,
        model: Arc::new(BuiltinModel),
        announce: !config.watch_files,
    };
    let builder = Server::builder("notes-server", env!("CARGO_PKG_VERSION"));
    let builder = match faults::broken("reuse-states") {
        true => builder.replay_store(faults::Forgetful(store)),
        false => builder.replay_store(store),
    };
    let lease = match faults::broken("keep-tasks") {
        true => Duration::from_secs(86_400 * 365),
        false => config.task_lease,
    };
    builder
        .instructions(INSTRUCTIONS)
        .state(notes)
        .state_keys(config.keys.clone())
        .state_ttl(config.state_ttl)
        .task_store(tasks)
        .task_lease(lease)
        .handlers(handlers![
            crate::tools::notes_list,
            crate::tools::notes_read,
            crate::tools::notes_create,
            crate::tools::notes_edit,
            crate::delete::notes_delete,
            crate::export::notes_export,
            crate::summarize::summarize_notes,
            crate::resources::note,
            crate::resources::review_note,
            crate::board::Board,
        ])
        // Following a note is reading it: the same authorization. The skills are everyone's.
        .authorize_subscriptions(|context, uri| {
            uri.starts_with("skill://")
                || context.state::<Notes>().is_some_and(|notes| notes.scope.may_read(context.principal(), uri))
        })
        .skills_dir(&config.skills)
        .build()
        .map_err(|e| e.to_string())
}

/// How long a deleted note stays in its workspace's `.trash`: longer than any state that
/// could still confirm its delete.
pub fn trash_retention(state_ttl: Duration) -> Duration {
    state_ttl.max(Duration::from_secs(86_400))
}
