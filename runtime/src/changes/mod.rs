//! Announcing changes: what `subscriptions/listen` streams deliver.
//!
//! Anything that changes what a client would see (a tool that creates a note, a file watcher,
//! another instance) announces it through [`Changes`]; every open listen stream that asked for
//! that kind of event receives it. Delivery never blocks the announcer: each listener reads
//! from a bounded buffer, and a listener that falls more than [`LISTENER_BUFFER`] events behind
//! is ended gracefully (a complete result), so its client listens again and re-reads, rather
//! than the server holding events for it without bound or silently dropping some.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::broadcast;

#[cfg(feature = "postgres")]
mod keys;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "postgres")]
pub use keys::{MIN_RELAY_KEY_BYTES, RelayKey, RelayKeyError, RelayKeys};
#[cfg(feature = "postgres")]
pub use postgres::{DEFAULT_INCOMING_LIMIT, PostgresFanOut, PostgresFanOutBuilder, RESYNC_INTERVAL, RelayStats};

/// Events a listener may fall behind by before its stream is ended.
pub const LISTENER_BUFFER: usize = 1024;

/// One change.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChangeEvent {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// A resource's contents changed (its normalized URI).
    ResourceUpdated(Arc<str>),
    /// A task's status changed (its id); listeners that asked for it read it again.
    TaskUpdated(Arc<str>),
}

/// Announces changes to listeners. Cheap to clone; also a request extractor, so a tool can
/// announce what it changed.
///
/// ```
/// use mcp_rounds::changes::Changes;
/// use mcp_rounds::{Server, handlers, tool};
///
/// /// Adds a note.
/// #[tool]
/// fn add_note(title: String, changes: Changes) -> String {
///     // ... store the note ...
///     changes.resources_list_changed();
///     format!("added {title}")
/// }
///
/// let server = Server::builder("notes", "1.0.0").handlers(handlers![add_note]).build().unwrap();
/// server.changes().resource_updated("notes://1");
/// ```
#[derive(Clone, Debug)]
pub struct Changes {
    sender: broadcast::Sender<Signal>,
    /// Receivers that are not listen streams (fan-out to other instances).
    relays: Arc<AtomicUsize>,
}

/// What travels to listeners.
#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) enum Signal {
    /// A change, and whether it happened here (then it is also relayed to other instances).
    Event(ChangeEvent, AnnouncedFrom),
    /// Events may have been missed (a relay lost its connection): listeners end gracefully, so
    /// that their clients listen again and re-read.
    Resync,
}

/// Where a change was first announced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AnnouncedFrom {
    Here,
    Elsewhere,
}

impl Default for Changes {
    fn default() -> Self {
        Changes { sender: broadcast::channel(LISTENER_BUFFER).0, relays: Arc::default() }
    }
}

impl Changes {
    /// Tells listeners the tool list changed.
    pub fn tools_list_changed(&self) {
        self.announce(ChangeEvent::ToolsListChanged);
    }

    /// Tells listeners the prompt list changed.
    pub fn prompts_list_changed(&self) {
        self.announce(ChangeEvent::PromptsListChanged);
    }

    /// Tells listeners the resource list changed.
    pub fn resources_list_changed(&self) {
        self.announce(ChangeEvent::ResourcesListChanged);
    }

    /// Tells listeners subscribed to `uri` that it changed (they read it again).
    pub fn resource_updated(&self, uri: &str) {
        let normalized = crate::uri::normalize(uri).unwrap_or_else(|| uri.to_owned());
        self.announce(ChangeEvent::ResourceUpdated(normalized.into()));
    }

    /// Announces an event.
    pub fn announce(&self, event: ChangeEvent) {
        // No listener is not an error: nobody wanted to know.
        let _ = self.sender.send(Signal::Event(event, AnnouncedFrom::Here));
    }

    /// Announces an event another instance announced (it is not relayed back).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn announce_from_elsewhere(&self, event: ChangeEvent) {
        let _ = self.sender.send(Signal::Event(event, AnnouncedFrom::Elsewhere));
    }

    /// Ends every listen stream gracefully: events may have been missed.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn resync(&self) {
        let _ = self.sender.send(Signal::Resync);
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Signal> {
        self.sender.subscribe()
    }

    /// A receiver for a relay, not counted among listeners.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn relay(&self) -> Relay {
        self.relays.fetch_add(1, Ordering::Relaxed);
        Relay { receiver: self.sender.subscribe(), relays: self.relays.clone() }
    }

    /// How many listen streams are open.
    pub fn listeners(&self) -> usize {
        self.sender.receiver_count().saturating_sub(self.relays.load(Ordering::Relaxed))
    }
}

/// A relay's view of the changes; uncounted while it lives.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) struct Relay {
    pub(crate) receiver: broadcast::Receiver<Signal>,
    relays: Arc<AtomicUsize>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.relays.fetch_sub(1, Ordering::Relaxed);
    }
}
