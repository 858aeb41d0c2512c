//! The checks of single-use states: each accepted at most once, refused only when it may have
//! been used (or has expired, or its key was retired), and its delete done exactly when an
//! answer says it may have been: one trash entry, named by the state's key, for the note the
//! state was about.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use base64::Engine as _;

use super::check::{Expect, Findings, Kind, deleted};
use super::record::{Call, Journal, Op};

/// The id of the key that signed `token` and its nonce in hex (the `IdempotencyKey` a tool
/// sees), read from the token's layout: a version byte, the key id (length-prefixed), the
/// expiry (8 bytes), the nonce (16 bytes), then what it is bound to and its MAC.
pub fn state_key(token: &str) -> Option<(String, String)> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token).ok()?;
    let length = u32::from_be_bytes(bytes.get(1..5)?.try_into().ok()?) as usize;
    let key_id = std::str::from_utf8(bytes.get(5..5 + length)?).ok()?.to_owned();
    let nonce = bytes.get(5 + length + 8..5 + length + 24)?;
    Some((key_id, nonce.iter().map(|b| format!("{b:02x}")).collect()))
}

/// When a rotation stopped signing with the old key everywhere, and when it began retiring it:
/// a state issued before the first and used after the second may be refused.
fn retirements(journal: &Journal) -> Vec<(f64, f64)> {
    journal
        .faults
        .iter()
        .filter(|f| f.what.starts_with("rotate"))
        .filter_map(|f| {
            let signs = f.phases.iter().find(|(what, _)| what.ends_with("signs everywhere"))?.1;
            let retiring = f.phases.iter().find(|(what, _)| what.ends_with("retiring"))?.1;
            Some((signs, retiring))
        })
        .collect()
}

/// See the module's documentation.
pub fn check_states(journal: &Journal, workspace: &Path, expect: &Expect, findings: &mut Findings) {
    let mut by_state: BTreeMap<usize, Vec<&Call>> = BTreeMap::new();
    for call in &journal.calls {
        if let Op::Confirm { state, .. } = call.op {
            by_state.entry(state).or_default().push(call);
        }
    }
    let retired = retirements(journal);
    // The key of each state whose delete may have happened, and the note it was about.
    let mut may_delete: BTreeMap<String, String> = BTreeMap::new();
    let mut must_delete: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for (state, mut calls) in by_state {
        calls.sort_by(|a, b| a.sent.total_cmp(&b.sent));
        let (token, issued) = &journal.states[state];
        let (mut maybe_used, mut accepted) = (false, 0);
        for call in &calls {
            let kind = Kind::of(&call.answer);
            match kind {
                Kind::Success => {
                    accepted += 1;
                    if accepted > 1 {
                        findings.violations.push(format!(
                            "state {state}: accepted again at {:.0} ms (used twice): {:?}",
                            call.sent,
                            call.answer.result().and_then(|r| r["content"][0]["text"].as_str())
                        ));
                    }
                    maybe_used = true;
                }
                Kind::Refused => {
                    let expired = call.sent >= issued + expect.state_ttl;
                    let key_retired = retired.iter().any(|(signs, retiring)| issued < signs && call.sent >= *retiring);
                    if !maybe_used && !expired && !key_retired {
                        findings.violations.push(format!(
                            "state {state}: refused at {:.0} ms though never used (issued at {issued:.0} ms)",
                            call.sent
                        ));
                    }
                }
                ref k if k.maybe_ran() => maybe_used = true,
                _ => {}
            }
        }
        let Some((_, key)) = state_key(token) else {
            findings.violations.push(format!("state {state}: not a state this checker can read"));
            continue;
        };
        let slot = match &calls[0].op {
            Op::Confirm { slot, .. } => slot.clone(),
            _ => unreachable!("only confirmations are grouped"),
        };
        if calls.iter().any(|c| deleted(c)) {
            must_delete.insert(key.clone(), (state, slot.clone()));
        }
        // A lost answer, the proxy's error, or -31503 from a delete keyed on its state (which
        // holds its claim with the effect): the delete may have happened.
        let maybe = |c: &&&Call| Kind::of(&c.answer).maybe_ran() || Kind::of(&c.answer) == Kind::Unavailable;
        if calls.iter().any(|c| deleted(c) || maybe(&c)) {
            may_delete.insert(key, slot);
        }
    }
    check_trash(workspace, &may_delete, &must_delete, findings);
}

/// One trash entry per delete that was answered done, none for a state whose every answer
/// said it was not, each named by its state's key and holding the note that state was about.
fn check_trash(
    workspace: &Path,
    may_delete: &BTreeMap<String, String>,
    must_delete: &BTreeMap<String, (usize, String)>,
    findings: &mut Findings,
) {
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut entries = 0;
    for entry in std::fs::read_dir(workspace.join(".trash")).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((key, note)) = name.strip_suffix(".md").and_then(|n| n.split_once("--")) else { continue };
        entries += 1;
        found.entry(key.to_owned()).or_default().insert(note.to_owned());
    }
    *findings.counts.entry("trash entries".into()).or_default() += entries;
    for (key, notes) in &found {
        match may_delete.get(key) {
            None if notes.iter().any(|n| n.starts_with("fleet-")) => findings
                .violations
                .push(format!("{notes:?} deleted by a state ({key}) whose every answer said nothing was deleted")),
            Some(slot) if notes.len() > 1 || !notes.contains(slot) => {
                findings.violations.push(format!("the state for {slot} ({key}) deleted {notes:?}"))
            }
            _ => {}
        }
    }
    for (key, (state, slot)) in must_delete {
        if !found.get(key).is_some_and(|notes| notes.contains(slot)) {
            findings.violations.push(format!("state {state}: answered \"Deleted {slot}\" but nothing was deleted"));
        }
    }
}
