//! `notes_export`: a whole workspace as one Markdown document. Reading every note of a large
//! workspace takes a while, so a client that supports tasks gets a task it can poll or cancel.

use mcp_rounds::tasks::TaskScope;
use mcp_rounds::{Json, Principal, RequestContext, State, ToolError, tool};
use schemars::JsonSchema;
use serde::Serialize;

use crate::app::{Notes, note_error};
use crate::store;

/// A workspace, exported.
#[derive(Serialize, JsonSchema)]
pub struct Export {
    /// How many notes it holds.
    pub count: usize,
    /// Every note in id order, each under a `<!-- note: id -->` marker, separated by rules.
    pub markdown: String,
}

/// Exports every note of a workspace as one Markdown document, in id order. A long export runs
/// as a task when the client supports them, and can be cancelled.
#[tool(
    title = "Export a workspace",
    read_only,
    open_world = false,
    rename_all = "camelCase",
    task,
    scopes("notes:read")
)]
pub async fn notes_export(
    /// The workspace, as a file:// URI.
    workspace_uri: String,
    principal: Principal,
    State(notes): State<Notes>,
    scope: TaskScope,
    context: RequestContext,
) -> Result<Json<Export>, ToolError> {
    // Checked before the task starts: a refused workspace is answered directly, never a task.
    let workspace = notes.workspace(&principal, &workspace_uri)?;
    scope.detach().await;
    let cancellation = scope.cancellation().clone();
    let cancelled: Cancelled = std::sync::Arc::new(move || cancellation.is_cancelled());
    let pause = crate::faults::export_pause();
    let request = context.request_id().to_string();
    let runs = if crate::faults::broken("tasks-twice") { 2 } else { 1 };
    let mut export = None;
    for _ in 0..runs {
        crate::faults::record_export_run(&request);
        export = Some(run_export(workspace.clone(), cancelled.clone(), pause).await);
    }
    export.expect("the export ran")
}

/// Whether the client cancelled the export.
type Cancelled = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

/// Reads every note of `workspace` into one document, in id order.
async fn run_export(
    workspace: std::sync::Arc<crate::scope::Workspace>,
    cancelled: Cancelled,
    pause: Option<std::time::Duration>,
) -> Result<Json<Export>, ToolError> {
    let export = tokio::task::spawn_blocking(move || {
        let mut listed = store::list(&workspace).map_err(note_error)?;
        listed.sort_by(|a, b| a.id.cmp(&b.id));
        let mut markdown = String::new();
        let mut count = 0;
        for note in &listed {
            if cancelled() {
                return Err(ToolError::new("Export cancelled"));
            }
            if let Some(pause) = pause {
                std::thread::sleep(pause);
            }
            let text = match store::read(&workspace, &note.id) {
                Ok(text) => text,
                // Deleted since it was listed: an export is of the notes there as it reads them.
                Err(store::NoteError::NotFound) => continue,
                Err(e) => return Err(note_error(e)),
            };
            if !markdown.is_empty() {
                markdown.push_str("\n---\n\n");
            }
            count += 1;
            markdown.push_str(&format!("<!-- note: {} -->\n", note.id));
            markdown.push_str(&text);
            if !text.ends_with('\n') {
                markdown.push('\n');
            }
        }
        Ok(Export { count, markdown })
    });
    match export.await {
        Ok(done) => done.map(Json),
        Err(_) => Err(ToolError::new("The export stopped unexpectedly")),
    }
}
