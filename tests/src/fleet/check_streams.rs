//! The delivery check: every change the workload made is matched to a notification of its own
//! on every stream open when it was made (a later change's notification never stands in for
//! it), within the delivery time, and fast outside faults. A stream ends only with the
//! documented signal (its result) or by a fault, and its client then lists the notes again and
//! listens again.

use std::collections::BTreeMap;

use super::check::{Expect, Findings, Kind, deleted};
use super::check_faults::during;
use super::record::{End, Event, Journal, Op, Stream};

/// A change a stream must announce.
#[derive(Clone, Debug)]
pub struct Change {
    /// When it was asked for (its effect, and so its notification, comes after).
    pub sent: f64,
    /// When its success was answered.
    pub answered: f64,
    /// The notification that announces it.
    pub event: Event,
}

/// Every change the workload was told it made, in the order they were asked for. A delete
/// confirmed after an earlier attempt lost its answer may have taken effect at that attempt.
pub fn changes(journal: &Journal, expect: &Expect) -> Vec<Change> {
    let mut first_attempt: BTreeMap<usize, f64> = BTreeMap::new();
    for call in &journal.calls {
        if let Op::Confirm { state, .. } = call.op {
            let first = first_attempt.entry(state).or_insert(call.sent);
            *first = first.min(call.sent);
        }
    }
    let uri = |slot: &str| Event::Updated(format!("{}{slot}", expect.uri_prefix));
    let mut changes = Vec::new();
    for call in journal.calls.iter().filter(|c| Kind::of(&c.answer) == Kind::Success) {
        let (sent, answered) = (call.sent, call.answered);
        match &call.op {
            Op::Create { .. } => changes.push(Change { sent, answered, event: Event::ListChanged }),
            Op::Edit { slot, .. } => changes.push(Change { sent, answered, event: uri(slot) }),
            Op::Confirm { slot, state, replay: false } if deleted(call) => {
                let sent = first_attempt[state];
                changes.push(Change { sent, answered, event: Event::ListChanged });
                changes.push(Change { sent, answered, event: uri(slot) });
            }
            _ => {}
        }
    }
    changes.sort_by(|a, b| a.sent.total_cmp(&b.sent));
    changes
}

/// When the stream stopped being open: its end, or never.
fn end_of(stream: &Stream) -> (f64, End) {
    stream.ended.clone().unwrap_or((f64::INFINITY, End::Closed))
}

/// The changes `stream` had to announce: those asked for while it was open.
fn owed<'a>(stream: &Stream, changes: &'a [Change]) -> Vec<&'a Change> {
    let Some(acknowledged) = stream.acknowledged else { return Vec::new() };
    let (ended, _) = end_of(stream);
    changes.iter().filter(|c| c.sent >= acknowledged && c.sent <= ended).collect()
}

/// Matches each owed change (in the order asked) to the first notification of its event that
/// came after it was asked, in time (`delivery` after its answer), and that no earlier change
/// took: when each was announced, and the notifications no change took.
fn matched(stream: &Stream, owed: &[&Change], delivery: f64) -> (Vec<Option<f64>>, Vec<usize>) {
    let mut taken = vec![false; stream.events.len()];
    let mut when = Vec::with_capacity(owed.len());
    for change in owed {
        let found = stream.events.iter().enumerate().find(|(i, (at, event))| {
            !taken[*i] && *event == change.event && *at >= change.sent && *at <= change.answered + delivery
        });
        when.push(found.map(|(i, (at, _))| {
            taken[i] = true;
            *at
        }));
    }
    (when, taken.iter().enumerate().filter(|(_, t)| !**t).map(|(i, _)| i).collect())
}

/// The changes open streams still wait for that may yet come in time: what the workload waits
/// for before it closes the streams.
pub fn awaited(journal: &Journal, expect: &Expect, now: f64) -> usize {
    let changes = changes(journal, expect);
    let mut waiting = 0;
    for stream in journal.streams.iter().filter(|s| s.ended.is_none()) {
        let owed = owed(stream, &changes);
        let (when, _) = matched(stream, &owed, expect.delivery);
        waiting += owed.iter().zip(&when).filter(|(c, at)| at.is_none() && now < c.answered + expect.delivery).count();
    }
    waiting
}

/// Whether the client of stream `index`, which ended at `ended`, listed the notes again and
/// had a new stream acknowledged afterwards.
fn caught_up(journal: &Journal, index: usize, ended: f64) -> bool {
    let stream = &journal.streams[index];
    let relisted = stream.relisted.is_some_and(|at| at >= ended);
    let relistened = journal.streams[index + 1..]
        .iter()
        .any(|s| s.follower == stream.follower && s.acknowledged.is_some_and(|at| at >= ended));
    relisted && relistened
}

/// See the module's documentation.
pub fn check_streams(journal: &Journal, expect: &Expect, findings: &mut Findings) {
    let changes = changes(journal, expect);
    let closing = journal.closing.unwrap_or(f64::INFINITY);
    let instance_faults = ["kill", "stop", "haproxy", "rotate"];
    for (index, stream) in journal.streams.iter().enumerate() {
        if stream.acknowledged.is_none() {
            continue;
        }
        let (ended, how) = end_of(stream);
        let on = stream.served_by.as_deref().unwrap_or("?");
        if let End::Dropped(why) = &how
            && !during(journal, ended, ended, expect, &instance_faults)
        {
            findings
                .violations
                .push(format!("stream {index} (on {on}) dropped at {ended:.0} ms, no fault explains it: {why}"));
        }
        // Time to listen again and list again before the run closed its streams.
        let must_catch_up = how != End::Closed && ended + 5000.0 < closing;
        if must_catch_up && !caught_up(journal, index, ended) {
            findings.violations.push(format!(
                "stream {index} (on {on}) ended at {ended:.0} ms and its client did not both list again and listen again"
            ));
        }
        let owed = owed(stream, &changes);
        let (when, surplus) = matched(stream, &owed, expect.delivery);
        findings.surplus += surplus.len();
        for i in surplus {
            let (at, event) = &stream.events[i];
            let kind = if *event == Event::ListChanged { "list" } else { "updated" };
            let before = if stream.acknowledged.is_some_and(|a| *at < a + 1000.0) { " early" } else { "" };
            *findings.counts.entry(format!("unmatched notification: {kind}{before}")).or_default() += 1;
        }
        for (change, at) in owed.iter().zip(when) {
            match at {
                Some(at) => {
                    findings.delivery.push(at - change.sent);
                    if !during(journal, change.sent, at, expect, &[""]) {
                        findings.delivery_calm.push(at - change.sent);
                    }
                }
                // A stream that ended (with its result, or cut by a fault) before the change
                // was due: its client caught up by listing again.
                None if how != End::Closed && ended < change.answered + expect.delivery => {}
                None => findings.violations.push(format!(
                    "stream {index} (on {on}) never got its own {:?} for the change asked at {:.0} ms",
                    change.event, change.sent
                )),
            }
        }
    }
    findings.delivery.sort_by(f64::total_cmp);
    findings.delivery_calm.sort_by(f64::total_cmp);
    let calm = &findings.delivery_calm;
    if calm.len() >= 20 {
        let p99 = calm[((calm.len() - 1) as f64 * 0.99).round() as usize];
        if p99 > expect.delivery_p99 {
            findings.violations.push(format!(
                "changes outside faults took {p99:.0} ms to reach streams (p99 of {}), over the bound of {:.0} ms",
                calm.len(),
                expect.delivery_p99
            ));
        }
    }
}
