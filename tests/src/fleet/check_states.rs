//! The checks of single-use states and of error answers.

use std::collections::BTreeMap;
use std::path::Path;

use super::check::{Expect, Findings, Kind, deleted};
use super::record::{Call, Journal, Op};

/// Each state: at most one success answered; refused only once it may have been used (or has
/// expired). Each delete's key names at most one trash entry.
pub fn check_states(journal: &Journal, workspace: &Path, expect: &Expect, findings: &mut Findings) {
    let mut by_state: BTreeMap<usize, Vec<&Call>> = BTreeMap::new();
    for call in &journal.calls {
        if let Op::Confirm { state, .. } = call.op {
            by_state.entry(state).or_default().push(call);
        }
    }
    for (state, mut calls) in by_state {
        calls.sort_by(|a, b| a.sent.total_cmp(&b.sent));
        let issued = journal.states[state].1;
        let (mut maybe_used, mut successes) = (false, 0);
        for call in calls {
            let kind = Kind::of(&call.answer);
            match kind {
                Kind::Success if deleted(call) => {
                    successes += 1;
                    if successes > 1 {
                        findings.violations.push(format!(
                            "state {state}: a second success answered at {:.0} ms (used twice)",
                            call.sent
                        ));
                    }
                    maybe_used = true;
                }
                Kind::Success => maybe_used = true,
                Kind::Refused if !maybe_used && call.sent < issued + expect.state_ttl => {
                    findings.violations.push(format!(
                        "state {state}: refused at {:.0} ms though never used (issued at {issued:.0} ms)",
                        call.sent
                    ));
                }
                ref k if k.maybe_ran() => maybe_used = true,
                _ => {}
            }
        }
    }
    let mut keys: BTreeMap<String, usize> = BTreeMap::new();
    for entry in std::fs::read_dir(workspace.join(".trash")).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some((key, _)) = name.split_once("--") {
            *keys.entry(key.to_owned()).or_default() += 1;
        }
    }
    for (key, count) in keys.into_iter().filter(|(_, n)| *n > 1) {
        findings.violations.push(format!("one confirmation ({key}) deleted {count} notes"));
    }
}

/// Whether `call` ran while a fault whose name starts with one of `kinds` was on (or its
/// effects could still show).
fn during(journal: &Journal, call: &Call, expect: &Expect, kinds: &[&str]) -> bool {
    journal.faults.iter().filter(|f| kinds.iter().any(|k| f.what.starts_with(k))).any(|f| {
        let until = f.recovered.unwrap_or(f.ended).max(f.ended) + expect.grace;
        call.sent <= until && call.answered >= f.began - 200.0
    })
}

/// Every error answer is one the faults explain.
pub fn check_errors(journal: &Journal, expect: &Expect, findings: &mut Findings) {
    let instance_faults = ["kill", "stop", "haproxy", "rotate"];
    for call in &journal.calls {
        let kind = Kind::of(&call.answer);
        let explained = match &kind {
            Kind::Success | Kind::ToolError => true,
            Kind::Refused => matches!(call.op, Op::Confirm { .. }),
            Kind::Lost | Kind::Proxy(_) => during(journal, call, expect, &instance_faults),
            Kind::Unavailable => during(journal, call, expect, &["postgres"]),
            Kind::Other => false,
        };
        if !explained {
            let detail = match &call.answer {
                super::client::Answer::Lost(why) => why.clone(),
                super::client::Answer::Reply { status, message, .. } => format!("HTTP {status} {message:?}"),
            };
            findings
                .violations
                .push(format!("{:?} at {:.0} ms got an error no fault explains: {detail}", call.op, call.sent));
        }
    }
}
