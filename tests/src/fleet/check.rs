//! The checker: reads the record and the data left on disk and lists every broken invariant.
//!
//! - Each note ends, and reads at every point, as one of the versions that could be there given
//!   what each client was told: a success is never lost, a note is never half-written, nothing
//!   is created twice (here).
//! - A single-use state is accepted at most once fleet-wide, its delete happened exactly when
//!   an answer says it may have (one trash entry, named by its key), and a state that was never
//!   used is refused only once its key is retired (`check_states`).
//! - Every change reached every stream open when it was made, each by a notification of its
//!   own, in time; a stream ends only with the documented signal (or a fault), and its client
//!   then lists again and listens again (`check_streams`).
//! - Every task ran once, ended the same on every instance, completed unless a fault explains
//!   its failure, and exported what the notes could hold while it ran (`check_tasks`).
//! - Errors are only those the faults explain, and every fault met work in flight
//!   (`check_faults`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::client::Answer;
use super::record::{Call, Journal, Op};
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
    /// The bound of the 99th percentile of delivery times outside faults (ms).
    pub delivery_p99: f64,
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
    /// The same, of changes made outside every fault's window.
    pub delivery_calm: Vec<f64>,
    /// Notifications that matched no change the workload knows of (an effect whose answer was
    /// lost, a relay delivering twice).
    pub surplus: usize,
    /// Faults that met no work in flight, with why: the run proves nothing about them.
    pub unbitten: Vec<String>,
}

/// What a note could be over one stretch of the run.
#[derive(Clone, Debug)]
pub struct Segment {
    /// From (ms).
    pub from: f64,
    /// Until (ms).
    pub to: f64,
    /// Every version it may have had meanwhile.
    pub possible: BTreeSet<Version>,
}

/// Each note's segments, by id.
pub type History = BTreeMap<String, Vec<Segment>>;

/// The versions note `id` may have had at some moment between `from` and `to`.
pub fn possible_during(history: &History, id: &str, from: f64, to: f64) -> BTreeSet<Version> {
    let mut possible = BTreeSet::new();
    for segment in history.get(id).into_iter().flatten() {
        if segment.from <= to && segment.to >= from {
            possible.extend(segment.possible.iter().copied());
        }
    }
    if possible.is_empty() {
        possible.insert(None);
    }
    possible
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
        Op::List => "resources/list, catching up",
    }
}

/// A note as it can be: absent, or at a version.
pub type Version = Option<u32>;

/// The version a note's text is, if it is whole.
pub fn parse(worker: usize, slot: usize, text: &str) -> Result<u32, String> {
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

/// The checks of one note: its calls in order, then the file. Returns what the note could be
/// over the run.
fn check_note(worker: usize, slot: usize, calls: &[&Call], workspace: &Path, findings: &mut Findings) -> Vec<Segment> {
    let id = slot_id(worker, slot);
    let mut possible: BTreeSet<Version> = BTreeSet::from([None]);
    let mut segments = Vec::new();
    let mut since = f64::NEG_INFINITY;
    let mut fail = |what: String| findings.violations.push(format!("{id}: {what}"));
    for call in calls {
        let before = possible.clone();
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
            (Op::Confirm { .. }, k) if k.maybe_ran() || *k == Kind::Unavailable => {
                // -31503 to a delete that holds its claim with its effect (it is keyed on the
                // state): the effect may have happened, and sending it again cannot repeat it.
                possible.insert(None);
            }
            _ => {}
        }
        segments.push(Segment { from: since, to: call.sent, possible: before.clone() });
        segments.push(Segment { from: call.sent, to: call.answered, possible: &before | &possible });
        since = call.answered;
    }
    segments.push(Segment { from: since, to: f64::INFINITY, possible: possible.clone() });
    let path = workspace.join(format!("{id}.md"));
    let actual = match std::fs::read_to_string(&path) {
        Ok(text) => match parse(worker, slot, &text) {
            Ok(version) => Some(version),
            Err(problem) => {
                fail(format!("at the end: {problem}"));
                return segments;
            }
        },
        Err(_) => None,
    };
    if !possible.contains(&actual) {
        fail(format!("at the end it is {actual:?}, not one of {possible:?} (a success lost, or an effect twice)"));
    }
    segments
}

/// Everything the checker verifies; see the module's documentation.
pub fn check(journal: &Journal, workspace: &Path, expect: &Expect) -> Findings {
    let mut findings = Findings::default();
    for call in &journal.calls {
        let kind = Kind::of(&call.answer);
        *findings.counts.entry(format!("{}: {}", op_label(&call.op), kind.label())).or_default() += 1;
    }
    let mut history = History::new();
    for worker in 0..expect.workers {
        for slot in 0..expect.slots {
            let id = slot_id(worker, slot);
            let calls: Vec<&Call> = journal.calls.iter().filter(|c| slot_of(&c.op) == Some(id.as_str())).collect();
            let segments = check_note(worker, slot, &calls, workspace, &mut findings);
            history.insert(id, segments);
        }
    }
    check_unexpected_files(workspace, expect, &mut findings);
    super::check_states::check_states(journal, workspace, expect, &mut findings);
    super::check_faults::check_errors(journal, expect, &mut findings);
    super::check_streams::check_streams(journal, expect, &mut findings);
    super::check_tasks::check_tasks(journal, &history, expect, &mut findings);
    super::check_faults::check_bites(journal, expect, &mut findings);
    for fault in &journal.faults {
        findings.violations.extend(fault.violations.iter().map(|v| format!("{}: {v}", fault.what)));
    }
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
        Op::Export | Op::TaskGet { .. } | Op::List => None,
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
