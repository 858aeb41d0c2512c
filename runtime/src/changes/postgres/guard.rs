//! Which notifications on the channel count: those sealed with a key of the ring, from another
//! instance, and neither replayed nor stale. Anyone who can connect to the database can send a
//! notification, and can LISTEN and send again one an instance sent; neither is acted on.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::super::keys::{RelayKeys, Unopened};
use super::stats::Counters;
use super::wire::{Relayed, decode};

/// How far a notification's time may be from this machine's clock when its sender is not known
/// yet: instances' clocks must agree within this.
const FRESHNESS: Duration = Duration::from_secs(120);
/// A sender not heard from for this long (by its own clock) is forgotten.
const FORGET_AFTER: Duration = Duration::from_secs(600);
/// Ignored notifications are logged at most once in this long.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// Why a notification was ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ignored {
    /// Not sealed, sealed with an unknown key, or with a tag that does not match.
    Unopened(Unopened),
    /// Sealed, but not a body this version reads.
    Malformed,
    /// A sender's notification seen already (its sequence number is not past the last one).
    Replayed,
    /// From a sender not known yet, and too far from this machine's clock to be new.
    Stale,
}

/// What to do with one notification.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    /// Another instance's, to act on.
    Accepted(Relayed),
    /// This instance's own, back from the channel.
    Own,
    /// Not acted on (counted and logged).
    Ignored(Ignored),
}

/// The last notification of a sender.
struct LastHeard {
    seq: u64,
    at_ms: u64,
}

/// Checks notifications for one relay, across its reconnections.
pub(super) struct Guard {
    keys: RelayKeys,
    instance: String,
    senders: HashMap<String, LastHeard>,
    counters: Arc<Counters>,
    logged: Option<Instant>,
    /// Ignored since the last log line.
    unlogged: u64,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Guard {
    pub(super) fn new(keys: RelayKeys, instance: String, counters: Arc<Counters>) -> Self {
        Guard { keys, instance, senders: HashMap::new(), counters, logged: None, unlogged: 0 }
    }

    /// What `payload`, as received now, says.
    pub(super) fn check(&mut self, payload: &str) -> Verdict {
        let verdict = self.judge(payload, now_ms());
        match &verdict {
            Verdict::Accepted(_) => Counters::add(&self.counters.accepted),
            Verdict::Ignored(why) => {
                Counters::add(&self.counters.rejected);
                self.log(*why);
            }
            Verdict::Own => {}
        }
        verdict
    }

    fn judge(&mut self, payload: &str, now_ms: u64) -> Verdict {
        let body = match self.keys.open(payload) {
            Ok(body) => body,
            Err(why) => return Verdict::Ignored(Ignored::Unopened(why)),
        };
        let Some((origin, relayed)) = decode(body) else { return Verdict::Ignored(Ignored::Malformed) };
        if origin.from == self.instance {
            return Verdict::Own;
        }
        match self.senders.get_mut(origin.from) {
            // One sender's notifications arrive in the order it sent them, so whatever is not
            // past the last one is a copy, however recent.
            Some(last) if origin.seq <= last.seq => return Verdict::Ignored(Ignored::Replayed),
            Some(last) => *last = LastHeard { seq: origin.seq, at_ms: origin.at_ms.max(last.at_ms) },
            None => {
                // Nothing to compare with but the clock: an old notification may be a copy of
                // one acted on before this relay forgot its sender (or before it started).
                if now_ms.abs_diff(origin.at_ms) > FRESHNESS.as_millis() as u64 {
                    return Verdict::Ignored(Ignored::Stale);
                }
                self.forget_the_silent(origin.at_ms);
                let sender = LastHeard { seq: origin.seq, at_ms: origin.at_ms };
                self.senders.insert(origin.from.to_owned(), sender);
            }
        }
        Verdict::Accepted(relayed)
    }

    /// Forgets senders silent for long by the newest sender's clock (not this machine's, which
    /// jumps when the process was stopped), so that instances restarted over months do not pile
    /// up. Only senders with the key get here.
    fn forget_the_silent(&mut self, newest_ms: u64) {
        let cutoff = newest_ms.saturating_sub(FORGET_AFTER.as_millis() as u64);
        self.senders.retain(|_, sender| sender.at_ms >= cutoff);
    }

    /// Logs what was ignored, at a bounded rate: whoever floods the channel cannot flood the log.
    fn log(&mut self, why: Ignored) {
        self.unlogged += 1;
        if self.logged.is_some_and(|at| at.elapsed() < LOG_EVERY) {
            return;
        }
        tracing::warn!(
            reason = ?why,
            ignored = self.unlogged,
            "change notifications on the database's channel were ignored: not sealed with a relay key \
             of this instance, or copies (anyone who can connect to the database can send them)"
        );
        self.logged = Some(Instant::now());
        self.unlogged = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::keys::RelayKey;
    use super::super::wire::{Postmark, events_body, resync_body};
    use super::*;

    fn keys() -> RelayKeys {
        RelayKeys::new([RelayKey::new("r1", &[1; 32]).unwrap()]).unwrap()
    }

    fn guard() -> Guard {
        Guard::new(keys(), "me".into(), Arc::default())
    }

    fn tools(from: &str, seq: u64, at_ms: u64) -> String {
        keys().seal(&events_body(&Postmark { from, seq, at_ms }, &[r#""tools""#.to_owned()]))
    }

    const NOW: u64 = 1_700_000_000_000;

    #[test]
    fn a_sealed_notification_from_another_instance_counts_once() {
        let mut guard = guard();
        let first = tools("a", 1, NOW);
        let tools_changed = Verdict::Accepted(Relayed::Events(vec![crate::changes::ChangeEvent::ToolsListChanged]));
        assert_eq!(guard.judge(&first, NOW), tools_changed);
        assert_eq!(guard.judge(&first, NOW), Verdict::Ignored(Ignored::Replayed), "sent again by someone");
        assert_eq!(guard.judge(&tools("a", 2, NOW), NOW), tools_changed);
        assert_eq!(guard.judge(&tools("me", 1, NOW), NOW), Verdict::Own);
        let resync = keys().seal(&resync_body(&Postmark { from: "b", seq: 1, at_ms: NOW }));
        assert_eq!(guard.judge(&resync, NOW), Verdict::Accepted(Relayed::Resync));
    }

    #[test]
    fn forged_or_malformed_notifications_are_ignored() {
        let mut guard = guard();
        let unsealed = r#"{"from":"a","seq":1,"at":1700000000000,"resync":true}"#;
        assert_eq!(guard.judge(unsealed, NOW), Verdict::Ignored(Ignored::Unopened(Unopened::Unsealed)));
        let other = RelayKeys::new([RelayKey::new("r1", &[2; 32]).unwrap()]).unwrap();
        let forged = other.seal(&resync_body(&Postmark { from: "a", seq: 1, at_ms: NOW }));
        assert_eq!(guard.judge(&forged, NOW), Verdict::Ignored(Ignored::Unopened(Unopened::WrongTag)));
        assert_eq!(guard.judge(&keys().seal("{}"), NOW), Verdict::Ignored(Ignored::Malformed));
    }

    #[test]
    fn a_new_sender_must_be_recent_and_a_known_one_only_newer() {
        let mut guard = guard();
        let old = NOW - FRESHNESS.as_millis() as u64 - 1;
        assert_eq!(guard.judge(&tools("a", 5, old), NOW), Verdict::Ignored(Ignored::Stale));
        let future = NOW + FRESHNESS.as_millis() as u64 + 1;
        assert_eq!(guard.judge(&tools("a", 5, future), NOW), Verdict::Ignored(Ignored::Stale));
        assert!(matches!(guard.judge(&tools("a", 5, NOW), NOW), Verdict::Accepted(_)));
        // Known: late is fine (this process was stopped a while), as long as it is newer.
        assert!(matches!(guard.judge(&tools("a", 6, NOW), NOW + 3_600_000), Verdict::Accepted(_)));
        assert_eq!(guard.judge(&tools("a", 4, NOW), NOW), Verdict::Ignored(Ignored::Replayed));
    }

    #[test]
    fn senders_silent_for_long_are_forgotten() {
        let mut guard = guard();
        assert!(matches!(guard.judge(&tools("gone", 1, NOW), NOW), Verdict::Accepted(_)));
        let later = NOW + FORGET_AFTER.as_millis() as u64 + 1;
        assert!(matches!(guard.judge(&tools("new", 1, later), later), Verdict::Accepted(_)));
        assert_eq!(guard.senders.len(), 1);
        // A copy of the forgotten sender's notification is too old to count.
        assert_eq!(guard.judge(&tools("gone", 1, NOW), later), Verdict::Ignored(Ignored::Stale));
    }
}
