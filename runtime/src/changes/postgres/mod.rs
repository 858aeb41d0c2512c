//! Change events across instances through PostgreSQL's LISTEN/NOTIFY: what one instance
//! announces, every instance's listen streams deliver. Notifications are sealed with the
//! relay's keys (`keys.rs`), checked on arrival (`guard.rs`), wait in a bounded queue
//! (`inbox.rs`) and are delivered here, resyncs merged to one a second.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::keys::RelayKeys;
use super::{AnnouncedFrom, Changes, Signal};
use crate::replay::{PostgresSettings, StoreError};

mod guard;
mod inbox;
mod link;
mod stats;
mod wire;

pub use inbox::DEFAULT_INCOMING_LIMIT;
pub use stats::RelayStats;

use guard::Guard;
use inbox::IncomingQueue;
use link::RelayLink;
use stats::Counters;
use wire::{Batch, Postmark};

/// Resyncs asked for within this long of the last one are merged into one, done when it is up.
pub const RESYNC_INTERVAL: Duration = Duration::from_secs(1);

/// Relays a server's [`Changes`] to and from every other instance connected to the same
/// database. Events announced together go in one notification. Delivery is at least once:
/// when the relay loses its connection it reconnects, and when it falls behind it tells the
/// other instances so; either way every listen stream that may have missed events ends
/// gracefully, so that its client listens again and re-reads. Dropping the relay stops it.
///
/// Each notification is sealed with an HMAC-SHA256 tag under the [`RelayKeys`] that seal, and
/// one is acted on only when it opens with a key of the ring, comes from another instance, and
/// is newer than the last one from there (or, from an instance not heard from yet, within two
/// minutes of this machine's clock): whoever can connect to the database without the key can
/// neither announce changes nor make listeners resync, not even by sending a real notification
/// again. Notifications that fail are counted in [`stats`](Self::stats) and logged at most once
/// every ten seconds.
///
/// Verified notifications wait in a queue of at most
/// [`incoming_limit`](PostgresFanOutBuilder::incoming_limit) notifications; one that finds it
/// full is dropped and listeners resync instead. However many resyncs are asked for, listeners
/// resync at most once per [`RESYNC_INTERVAL`].
///
/// ```no_run
/// use mcp_rounds::Server;
/// use mcp_rounds::changes::{PostgresFanOut, RelayKey, RelayKeys};
///
/// # async fn run(server: Server, secret: &str) -> Result<(), Box<dyn std::error::Error>> {
/// let keys = RelayKeys::new([RelayKey::from_base64("r1", secret)?])?;
/// let _relay = PostgresFanOut::builder(server.changes(), keys)
///     .start("postgres://notes@db.internal/notes?sslrootcert=/etc/notes/db-ca.pem")
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct PostgresFanOut {
    counters: Arc<Counters>,
    _stop: DropGuard,
}

/// How a [`PostgresFanOut`] is set up.
#[derive(Debug)]
pub struct PostgresFanOutBuilder {
    changes: Changes,
    keys: RelayKeys,
    incoming_limit: usize,
}

impl PostgresFanOut {
    /// A relay of `changes` whose notifications are sealed and opened with `keys`.
    pub fn builder(changes: Changes, keys: RelayKeys) -> PostgresFanOutBuilder {
        PostgresFanOutBuilder { changes, keys, incoming_limit: DEFAULT_INCOMING_LIMIT }
    }

    /// What the relay has received and done so far.
    pub fn stats(&self) -> RelayStats {
        self.counters.snapshot()
    }
}

impl PostgresFanOutBuilder {
    /// At most this many notifications from other instances wait to be delivered (at least one;
    /// [`DEFAULT_INCOMING_LIMIT`] unless set).
    pub fn incoming_limit(mut self, notifications: usize) -> Self {
        self.incoming_limit = notifications.max(1);
        self
    }

    /// Connects to the database at `url` ([`PostgresSettings`] says how it reads TLS) and
    /// starts relaying. Fails when it cannot be reached; later connection losses are retried.
    pub async fn start(self, url: &str) -> Result<PostgresFanOut, StoreError> {
        self.start_with(&PostgresSettings::from_url(url)?).await
    }

    /// [`start`](Self::start) with settings read already (those of the replay store, say).
    pub async fn start_with(self, settings: &PostgresSettings) -> Result<PostgresFanOut, StoreError> {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(|e| StoreError(format!("no randomness for the relay's id: {e}")))?;
        let instance: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let counters = Arc::new(Counters::default());
        let inbox = Arc::new(IncomingQueue::new(self.incoming_limit, counters.clone()));
        let guard = Arc::new(Mutex::new(Guard::new(self.keys.clone(), instance.clone(), counters.clone())));
        // The first connection is made here, so that a wrong URL is an error now.
        let first = link::listen(settings, guard.clone(), inbox.clone()).await?;
        let stop = CancellationToken::new();
        let relay = FanOutTask {
            changes: self.changes,
            settings: settings.clone(),
            keys: self.keys,
            instance,
            sent: 0,
            guard,
            inbox,
            counters: counters.clone(),
            resync: ResyncGate::default(),
        };
        tokio::spawn(relay.run(stop.clone(), first));
        Ok(PostgresFanOut { counters, _stop: stop.drop_guard() })
    }
}

/// Merges resyncs: one asked for within [`RESYNC_INTERVAL`] of the last waits until then, and
/// any asked for meanwhile are the same one.
#[derive(Debug, Default)]
struct ResyncGate {
    pending: bool,
    last: Option<Instant>,
}

impl ResyncGate {
    fn ask(&mut self) {
        self.pending = true;
    }

    /// When the pending resync is due, if one is.
    fn due(&self) -> Option<Instant> {
        self.pending.then(|| self.last.map_or_else(Instant::now, |last| last + RESYNC_INTERVAL))
    }

    fn done(&mut self) {
        self.pending = false;
        self.last = Some(Instant::now());
    }
}

async fn until(due: Option<Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due).await,
        None => std::future::pending().await,
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The relay's state across connections.
struct FanOutTask {
    changes: Changes,
    settings: PostgresSettings,
    keys: RelayKeys,
    instance: String,
    /// Notifications sent so far: the next one's sequence number is one more.
    sent: u64,
    guard: Arc<Mutex<Guard>>,
    inbox: Arc<IncomingQueue>,
    counters: Arc<Counters>,
    resync: ResyncGate,
}

impl FanOutTask {
    async fn run(mut self, stop: CancellationToken, first: RelayLink) {
        let mut local = self.changes.relay();
        let mut backoff = Duration::from_millis(100);
        let mut connection = Some(first);
        loop {
            let RelayLink { client, mut reader } = match connection.take() {
                Some(link) => link,
                None => {
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(backoff) => {}
                    }
                    match link::listen(&self.settings, self.guard.clone(), self.inbox.clone()).await {
                        Ok(link) => {
                            backoff = Duration::from_millis(100);
                            // Whatever happened while disconnected was missed.
                            self.resync.ask();
                            link
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "the change relay cannot reconnect yet");
                            backoff = (backoff * 2).min(Duration::from_secs(5));
                            continue;
                        }
                    }
                }
            };
            loop {
                let due = self.resync.due();
                tokio::select! {
                    () = stop.cancelled() => {
                        reader.abort();
                        return;
                    }
                    // The connection is gone.
                    _ = &mut reader => break,
                    () = self.inbox.woken() => self.deliver(),
                    () = until(due) => {
                        self.changes.resync();
                        Counters::add(&self.counters.resyncs);
                        self.resync.done();
                    }
                    signal = local.receiver.recv() => {
                        let batch = match signal {
                            Ok(Signal::Event(event, AnnouncedFrom::Here)) => {
                                let budget = wire::events_budget(self.keys.overhead(), &self.instance);
                                wire::batch(event, &mut local.receiver, budget)
                            }
                            Ok(_) => continue,
                            Err(RecvError::Lagged(missed)) => {
                                tracing::warn!(missed, "the change relay fell behind; other instances resync");
                                Batch { groups: Vec::new(), lost: true }
                            }
                            Err(RecvError::Closed) => return,
                        };
                        if let Err(e) = link::send(&client, &self.seal(batch)).await {
                            tracing::warn!(error = %e, "a change could not be relayed");
                            break;
                        }
                    }
                }
            }
            reader.abort();
        }
    }

    /// Announces what other instances sent, in order; a resync asked for waits for the gate.
    fn deliver(&mut self) {
        let (waiting, resync) = self.inbox.take();
        for events in waiting {
            for event in events {
                self.changes.announce_from_elsewhere(event);
            }
            Counters::add(&self.counters.delivered);
        }
        if resync {
            self.resync.ask();
        }
    }

    /// The notifications that carry `batch`, each sealed with its own sequence number.
    fn seal(&mut self, batch: Batch) -> Vec<String> {
        let mut payloads = Vec::with_capacity(batch.groups.len() + 1);
        let mut next = |body: &dyn Fn(&Postmark<'_>) -> String| {
            self.sent += 1;
            let origin = Postmark { from: &self.instance, seq: self.sent, at_ms: now_ms() };
            payloads.push(self.keys.seal(&body(&origin)));
        };
        for group in &batch.groups {
            next(&|origin| wire::events_body(origin, group));
        }
        if batch.lost {
            next(&wire::resync_body);
        }
        payloads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn resyncs_asked_for_together_are_one_and_the_next_waits_a_second() {
        let mut gate = ResyncGate::default();
        assert_eq!(gate.due(), None);
        gate.ask();
        gate.ask();
        let first = gate.due().expect("pending");
        assert!(first <= Instant::now(), "the first is done at once");
        gate.done();
        assert_eq!(gate.due(), None, "both requests were one resync");
        tokio::time::advance(Duration::from_millis(300)).await;
        for _ in 0..1_000 {
            gate.ask();
        }
        let next = gate.due().expect("pending");
        assert_eq!(next - Instant::now(), Duration::from_millis(700), "a second after the last one");
        tokio::time::advance(Duration::from_millis(700)).await;
        gate.done();
        assert_eq!(gate.due(), None);
    }
}
