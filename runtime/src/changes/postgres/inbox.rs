//! Where verified notifications wait between the connection that reads them and the relay that
//! delivers them. The queue is bounded: a notification that finds it full is dropped and a
//! resync asked for instead, so that no event is lost without listeners hearing of it. Requests
//! to resync are not queued at all: any number of them is one pending resync.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use super::super::ChangeEvent;
use super::stats::Counters;

/// Notifications that may wait to be delivered, unless the relay is built with another limit.
pub const DEFAULT_INCOMING_LIMIT: usize = 1024;

/// The incoming queue of one relay, across its reconnections.
pub(super) struct IncomingQueue {
    queue: Mutex<VecDeque<Vec<ChangeEvent>>>,
    limit: usize,
    resync: AtomicBool,
    wake: Notify,
    counters: Arc<Counters>,
}

impl IncomingQueue {
    pub(super) fn new(limit: usize, counters: Arc<Counters>) -> Self {
        IncomingQueue {
            queue: Mutex::new(VecDeque::new()),
            limit: limit.max(1),
            resync: AtomicBool::new(false),
            wake: Notify::new(),
            counters,
        }
    }

    /// Queues another instance's events, or, when the queue is full, drops them and asks for a
    /// resync.
    pub(super) fn push(&self, events: Vec<ChangeEvent>) {
        let mut queue = self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if queue.len() >= self.limit {
            drop(queue);
            Counters::add(&self.counters.dropped);
            self.ask_resync();
            return;
        }
        queue.push_back(events);
        self.counters.queue_peak.fetch_max(queue.len(), Ordering::Relaxed);
        drop(queue);
        self.wake.notify_one();
    }

    /// Asks for one resync, however many are asked for before it is done.
    pub(super) fn ask_resync(&self) {
        self.resync.store(true, Ordering::Release);
        self.wake.notify_one();
    }

    /// Waits until something was pushed or asked for since the last [`take`](Self::take).
    pub(super) async fn woken(&self) {
        self.wake.notified().await;
    }

    /// Everything waiting, in order, and whether a resync was asked for.
    pub(super) fn take(&self) -> (VecDeque<Vec<ChangeEvent>>, bool) {
        let waiting = std::mem::take(&mut *self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        (waiting, self.resync.swap(false, Ordering::AcqRel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_stays_within_the_limit_and_what_overflows_becomes_one_resync() {
        let counters = Arc::new(Counters::default());
        let inbox = IncomingQueue::new(4, counters.clone());
        for n in 0..10_000 {
            inbox.push(vec![ChangeEvent::ResourceUpdated(format!("notes://w/{n}").into())]);
        }
        for _ in 0..1_000 {
            inbox.ask_resync();
        }
        let (waiting, resync) = inbox.take();
        assert_eq!(waiting.len(), 4, "the first ones, in order");
        assert_eq!(waiting[0], [ChangeEvent::ResourceUpdated("notes://w/0".into())]);
        assert!(resync, "what was dropped is made up for by a resync");
        let stats = counters.snapshot();
        assert_eq!((stats.queue_peak, stats.dropped), (4, 9_996));
        assert_eq!(inbox.take(), (VecDeque::new(), false), "a thousand requests were one");
    }

    #[tokio::test]
    async fn pushing_wakes_the_relay_even_before_it_waits() {
        let inbox = IncomingQueue::new(4, Arc::default());
        inbox.push(vec![ChangeEvent::ToolsListChanged]);
        tokio::time::timeout(std::time::Duration::from_secs(5), inbox.woken()).await.expect("woken");
    }
}
