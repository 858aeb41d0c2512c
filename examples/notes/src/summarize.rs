//! `summarize_notes`: the model picks representative notes, then summarizes them. By default
//! the client's model answers, through two sampling rounds; with `[model] provider = "builtin"`
//! the server's own model does, with no rounds at all.

use mcp_rounds::model::ModelPreferences;
use mcp_rounds::rounds::{Round, Sampled, SamplingRequest, Step};
use mcp_rounds::{Error, Json, Principal, Rounds, State, ToolError, tool};
use schemars::JsonSchema;
use serde::Serialize;

use crate::app::{Notes, note_error};
use crate::config::Provider;
use crate::scope::Workspace;
use crate::store::{self, Note};

/// At most this many notes are offered to the model to pick from.
const MAX_CANDIDATES: usize = 50;
/// At most this many picks are accepted.
const MAX_PICKS: usize = 5;
/// At most this much of each picked note goes into the summary prompt.
const MAX_NOTE_EXCERPT: usize = 4_000;
/// Tokens the model may spend per round.
const PICK_TOKENS: u64 = 200;
const SUMMARY_TOKENS: u64 = 600;

/// A model the server owns.
pub trait Model: Send + Sync {
    /// The ids of the representative notes among `candidates`.
    fn pick(&self, candidates: &[Note]) -> Vec<String>;
    /// A summary of `notes` (title and text).
    fn summarize(&self, notes: &[(String, String)]) -> String;
}

/// A deterministic stand-in that works offline: picks the first notes by id and summarizes
/// each by its title and first line of text.
pub struct BuiltinModel;

impl Model for BuiltinModel {
    fn pick(&self, candidates: &[Note]) -> Vec<String> {
        candidates.iter().take(3).map(|n| n.id.clone()).collect()
    }

    fn summarize(&self, notes: &[(String, String)]) -> String {
        let lines: Vec<String> = notes
            .iter()
            .map(|(title, text)| {
                let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
                format!("- {title}: {first}")
            })
            .collect();
        format!("{} notes:\n{}", notes.len(), lines.join("\n"))
    }
}

/// The rounds of a summary through the client's model.
#[derive(Rounds)]
pub enum SummaryRound {
    /// The model picks representative notes among the candidates.
    Pick {
        candidates: Vec<String>,
        #[answer]
        picks: Sampled<Json<Vec<String>>>,
    },
    /// The model summarizes the picked notes.
    Summarize {
        picks: Vec<String>,
        #[answer]
        summary: Sampled<String>,
    },
}

/// What a summary returns.
#[derive(Serialize, JsonSchema)]
pub struct Summary {
    /// The ids of the notes summarized.
    pub picks: Vec<String>,
    /// The summary.
    pub summary: String,
}

fn candidates(workspace: &Workspace, query: Option<&str>) -> Result<Vec<Note>, ToolError> {
    let query = query.map(str::to_lowercase);
    let notes = store::list(workspace).map_err(note_error)?;
    Ok(notes
        .into_iter()
        .filter(|n| query.as_ref().is_none_or(|q| n.title.to_lowercase().contains(q)))
        .take(MAX_CANDIDATES)
        .collect())
}

fn excerpts(workspace: &Workspace, picks: &[String]) -> Result<Vec<(String, String)>, ToolError> {
    picks
        .iter()
        .map(|id| {
            let text = store::read(workspace, id).map_err(note_error)?;
            let title = text.lines().find_map(|l| l.strip_prefix("# ")).unwrap_or(id).trim().to_owned();
            let cut = text.char_indices().nth(MAX_NOTE_EXCERPT).map_or(text.len(), |(i, _)| i);
            Ok((title, text[..cut].to_owned()))
        })
        .collect()
}

fn pick_prompt(candidates: &[Note]) -> String {
    let listing: Vec<String> = candidates.iter().map(|n| format!("- {}: {}", n.id, n.title)).collect();
    format!(
        "These are the notes of a workspace, as id: title.\n{}\n\nWhich of them (at most {MAX_PICKS}) best \
         represent the workspace? Answer with a JSON array of their ids and nothing else.",
        listing.join("\n")
    )
}

fn summary_prompt(notes: &[(String, String)]) -> String {
    let bodies: Vec<String> = notes.iter().map(|(title, text)| format!("## {title}\n{text}")).collect();
    format!("Summarize these notes in a short paragraph.\n\n{}", bodies.join("\n\n"))
}

fn preferences() -> ModelPreferences {
    let mut preferences = ModelPreferences::default();
    preferences.speed_priority = Some(0.5);
    preferences.cost_priority = Some(0.5);
    preferences
}

/// The model's picks, checked: a JSON array of distinct ids, at most [`MAX_PICKS`], each one
/// of the candidates it was offered.
fn checked_picks(picks: Vec<String>, candidates: &[String]) -> Result<Vec<String>, Error> {
    let field = "inputResponses.picks";
    if picks.is_empty() || picks.len() > MAX_PICKS {
        return Err(Error::invalid_field(field, format!("The model must pick between 1 and {MAX_PICKS} notes")));
    }
    let mut checked: Vec<String> = Vec::new();
    for id in picks {
        if !candidates.contains(&id) {
            return Err(Error::invalid_field(field, format!("The model picked {id:?}, which is not a note offered")));
        }
        if !checked.contains(&id) {
            checked.push(id);
        }
    }
    Ok(checked)
}

/// Summarizes a workspace: a model picks the representative notes, then summarizes them.
#[tool(title = "Summarize notes", read_only, open_world = false, rename_all = "camelCase", scopes("notes:read"))]
pub fn summarize_notes(
    /// The workspace, as a file:// URI.
    workspace_uri: String,
    /// Only notes whose title contains this (case-insensitive).
    query: Option<String>,
    round: Round<SummaryRound>,
    principal: Principal,
    State(notes): State<Notes>,
) -> Result<Step<SummaryRound, Json<Summary>>, ToolError> {
    let workspace = notes.workspace(&principal, &workspace_uri)?;
    match round {
        Round::Start => {
            let candidates = candidates(&workspace, query.as_deref())?;
            if candidates.is_empty() {
                return Err(ToolError::new("There are no notes to summarize."));
            }
            if notes.provider == Provider::Builtin {
                let picks = notes.model.pick(&candidates);
                let summary = notes.model.summarize(&excerpts(&workspace, &picks)?);
                return Ok(Step::Done(Json(Summary { picks, summary })));
            }
            let ids = candidates.iter().map(|n| n.id.clone()).collect();
            let request = SamplingRequest::new(pick_prompt(&candidates), PICK_TOKENS)
                .system_prompt("You pick notes. Answer only with a JSON array of note ids.")
                .model_preferences(preferences());
            Ok(SummaryRound::ask_pick(ids, request).into())
        }
        Round::Resumed(SummaryRound::Pick { candidates, picks }) => {
            let picks = checked_picks(picks.value.0, &candidates)?;
            let request = SamplingRequest::new(summary_prompt(&excerpts(&workspace, &picks)?), SUMMARY_TOKENS)
                .model_preferences(preferences());
            Ok(SummaryRound::ask_summarize(picks, request).into())
        }
        Round::Resumed(SummaryRound::Summarize { picks, summary }) => {
            let summary = summary.value.trim().to_owned();
            if summary.is_empty() {
                Err(Error::invalid_field("inputResponses.summary", "The model's summary is empty"))?;
            }
            Ok(Step::Done(Json(Summary { picks, summary })))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_are_checked_against_the_offer() {
        let offered = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(checked_picks(vec!["b".into(), "a".into(), "b".into()], &offered).unwrap(), ["b", "a"]);
        for bad in [vec![], vec!["c".to_owned()], vec!["a".to_owned(); MAX_PICKS + 1]] {
            let err = checked_picks(bad.clone(), &offered).unwrap_err();
            assert_eq!(err.code(), mcp_rounds::ErrorCode::InvalidParams, "{bad:?}");
        }
    }

    #[test]
    fn the_builtin_model_is_deterministic() {
        let notes: Vec<Note> =
            ["a", "b", "c", "d"].iter().map(|id| Note { id: (*id).into(), title: id.to_uppercase() }).collect();
        assert_eq!(BuiltinModel.pick(&notes), ["a", "b", "c"]);
        let summary = BuiltinModel.summarize(&[("A".into(), "# A\n\nfirst line\nsecond".into())]);
        assert_eq!(summary, "1 notes:\n- A: first line");
    }
}
