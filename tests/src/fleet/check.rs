//! The checker: reads the record and the data left on disk and lists every broken invariant.
//!
//! - Each note ends, and reads at every point, as one of the versions that could be there given
//!   what each client was told: a success is never lost, a note is never half-written, nothing
//!   is created twice.
//! - A single-use state has its effect at most once fleet-wide (one trash entry per key, one
//!   success answered), and a state that was never used is never refused.
//! - Every change made while a stream was open reached it within the delivery time, unless the
//!   stream ended first (the client then listens again and re-reads).
//! - Every task reached a terminal status that every instance shows.
//! - Errors are only those the faults explain: a lost answer or the proxy's 502/503/504 around
//!   an instance or proxy fault, -31503 while the database is down.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::client::Answer;
use super::record::{Call, End, Event, Journal, Op};
use super::workload::{note_text, slot_id, slot_title};

/// What the checker needs besides the record.
#[derive(Clone, Debug)]
pub struct Expect {
    /// Workers and notes per worker, as the workload ran.
    pub workers: usize,
    /// Notes per worker.
    pub slots: usize,
    /// How long a change may take to reach a stream (ms).
    pub delivery: f64,
    /// How long a state is valid (ms): an older one may be refused.
    pub state_ttl: f64,
    /// How long after a fault's recovery its errors may still show (ms).
    pub grace: f64,
    /// The URI prefix of the workspace's notes (`notes://slug/`).
    pub uri_prefix: String,
}

/// What the check found.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Every broken invariant, one line each.
    pub violations: Vec<String>,
    /// Answers by operation and kind (`create ok`, `confirm lost`, …).
    pub counts: BTreeMap<String, usize>,
    /// Two-round deletes whose rounds were answered by different instances.
    pub crossed: usize,
    /// Two-round deletes answered in both rounds.
    pub both_rounds: usize,
    /// How long changes took to reach streams (ms), sorted.
    pub delivery: Vec<f64>,
}

/// What an answer was.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A result that is not an error.
    Success,
    /// The tool ran and answered an error.
    ToolError,
    /// -32602: refused (a used, expired or forged state, bad arguments).
    Refused,
    /// -31503: a store was down; nothing was done.
    Unavailable,
    /// The proxy's own 502, 503 or 504.
    Proxy(u16),
    /// No answer.
    Lost,
    /// Anything else (the answer itself is in the call's record).
    Other,
}

impl Kind {
    /// Of `answer`.
    pub fn of(answer: &Answer) -> Kind {
        match answer {
            Answer::Lost(_) => Kind::Lost,
            Answer::Reply { message: Some(message), status, .. } => {
                match (message.get("result"), answer.error_code()) {
                    (Some(result), _) if result["isError"] == true => Kind::ToolError,
                    (Some(_), _) => Kind::Success,
                    (None, Some(-32602)) => Kind::Refused,
                    (None, Some(-31503)) if *status == 503 => Kind::Unavailable,
                    _ => Kind::Other,
                }
            }
            Answer::Reply { status: status @ 502..=504, message: None, .. } => Kind::Proxy(*status),
            Answer::Reply { .. } => Kind::Other,
        }
    }

    /// Whether the request may have run although no success was seen.
    pub(super) fn maybe_ran(&self) -> bool {
        matches!(self, Kind::Lost | Kind::Proxy(502 | 504))
    }

    fn label(&self) -> &'static str {
        match self {
            Kind::Success => "ok",
            Kind::ToolError => "tool error",
            Kind::Refused => "refused",
            Kind::Unavailable => "unavailable (-31503)",
            Kind::Proxy(502) => "proxy 502",
            Kind::Proxy(503) => "proxy 503",
            Kind::Proxy(_) => "proxy 504",
            Kind::Lost => "lost",
            Kind::Other => "other error",
        }
    }
}

fn op_label(op: &Op) -> &'static str {
    match op {
        Op::Create { .. } => "create",
        Op::Edit { .. } => "edit",
        Op::Read { .. } => "read",
        Op::Ask { .. } => "delete, round 1",
        Op::Confirm { replay: false, .. } => "delete, round 2",
        Op::Confirm { replay: true, .. } => "delete, sent again",
        Op::Export => "export",
        Op::TaskGet { .. } => "tasks/get",
    }
}

/// A note as it can be: absent, or at a version.
type Version = Option<u32>;

/// The version a note's text is, if it is whole.
fn parse(worker: usize, slot: usize, text: &str) -> Result<u32, String> {
    let id = slot_id(worker, slot);
    let version = text
        .lines()
        .nth(2)
        .and_then(|l| l.strip_prefix(&format!("{id} v")))
        .and_then(|l| l.strip_suffix(" begins"))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            format!("{id} is not a note the workload wrote: {:?}", text.chars().take(80).collect::<String>())
        })?;
    if text != note_text(&slot_title(worker, slot), &id, version) {
        return Err(format!("{id} v{version} is not whole ({} bytes)", text.len()));
    }
    Ok(version)
}

/// The checks of one note: its calls in order, then the file.
fn check_note(worker: usize, slot: usize, calls: &[&Call], workspace: &Path, findings: &mut Findings) {
    let id = slot_id(worker, slot);
    let mut possible: BTreeSet<Version> = BTreeSet::from([None]);
    let mut fail = |what: String| findings.violations.push(format!("{id}: {what}"));
    for call in calls {
        let kind = Kind::of(&call.answer);
        let result = call.answer.result();
        let at = call.sent;
        match (&call.op, &kind) {
            (Op::Create { version, .. }, Kind::Success) => {
                let made = result.and_then(|r| r["structuredContent"]["id"].as_str()).unwrap_or_default();
                if made != id {
                    fail(format!("a create at {at:.0} ms made {made:?}: the note was there already"));
                }
                possible = BTreeSet::from([Some(*version)]);
            }
            (Op::Create { version, .. } | Op::Edit { version, .. }, k) if k.maybe_ran() => {
                possible.insert(Some(*version));
            }
            (Op::Edit { version, .. }, Kind::Success) => {
                if !possible.iter().any(Option::is_some) {
                    fail(format!("an edit at {at:.0} ms succeeded on a note that cannot be there"));
                }
                possible = BTreeSet::from([Some(*version)]);
            }
            (Op::Edit { .. } | Op::Read { .. }, Kind::ToolError) => {
                if !possible.contains(&None) {
                    fail(format!("at {at:.0} ms the note was missing, though it must be one of {possible:?}"));
                }
                possible = BTreeSet::from([None]);
            }
            (Op::Read { .. }, Kind::Success) => {
                let text = result.and_then(|r| r["content"][0]["text"].as_str()).unwrap_or_default();
                match parse(worker, slot, text) {
                    Ok(version) if possible.contains(&Some(version)) => possible = BTreeSet::from([Some(version)]),
                    Ok(version) => fail(format!("a read at {at:.0} ms found v{version}, not one of {possible:?}")),
                    Err(problem) => fail(format!("a read at {at:.0} ms: {problem}")),
                }
            }
            (Op::Ask { .. }, Kind::ToolError) => {
                if !possible.contains(&None) {
                    fail(format!("a delete at {at:.0} ms found no note, though it must be one of {possible:?}"));
                }
                possible = BTreeSet::from([None]);
            }
            (Op::Ask { .. }, Kind::Success) => {
                if !possible.iter().any(Option::is_some) {
                    fail(format!("a delete at {at:.0} ms offered a note that cannot be there"));
                }
                possible.remove(&None);
            }
            (Op::Confirm { .. }, Kind::Success) => possible = BTreeSet::from([None]),
            (Op::Confirm { .. }, k) if k.maybe_ran() => {
                possible.insert(None);
            }
            _ => {}
        }
    }
    let path = workspace.join(format!("{id}.md"));
    let actual = match std::fs::read_to_string(&path) {
        Ok(text) => match parse(worker, slot, &text) {
            Ok(version) => Some(version),
            Err(problem) => return fail(format!("at the end: {problem}")),
        },
        Err(_) => None,
    };
    if !possible.contains(&actual) {
        fail(format!("at the end it is {actual:?}, not one of {possible:?} (a success lost, or an effect twice)"));
    }
}

/// Everything the checker verifies; see the module's documentation.
pub fn check(journal: &Journal, workspace: &Path, expect: &Expect) -> Findings {
    let mut findings = Findings::default();
    for call in &journal.calls {
        let kind = Kind::of(&call.answer);
        *findings.counts.entry(format!("{}: {}", op_label(&call.op), kind.label())).or_default() += 1;
    }
    for worker in 0..expect.workers {
        for slot in 0..expect.slots {
            let id = slot_id(worker, slot);
            let calls: Vec<&Call> = journal.calls.iter().filter(|c| slot_of(&c.op) == Some(id.as_str())).collect();
            check_note(worker, slot, &calls, workspace, &mut findings);
        }
    }
    check_unexpected_files(workspace, expect, &mut findings);
    super::check_states::check_states(journal, workspace, expect, &mut findings);
    super::check_states::check_errors(journal, expect, &mut findings);
    check_streams(journal, expect, &mut findings);
    check_tasks(journal, &mut findings);
    (findings.both_rounds, findings.crossed) = crossings(journal);
    findings
}

/// Two-round deletes answered in both rounds, and how many of them by two instances.
fn crossings(journal: &Journal) -> (usize, usize) {
    let mut asked: BTreeMap<usize, Option<&str>> = BTreeMap::new();
    let (mut both, mut crossed) = (0, 0);
    for call in &journal.calls {
        match &call.op {
            Op::Ask { .. } => {
                asked.insert(call.worker, call.answer.served_by());
            }
            Op::Confirm { replay: false, .. } => {
                if let (Some(Some(first)), Some(second)) = (asked.remove(&call.worker), call.answer.served_by()) {
                    both += 1;
                    crossed += usize::from(first != second);
                }
            }
            _ => {}
        }
    }
    (both, crossed)
}

/// Whether a confirmation was answered with the delete done.
pub fn deleted(call: &Call) -> bool {
    call.answer.result().and_then(|r| r["content"][0]["text"].as_str()).is_some_and(|t| t.starts_with("Deleted"))
}

/// The note an operation is about.
pub fn slot_of(op: &Op) -> Option<&str> {
    match op {
        Op::Create { slot, .. } | Op::Edit { slot, .. } | Op::Read { slot } | Op::Ask { slot } => Some(slot),
        Op::Confirm { slot, .. } => Some(slot),
        Op::Export | Op::TaskGet { .. } => None,
    }
}

fn check_unexpected_files(workspace: &Path, expect: &Expect, findings: &mut Findings) {
    let ours: BTreeSet<String> =
        (0..expect.workers).flat_map(|w| (0..expect.slots).map(move |s| format!("{}.md", slot_id(w, s)))).collect();
    for entry in std::fs::read_dir(workspace).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("fleet-") && !ours.contains(&name) {
            findings.violations.push(format!("{name}: a note no one created (a create applied twice?)"));
        }
        if name.starts_with('.') && name.ends_with(".tmp") {
            // A write cut short by a kill: never a note (hidden, and renamed into place only
            // whole); a restarted instance sweeps old ones away.
            *findings.counts.entry("unfinished write left hidden".into()).or_default() += 1;
        }
    }
}

/// The changes each stream must have seen: (when the change was asked, when it was answered,
/// the event that announces it).
fn changes(journal: &Journal, expect: &Expect) -> Vec<(f64, f64, Event)> {
    // A delete's effect may come from an earlier attempt with the same state (one whose answer
    // was lost): its event may come from then on.
    let mut first_attempt: BTreeMap<usize, f64> = BTreeMap::new();
    for call in &journal.calls {
        if let Op::Confirm { state, .. } = call.op {
            let first = first_attempt.entry(state).or_insert(call.sent);
            *first = first.min(call.sent);
        }
    }
    let mut changes = Vec::new();
    for call in &journal.calls {
        if Kind::of(&call.answer) != Kind::Success {
            continue;
        }
        let uri = |slot: &str| format!("{}{slot}", expect.uri_prefix);
        match &call.op {
            Op::Create { .. } => changes.push((call.sent, call.answered, Event::ListChanged)),
            Op::Edit { slot, .. } => changes.push((call.sent, call.answered, Event::Updated(uri(slot)))),
            Op::Confirm { slot, state, .. } if deleted(call) => {
                changes.push((first_attempt[state], call.answered, Event::Updated(uri(slot))))
            }
            _ => {}
        }
    }
    changes
}

/// The changes an open stream has not seen yet that it still may (within the delivery time):
/// what the workload waits for before it closes the streams.
pub fn awaited(journal: &Journal, expect: &Expect, now: f64) -> usize {
    let changes = changes(journal, expect);
    let mut waiting = 0;
    for stream in journal.streams.iter().filter(|s| s.ended.is_none()) {
        let Some(acknowledged) = stream.acknowledged else { continue };
        for (sent, answered, event) in &changes {
            let seen = stream.events.iter().any(|(at, e)| e == event && at >= sent);
            if *sent >= acknowledged && !seen && now < answered + expect.delivery {
                waiting += 1;
            }
        }
    }
    waiting
}

fn check_streams(journal: &Journal, expect: &Expect, findings: &mut Findings) {
    let changes = changes(journal, expect);
    for (index, stream) in journal.streams.iter().enumerate() {
        let Some(acknowledged) = stream.acknowledged else { continue };
        let (ended, how) = stream.ended.clone().unwrap_or((f64::INFINITY, End::Closed));
        for (sent, answered, event) in &changes {
            if *sent < acknowledged || *sent > ended {
                continue;
            }
            match stream.events.iter().find(|(at, e)| e == event && at >= sent) {
                Some((at, _)) => findings.delivery.push(at - sent),
                // A stream that ended (other than by the workload closing it) before the
                // delivery time was up told its client to listen again and re-read.
                None if how != End::Closed && ended < answered + expect.delivery => {}
                None => findings.violations.push(format!(
                    "stream {index} (on {:?}) never got {event:?} of the change asked at {sent:.0} ms",
                    stream.served_by
                )),
            }
        }
    }
    findings.delivery.sort_by(f64::total_cmp);
}

fn check_tasks(journal: &Journal, findings: &mut Findings) {
    for task in &journal.tasks {
        let ends: Vec<&(String, String, Option<String>)> =
            journal.task_ends.iter().filter(|(id, _, _)| *id == task.id).collect();
        let statuses: BTreeSet<Option<&str>> = ends.iter().map(|(_, _, s)| s.as_deref()).collect();
        let terminal = |s: &Option<&str>| matches!(s, Some("completed" | "failed" | "cancelled"));
        if ends.is_empty() || !statuses.iter().all(terminal) || statuses.len() != 1 {
            let seen: Vec<String> = ends.iter().map(|(_, i, s)| format!("{i}: {s:?}")).collect();
            findings.violations.push(format!(
                "task {} (created on {:?} at {:.0} ms) did not end the same on every instance: {}",
                task.id,
                task.created_by,
                task.created,
                seen.join(", ")
            ));
        }
    }
}
