//! What a relay counts, for operators (and tests) to see what came in and what was done with it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// A relay's counts since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RelayStats {
    /// Notifications from other instances that verified (events, or asking for a resync).
    pub accepted: u64,
    /// Notifications ignored: not sealed with a key of the ring, malformed, replayed or stale.
    pub rejected: u64,
    /// Notifications whose events reached this instance's listeners.
    pub delivered: u64,
    /// Notifications dropped because the incoming queue was full; each is followed by a resync.
    pub dropped: u64,
    /// Resyncs done: every listen stream ended so that its client listens again and re-reads.
    pub resyncs: u64,
    /// The most notifications that waited in the incoming queue at once.
    pub queue_peak: usize,
}

/// The counts as they are kept, shared by the relay's tasks.
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub accepted: AtomicU64,
    pub rejected: AtomicU64,
    pub delivered: AtomicU64,
    pub dropped: AtomicU64,
    pub resyncs: AtomicU64,
    pub queue_peak: AtomicUsize,
}

impl Counters {
    pub(super) fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn snapshot(&self) -> RelayStats {
        RelayStats {
            accepted: self.accepted.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            delivered: self.delivered.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            resyncs: self.resyncs.load(Ordering::Relaxed),
            queue_peak: self.queue_peak.load(Ordering::Relaxed),
        }
    }
}
