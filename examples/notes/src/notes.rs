//! The notes tools.

use std::fs;
use std::path::{Path, PathBuf};

use mcp_rounds::{Json, Server, State, ToolError, handlers, tool};
use schemars::JsonSchema;
use serde::Serialize;

/// The workspace directory this server's notes live in.
pub struct Workspace(pub PathBuf);

/// A note in a listing.
#[derive(Serialize, JsonSchema)]
pub struct NoteSummary {
    /// Stable id: the file name without `.md`.
    pub id: String,
    /// The first `# ` heading.
    pub title: String,
}

/// The notes that matched.
#[derive(Serialize, JsonSchema)]
pub struct NoteList {
    /// Sorted by id.
    pub notes: Vec<NoteSummary>,
}

/// Every note in the workspace: its id (file stem) and title (first `# ` heading), by id.
fn read_notes(workspace: &Path) -> std::io::Result<Vec<NoteSummary>> {
    let mut notes = Vec::new();
    for entry in fs::read_dir(workspace)? {
        let entry = entry?;
        // Symlinks may point anywhere; only regular files in the workspace are notes.
        if !entry.file_type()?.is_file() {
            continue;
        }
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let Some(id) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else { continue };
        let text = fs::read_to_string(&path)?;
        let title = text.lines().find_map(|l| l.strip_prefix("# ")).unwrap_or(&id).trim().to_owned();
        notes.push(NoteSummary { id, title });
    }
    notes.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(notes)
}

/// Lists the notes in the workspace: id and title, sorted by id.
#[tool(title = "List notes", read_only, open_world = false)]
fn notes_list(
    /// Only notes whose title contains this (case-insensitive).
    query: Option<String>,
    State(workspace): State<Workspace>,
) -> Result<Json<NoteList>, ToolError> {
    let notes = read_notes(&workspace.0).map_err(|err| {
        tracing::warn!(error = %err, "cannot read the workspace");
        ToolError::new("The workspace cannot be read right now.")
    })?;
    let query = query.map(|q| q.to_lowercase());
    let notes =
        notes.into_iter().filter(|n| query.as_ref().is_none_or(|q| n.title.to_lowercase().contains(q))).collect();
    Ok(Json(NoteList { notes }))
}

/// The server over the notes in `data/workspace`.
pub fn server(data: &Path) -> Result<Server, String> {
    Server::builder("notes-server", env!("CARGO_PKG_VERSION"))
        .instructions("Notes in a workspace. notes_list finds notes by title.")
        .state(Workspace(data.join("workspace")))
        .handlers(handlers![notes_list])
        .build()
        .map_err(|e| e.to_string())
}
