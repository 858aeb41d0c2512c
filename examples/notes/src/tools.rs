//! The everyday tools: find, read, create and edit notes in a workspace.

use mcp_rounds::{Changes, Json, Principal, Readable, State, ToolError, tool};
use schemars::JsonSchema;
use serde::Serialize;

use crate::app::{NoteChange, Notes, note_error};
use crate::store;

/// How many notes one page of `notes_list` holds.
const PAGE: usize = 50;

/// A note, as tools report it.
#[derive(Serialize, JsonSchema)]
pub struct NoteRef {
    /// Stable id: the file name without `.md`.
    pub id: String,
    /// The first `# ` heading.
    pub title: String,
    /// The note as a resource.
    pub uri: String,
}

/// One page of notes.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteList {
    /// By id.
    pub notes: Vec<NoteRef>,
    /// Pass as `cursor` for the next page; absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// What a person reads: a line per note, and where the next page starts.
impl std::fmt::Display for NoteList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.notes.len() {
            0 => f.write_str("No notes.")?,
            1 => f.write_str("1 note:")?,
            n => write!(f, "{n} notes:")?,
        }
        for note in &self.notes {
            write!(f, "\n- {} ({})", note.title, note.id)?;
        }
        if let Some(cursor) = &self.next_cursor {
            write!(f, "\nMore after {cursor}: pass it as cursor.")?;
        }
        Ok(())
    }
}

/// Lists the notes of a workspace by id, optionally only those whose title contains `query`.
#[tool(
    title = "List notes",
    read_only,
    open_world = false,
    rename_all = "camelCase",
    scopes("notes:read"),
    ui = "ui://notes/board"
)]
pub fn notes_list(
    /// The workspace, as a file:// URI.
    workspace_uri: String,
    /// Only notes whose title contains this (case-insensitive).
    query: Option<String>,
    /// Where the previous page ended (its `nextCursor`).
    cursor: Option<String>,
    principal: Principal,
    State(notes): State<Notes>,
) -> Result<Readable<NoteList>, ToolError> {
    let workspace = notes.workspace(&principal, &workspace_uri)?;
    let query = query.map(|q| q.to_lowercase());
    let mut matching = store::list(&workspace)
        .map_err(note_error)?
        .into_iter()
        .filter(|n| query.as_ref().is_none_or(|q| n.title.to_lowercase().contains(q)))
        .filter(|n| cursor.as_ref().is_none_or(|after| n.id.as_str() > after.as_str()))
        .map(|n| NoteRef { uri: workspace.note_uri(&n.id), id: n.id, title: n.title })
        .collect::<Vec<_>>();
    let next_cursor = (matching.len() > PAGE).then(|| matching[PAGE - 1].id.clone());
    matching.truncate(PAGE);
    Ok(Readable(NoteList { notes: matching, next_cursor }))
}

/// Reads a note: its Markdown text.
#[tool(title = "Read a note", read_only, open_world = false, rename_all = "camelCase", scopes("notes:read"))]
pub fn notes_read(
    /// The workspace, as a file:// URI.
    workspace_uri: String,
    /// The note's id.
    id: String,
    principal: Principal,
    State(notes): State<Notes>,
) -> Result<String, ToolError> {
    let workspace = notes.workspace(&principal, &workspace_uri)?;
    store::read(&workspace, &id).map_err(note_error)
}

/// Creates a note; its id is made from the title.
#[tool(
    title = "Create a note",
    destructive = false,
    open_world = false,
    rename_all = "camelCase",
    scopes("notes:write")
)]
pub fn notes_create(
    /// The workspace, as a file:// URI.
    workspace_uri: String,
    /// The title: one line.
    title: String,
    /// The Markdown text under the title.
    body: String,
    principal: Principal,
    State(notes): State<Notes>,
    changes: Changes,
) -> Result<Json<NoteRef>, ToolError> {
    let workspace = notes.workspace(&principal, &workspace_uri)?;
    let note = store::create(&workspace, &title, &body).map_err(note_error)?;
    notes.announce(&changes, &workspace, NoteChange::Created(&note.id));
    Ok(Json(NoteRef { uri: workspace.note_uri(&note.id), id: note.id, title: note.title }))
}

/// Changes a note's title, its text, or both.
#[tool(title = "Edit a note", idempotent, open_world = false, rename_all = "camelCase", scopes("notes:write"))]
pub fn notes_edit(
    /// The workspace, as a file:// URI.
    workspace_uri: String,
    /// The note's id.
    id: String,
    /// A new title.
    title: Option<String>,
    /// A new Markdown text under the title (replaces the old one).
    body: Option<String>,
    principal: Principal,
    State(notes): State<Notes>,
    changes: Changes,
) -> Result<Json<NoteRef>, ToolError> {
    if title.is_none() && body.is_none() {
        return Err(ToolError::new("give a new title, a new body or both"));
    }
    let workspace = notes.workspace(&principal, &workspace_uri)?;
    if crate::faults::skips_write(&id) {
        let text = store::read(&workspace, &id).map_err(note_error)?;
        let title = text.lines().find_map(|l| l.strip_prefix("# ")).unwrap_or(&id).to_owned();
        return Ok(Json(NoteRef { uri: workspace.note_uri(&id), id, title }));
    }
    let note = store::edit(&workspace, &id, title.as_deref(), body.as_deref()).map_err(note_error)?;
    if crate::faults::loses_answer(&id, body.as_deref()) {
        std::process::abort();
    }
    notes.announce(&changes, &workspace, NoteChange::Edited(&note.id));
    Ok(Json(NoteRef { uri: workspace.note_uri(&note.id), id: note.id, title: note.title }))
}
