//! The checks of tasks: each export ran once, ended the same on every instance, completed
//! unless its instance was killed while it ran, and holds what the notes could be while it
//! read them; an export answered with an error never ran.

use std::collections::BTreeSet;

use super::check::{Expect, Findings, History, Kind, Version, parse, possible_during};
use super::record::{Journal, Op, Task, TaskEnd};
use super::workload::slot_id;

/// The notes an export holds, by id, with their text.
fn sections(markdown: &str) -> Vec<(String, String)> {
    const MARK: &str = "<!-- note: ";
    let mut found = Vec::new();
    let mut rest = markdown;
    while let Some(start) = rest.find(MARK) {
        let after = &rest[start + MARK.len()..];
        let Some((id, body)) = after.split_once(" -->\n") else { break };
        let end = body.find(&format!("\n---\n\n{MARK}")).unwrap_or(body.len());
        found.push((id.to_owned(), body[..end].to_owned()));
        rest = &body[end..];
    }
    found
}

/// Whether the instance that created `task` was stopped while it ran: killed, or restarted by
/// a rotation (which fails the tasks it was running, saying to call the tool again).
fn stopped_while_running(journal: &Journal, task: &Task, ended: f64) -> bool {
    let Some(by) = task.created_by.as_deref() else { return false };
    journal.faults.iter().any(|f| {
        let stopped = f.what == format!("kill {by}") || f.what.starts_with("rotate");
        stopped && f.began <= ended && f.ended >= task.created
    })
}

/// The content of a completed export against what each of the workload's notes could be
/// between `from` and `to`.
fn check_content(
    task: &Task,
    result: &serde_json::Value,
    history: &History,
    expect: &Expect,
    window: (f64, f64),
) -> Vec<String> {
    let mut problems = Vec::new();
    let content = &result["structuredContent"];
    let (Some(count), Some(markdown)) = (content["count"].as_u64(), content["markdown"].as_str()) else {
        return vec![format!("task {}: its result is not an export: {result}", task.id)];
    };
    let sections = sections(markdown);
    if sections.len() as u64 != count {
        problems.push(format!("task {}: says {count} notes but holds {}", task.id, sections.len()));
    }
    let (from, to) = window;
    for worker in 0..expect.workers {
        for slot in 0..expect.slots {
            let id = slot_id(worker, slot);
            let possible: BTreeSet<Version> = possible_during(history, &id, from, to);
            let held = sections.iter().find(|(note, _)| *note == id);
            let version: Result<Version, String> = match held {
                None => Ok(None),
                Some((_, text)) => parse(worker, slot, text).map(Some),
            };
            match version {
                Ok(version) if possible.contains(&version) => {}
                Ok(version) => problems.push(format!(
                    "task {}: exported {id} as {version:?}, which it never was from {from:.0} to {to:.0} ms ({possible:?})",
                    task.id
                )),
                Err(problem) => problems.push(format!("task {}: {problem}", task.id)),
            }
        }
    }
    problems
}

/// See the module's documentation.
pub fn check_tasks(journal: &Journal, history: &History, expect: &Expect, findings: &mut Findings) {
    let terminal = |s: &Option<String>| matches!(s.as_deref(), Some("completed" | "failed" | "cancelled"));
    for task in &journal.tasks {
        let ends: Vec<&TaskEnd> = journal.task_ends.iter().filter(|e| e.task == task.id).collect();
        let statuses: BTreeSet<&Option<String>> = ends.iter().map(|e| &e.status).collect();
        let runs = journal.export_runs.get(&task.request).copied().unwrap_or(0);
        let origin = format!("task {} (created on {:?} at {:.0} ms)", task.id, task.created_by, task.created);
        if ends.is_empty() || !statuses.iter().all(|s| terminal(s)) || statuses.len() != 1 {
            let seen: Vec<String> = ends.iter().map(|e| format!("{}: {:?}", e.instance, e.status)).collect();
            findings.violations.push(format!("{origin} did not end the same on every instance: {}", seen.join(", ")));
            continue;
        }
        let ended = ends.iter().filter_map(|e| e.updated).fold(f64::INFINITY, f64::min);
        *findings.counts.entry(format!("tasks {}", ends[0].status.as_deref().unwrap_or("?"))).or_default() += 1;
        match ends[0].status.as_deref() {
            Some("completed") => {
                if runs != 1 {
                    findings.violations.push(format!("{origin} completed, and ran {runs} times"));
                }
                let result = ends[0].result.clone().unwrap_or_default();
                if ends.iter().any(|e| e.result.as_ref() != Some(&result)) {
                    findings.violations.push(format!("{origin}: the instances show different results"));
                }
                let window = (task.created, ended + 50.0);
                findings.violations.extend(check_content(task, &result, history, expect, window));
            }
            Some("failed") if stopped_while_running(journal, task, ended) => {
                if runs > 1 {
                    findings.violations.push(format!("{origin} ran {runs} times"));
                }
            }
            other => findings
                .violations
                .push(format!("{origin} ended {other:?} with no fault to explain it: {:?}", ends[0].error)),
        }
    }
    // An export answered with an error (other than a lost answer) must not have run.
    for call in journal.calls.iter().filter(|c| c.op == Op::Export) {
        let kind = Kind::of(&call.answer);
        let request = &call.request;
        if kind != Kind::Success && !kind.maybe_ran() && journal.export_runs.get(request).is_some_and(|n| *n > 0) {
            findings.violations.push(format!("{request} was answered {kind:?}, yet its export ran"));
        }
    }
}
