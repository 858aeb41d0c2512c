//! The checks of errors and faults: every error answer is one a fault explains, and every
//! fault met work in flight (a run where one did not proves nothing about it).

use super::check::{Expect, Findings, Kind};
use super::client::Answer;
use super::record::{End, Fault, Journal, Op};

/// Whether the stretch from `from` to `to` overlaps a fault whose name starts with one of
/// `kinds` (`""`: any fault), or the time after it when its effects may still show.
pub fn during(journal: &Journal, from: f64, to: f64, expect: &Expect, kinds: &[&str]) -> bool {
    journal.faults.iter().filter(|f| kinds.iter().any(|k| f.what.starts_with(k))).any(|f| {
        let until = f.recovered.unwrap_or(f.ended).max(f.ended) + expect.grace;
        from <= until && to >= f.began - 200.0
    })
}

/// The faults that cut requests and streams: an instance gone or frozen, or the proxy's old
/// worker closing. A rolling restart is not among them: a stopping instance finishes what it
/// has, and HAProxy resends a request that found it gone.
const CUTTING: [&str; 3] = ["kill", "stop", "haproxy"];

/// Every error answer is one the faults explain.
pub fn check_errors(journal: &Journal, expect: &Expect, findings: &mut Findings) {
    for call in &journal.calls {
        let kind = Kind::of(&call.answer);
        let explained = match &kind {
            Kind::Success | Kind::ToolError => true,
            // Whether the refusal was right is the state check's to say.
            Kind::Refused => matches!(call.op, Op::Confirm { .. }),
            Kind::Lost | Kind::Proxy(_) => during(journal, call.sent, call.answered, expect, &CUTTING),
            Kind::Unavailable => during(journal, call.sent, call.answered, expect, &["postgres"]),
            Kind::Other => false,
        };
        if !explained {
            let detail = match &call.answer {
                Answer::Lost(why) => why.clone(),
                Answer::Reply { status, message, .. } => format!("HTTP {status} {message:?}"),
            };
            findings
                .violations
                .push(format!("{:?} at {:.0} ms got an error no fault explains: {detail}", call.op, call.sent));
        }
    }
}

/// Within `fault`'s window.
fn within(fault: &Fault, at: f64) -> bool {
    at >= fault.began && at <= fault.ended
}

/// Why `fault` met no work in flight, if it did not.
fn missed(journal: &Journal, fault: &Fault) -> Option<String> {
    let calls = || journal.calls.iter();
    let cut = || calls().filter(|c| within(fault, c.answered) && Kind::of(&c.answer).maybe_ran()).count();
    let name = fault.what.split_whitespace().nth(1).unwrap_or_default();
    if fault.what.starts_with("postgres") {
        let unavailable = calls()
            .filter(|c| Kind::of(&c.answer) == Kind::Unavailable && c.answered >= fault.began - 200.0)
            .filter(|c| c.sent <= fault.recovered.unwrap_or(fault.ended))
            .count();
        if unavailable == 0 {
            return Some("no request was answered -31503 while the database was down".into());
        }
        let crash = fault.what.contains("crash");
        if crash && !fault.evidence.iter().any(|e| e.contains("refused after it")) {
            return Some("no state used before the crash was tried after it".into());
        }
    } else if fault.what.starts_with("kill") {
        let taken_over = fault.evidence.iter().any(|e| e.contains("was running on"));
        if cut() == 0 && !taken_over {
            return Some(format!("no request to {name} was cut and it ran no task"));
        }
    } else if fault.what.starts_with("stop") {
        let others = calls()
            .filter(|c| Kind::of(&c.answer) == Kind::Success && within(fault, c.sent) && within(fault, c.answered))
            .filter(|c| c.answer.served_by().is_some_and(|by| by != name))
            .count();
        let held = calls()
            .filter(|c| c.answer.served_by() == Some(name) && c.sent < fault.ended && c.answered >= fault.ended - 100.0)
            .count();
        if others == 0 || held + cut() == 0 {
            return Some(format!(
                "while {name} was stopped, {others} requests were answered by the others and {held} waited for it"
            ));
        }
    } else if fault.what.starts_with("rotate") {
        if fault.evidence.len() < 3 {
            return Some("the states held across the phases were not all tried".into());
        }
        let ended = journal
            .streams
            .iter()
            .filter(|s| s.ended.as_ref().is_some_and(|(at, how)| *how == End::Result && within(fault, *at)))
            .count();
        if ended == 0 {
            return Some("no stream was ended by a restarting instance".into());
        }
    }
    None
}

/// Every fault met work in flight; the ones that did not are listed in `findings.unbitten`.
pub fn check_bites(journal: &Journal, _expect: &Expect, findings: &mut Findings) {
    for fault in &journal.faults {
        if let Some(why) = missed(journal, fault) {
            findings.unbitten.push(format!("{}: {why}", fault.what));
        }
    }
}
