//! The notes tools.

use std::fs;
use std::path::{Path, PathBuf};

use mcp_rounds::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use mcp_rounds::{Error, Server, ToolCall, ToolRoute};
use serde_json::json;

/// A note on disk: its id (the file stem) and title (its first `# ` heading).
fn read_notes(workspace: &Path) -> std::io::Result<Vec<(String, String)>> {
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
        notes.push((id, title));
    }
    notes.sort();
    Ok(notes)
}

fn schema(value: serde_json::Value) -> JsonObject {
    serde_json::from_value(value).expect("schema literal is an object")
}

/// The server over the notes in `data/workspace`.
pub fn server(data: &Path) -> Result<Server, String> {
    let workspace: PathBuf = data.join("workspace");
    let list = ToolRoute::new(
        Tool::new(
            "notes_list",
            schema(json!({
                "type": "object",
                "properties": {"query": {"type": "string", "description": "Only notes whose title contains this (case-insensitive)."}},
                "additionalProperties": false
            })),
        )
        .with_title("List notes")
        .with_description("Lists the notes in the workspace: id and title, sorted by id.")
        .with_annotations(ToolAnnotations { read_only_hint: Some(true), open_world_hint: Some(false), ..Default::default() })
        .with_output_schema(schema(json!({
            "type": "object",
            "properties": {"notes": {"type": "array", "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "title": {"type": "string"}},
                "required": ["id", "title"]
            }}},
            "required": ["notes"]
        }))),
        move |call: ToolCall| {
            let workspace = workspace.clone();
            async move {
                let query = match call.arguments.get("query") {
                    None => None,
                    Some(q) => Some(q.as_str().ok_or_else(|| Error::invalid_field("query", "query must be a string"))?.to_lowercase()),
                };
                let notes = match read_notes(&workspace) {
                    Ok(notes) => notes,
                    Err(err) => {
                        tracing::warn!(error = %err, "cannot read the workspace");
                        return Ok(CallToolResult::error("The workspace cannot be read right now.").into());
                    }
                };
                let notes: Vec<_> = notes
                    .into_iter()
                    .filter(|(_, title)| query.as_ref().is_none_or(|q| title.to_lowercase().contains(q)))
                    .map(|(id, title)| json!({"id": id, "title": title}))
                    .collect();
                Ok(CallToolResult::structured(json!({ "notes": notes })).into())
            }
        },
    );
    Server::builder("notes-server", env!("CARGO_PKG_VERSION"))
        .instructions("Notes in a workspace. notes_list finds notes by title.")
        .tool(list)
        .build()
        .map_err(|e| e.to_string())
}
