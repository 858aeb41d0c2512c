//! `notes_delete`: the user picks which matching note to delete and confirms, in a form; the
//! signed state carries the candidates, and the delete happens once.

use mcp_rounds::form::{Choice, FormRequest};
use mcp_rounds::rounds::{Elicitation, IdempotencyKey, Round, Step};
use mcp_rounds::{Changes, Form, Principal, Rounds, State, ToolError, tool};

use crate::app::{NoteChange, Notes, note_error};
use crate::store::{self, Deleted};

/// Set in a debug build, the process dies right after a delete, before the claim is recorded.
const CRASH_AFTER_DELETE: &str = "NOTES_TEST_CRASH_AFTER_DELETE";

/// The form the user fills in.
#[derive(Form)]
pub struct ConfirmDelete {
    /// The note to delete.
    #[form(title = "Note")]
    note: Choice,
    /// Delete it for good?
    #[form(title = "Delete it")]
    confirm: bool,
}

/// The one round of a delete: the candidates are in the signed state, and the answer can only
/// be one of them.
#[derive(Rounds)]
pub enum DeleteRound {
    Confirm {
        /// The ids the user was offered.
        candidates: Vec<String>,
        #[answer]
        choice: Elicitation<ConfirmDelete>,
    },
}

/// Deletes one note whose title contains `title`, after the user picks it among the matches
/// and confirms. Nothing is deleted without an explicit confirmation.
#[tool(title = "Delete a note", destructive, open_world = false, rename_all = "camelCase", scopes("notes:write"))]
pub fn notes_delete(
    /// The workspace, as a file:// URI.
    workspace_uri: String,
    /// Part of the title of the note to delete (case-insensitive).
    title: String,
    round: Round<DeleteRound>,
    key: IdempotencyKey,
    principal: Principal,
    State(notes): State<Notes>,
    changes: Changes,
) -> Result<Step<DeleteRound, String>, ToolError> {
    // Every round checks the scope again: a grant may be gone since the form was sent.
    let workspace = notes.workspace(&principal, &workspace_uri)?;
    match round {
        Round::Start => {
            let wanted = title.to_lowercase();
            let matching: Vec<store::Note> = store::list(&workspace)
                .map_err(note_error)?
                .into_iter()
                .filter(|n| n.title.to_lowercase().contains(&wanted))
                .collect();
            if matching.is_empty() {
                return Err(ToolError::new(format!("No note in {} has a title containing {title:?}.", workspace.uri)));
            }
            let candidates = matching.iter().map(|n| n.id.clone()).collect();
            let message = match matching.len() {
                1 => format!("Delete the note {:?}?", matching[0].title),
                n => format!("{n} notes match {title:?}. Which one should be deleted?"),
            };
            let options = matching.into_iter().map(|n| (n.id, n.title));
            let form = FormRequest::new(message).choices(ConfirmDelete::FIELDS.note, options);
            Ok(DeleteRound::ask_confirm(candidates, form).into())
        }
        Round::Resumed(DeleteRound::Confirm { candidates, choice }) => match choice {
            Elicitation::Accept(ConfirmDelete { note, confirm: true }) => {
                // The form allowed only the candidates; the state says which they were.
                if !candidates.contains(&note.0) {
                    return Err(ToolError::new("That note was not among those offered."));
                }
                let key = key.get().ok_or_else(|| ToolError::new("This confirmation cannot be used."))?;
                let deleted = store::delete(&workspace, &note, key).map_err(note_error)?;
                // Fault injection for the crash test: die between the delete and its claim.
                if cfg!(debug_assertions) && deleted == Deleted::Now && std::env::var_os(CRASH_AFTER_DELETE).is_some() {
                    std::process::abort();
                }
                if deleted == Deleted::Now {
                    notes.announce(&changes, &workspace, NoteChange::Deleted(&note.0));
                }
                Ok(Step::Done(format!("Deleted {note}.")))
            }
            Elicitation::Accept(ConfirmDelete { confirm: false, .. }) => {
                Ok(Step::Done("Not confirmed; nothing was deleted.".to_owned()))
            }
            Elicitation::Decline => Ok(Step::Done("Declined; nothing was deleted.".to_owned())),
            Elicitation::Cancel => {
                Ok(Step::Done("Cancelled; nothing was deleted. The confirmation can be asked for again.".to_owned()))
            }
        },
    }
}
