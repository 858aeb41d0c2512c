//! Watches the workspace directories, so that listeners hear about every change to a note:
//! made by this process, by another process on the same data, or by a person in an editor.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;

use mcp_rounds::Changes;
use notify::{RecursiveMode, Watcher};

use crate::scope::{Workspace, is_note_id};

/// Keeps the watch running; dropping it stops it.
pub struct Watch {
    _watcher: notify::RecommendedWatcher,
}

fn note_id(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    name.strip_suffix(".md").filter(|id| is_note_id(id)).map(str::to_owned)
}

fn is_note(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

fn present(workspace: &Workspace) -> BTreeSet<String> {
    std::fs::read_dir(&workspace.root)
        .map(|entries| entries.flatten().map(|e| e.path()).filter(|p| is_note(p)).filter_map(|p| note_id(&p)).collect())
        .unwrap_or_default()
}

/// Starts watching `workspaces`, announcing through `changes`: a note that appears or goes
/// away changes the list (and updates its URI); a note whose file changes is updated.
pub fn start(workspaces: &[Arc<Workspace>], changes: Changes) -> notify::Result<Watch> {
    let (sender, events) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(sender)?;
    for workspace in workspaces {
        watcher.watch(&workspace.root, RecursiveMode::NonRecursive)?;
    }
    let workspaces: Vec<Arc<Workspace>> = workspaces.to_vec();
    let mut known: BTreeMap<String, BTreeSet<String>> =
        workspaces.iter().map(|w| (w.slug.clone(), present(w))).collect();
    std::thread::Builder::new().name("notes-watch".into()).spawn(move || {
        for event in events {
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    tracing::warn!(error = %e, "watching the workspaces failed");
                    continue;
                }
            };
            // A rename also comes as its two halves; the combined event would count it twice.
            let both = notify::event::ModifyKind::Name(notify::event::RenameMode::Both);
            if event.kind.is_access() || event.kind == notify::EventKind::Modify(both) {
                continue;
            }
            for path in &event.paths {
                let Some(id) = note_id(path) else { continue };
                if crate::faults::drops_change(&id) {
                    continue;
                }
                let Some(workspace) = workspaces.iter().find(|w| path.parent() == Some(w.root.as_path())) else {
                    continue;
                };
                let ids = known.entry(workspace.slug.clone()).or_default();
                let uri = workspace.note_uri(&id);
                match (is_note(path), ids.contains(&id)) {
                    (true, true) => changes.resource_updated(&uri),
                    (true, false) => {
                        ids.insert(id);
                        changes.resources_list_changed();
                    }
                    (false, true) => {
                        ids.remove(&id);
                        changes.resources_list_changed();
                        changes.resource_updated(&uri);
                    }
                    (false, false) => {}
                }
            }
        }
    })?;
    Ok(Watch { _watcher: watcher })
}
