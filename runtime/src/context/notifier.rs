//! Where a request's notifications go.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use tokio::sync::mpsc;

/// Where a request's notifications go (progress, log messages, listen events): the
/// transport's stream for that request.
#[derive(Clone, Debug)]
pub struct Notifier {
    sink: Destination,
    // Closed when the request this stream belonged to was answered and its work went on (a
    // task): the client heard its answer, so nothing more is sent for that request.
    open: Option<Arc<AtomicBool>>,
}

#[derive(Clone, Debug)]
enum Destination {
    Channel(mpsc::Sender<Vec<u8>>),
    Deferred(Arc<Deferred>),
}

impl Notifier {
    /// Notifications are written to `sender`, one encoded JSON-RPC message each.
    pub fn new(sender: mpsc::Sender<Vec<u8>>) -> Self {
        Notifier { sink: Destination::Channel(sender), open: None }
    }

    /// A stream whose channel (of `capacity` messages) is made only when something is sent on
    /// it, and the end that reads it. Most requests notify nothing; they then cost one small
    /// allocation rather than a channel's.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn deferred(capacity: usize) -> (Notifier, Notes) {
        let deferred = Arc::new(Deferred { capacity, sender: OnceLock::new(), state: Mutex::default() });
        (Notifier { sink: Destination::Deferred(deferred.clone()), open: None }, Notes(deferred))
    }

    /// The same stream, and the switch that stops this copy (and its clones) sending.
    pub(crate) fn gated(&self) -> (Notifier, Arc<AtomicBool>) {
        let open = Arc::new(AtomicBool::new(true));
        (Notifier { sink: self.sink.clone(), open: Some(open.clone()) }, open)
    }

    fn is_open(&self) -> bool {
        self.open.as_ref().is_none_or(|open| open.load(Ordering::Relaxed))
    }

    fn sender(&self) -> &mpsc::Sender<Vec<u8>> {
        match &self.sink {
            Destination::Channel(sender) => sender,
            Destination::Deferred(deferred) => deferred.sender(),
        }
    }

    /// Sends now if there is room; progress and logs are dropped rather than delay the work.
    pub(crate) fn try_send(&self, message: Vec<u8>) -> bool {
        self.is_open() && self.sender().try_send(message).is_ok()
    }

    /// Whether the stream is gone.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_closed(&self) -> bool {
        let closed = match &self.sink {
            Destination::Channel(sender) => sender.is_closed(),
            Destination::Deferred(deferred) => deferred.is_closed(),
        };
        closed || !self.is_open()
    }

    /// Sends, waiting for room; `false` when the stream is gone.
    pub(crate) async fn send(&self, message: Vec<u8>) -> bool {
        self.is_open() && self.sender().send(message).await.is_ok()
    }
}

#[derive(Debug)]
struct Deferred {
    capacity: usize,
    sender: OnceLock<mpsc::Sender<Vec<u8>>>,
    state: Mutex<ReadingEnd>,
}

/// The reading end of a deferred stream, until [`Notes`] takes it, and whether `Notes` is gone.
#[derive(Debug, Default)]
struct ReadingEnd {
    receiver: Option<mpsc::Receiver<Vec<u8>>>,
    gone: bool,
}

impl Deferred {
    fn state(&self) -> std::sync::MutexGuard<'_, ReadingEnd> {
        // The state stays consistent whatever panicked while holding it: two plain fields.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn sender(&self) -> &mpsc::Sender<Vec<u8>> {
        self.sender.get_or_init(|| {
            let (sender, receiver) = mpsc::channel(self.capacity);
            let mut state = self.state();
            // Made after the reader left: dropping the receiver closes the channel, so
            // senders see the stream gone rather than fill it for no one.
            if !state.gone {
                state.receiver = Some(receiver);
            }
            sender
        })
    }

    fn is_closed(&self) -> bool {
        match self.sender.get() {
            Some(sender) => sender.is_closed(),
            None => self.state().gone,
        }
    }
}

/// The reading end of a [`Notifier::deferred`] stream. Dropping it without taking the
/// receiver closes the stream.
#[derive(Debug)]
pub(crate) struct Notes(Arc<Deferred>);

impl Notes {
    /// Whether nothing was ever sent (nor a send tried).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn untouched(&self) -> bool {
        self.0.sender.get().is_none()
    }

    /// The stream's receiver, its channel made now if nothing was sent yet.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn into_receiver(self) -> mpsc::Receiver<Vec<u8>> {
        self.0.sender();
        // Only this end takes it, once: it is there.
        self.0.state().receiver.take().unwrap_or_else(|| mpsc::channel(1).1)
    }
}

impl Drop for Notes {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.gone = true;
        state.receiver = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_deferred_stream_is_made_by_its_first_message_and_read_in_order() {
        let (notifier, notes) = Notifier::deferred(4);
        assert!(notes.untouched());
        assert!(notifier.try_send(b"one".to_vec()));
        assert!(notifier.send(b"two".to_vec()).await);
        assert!(!notes.untouched());
        let mut receiver = notes.into_receiver();
        assert!(!notifier.is_closed(), "the receiver is still read");
        assert_eq!(receiver.recv().await.as_deref(), Some(&b"one"[..]));
        assert_eq!(receiver.recv().await.as_deref(), Some(&b"two"[..]));
        drop(receiver);
        assert!(notifier.is_closed());
        assert!(!notifier.try_send(b"three".to_vec()));
    }

    #[tokio::test]
    async fn a_deferred_stream_whose_reader_left_refuses_what_comes_after() {
        let (notifier, notes) = Notifier::deferred(1);
        drop(notes);
        assert!(notifier.is_closed());
        assert!(!notifier.try_send(b"late".to_vec()));
        // Waiting for room would wait forever on a stream no one reads: it is refused instead.
        assert!(!notifier.send(b"late".to_vec()).await);
        assert!(!notifier.send(b"later".to_vec()).await);
    }

    #[tokio::test]
    async fn a_receiver_taken_before_any_message_gets_the_later_ones() {
        let (notifier, notes) = Notifier::deferred(2);
        let mut receiver = notes.into_receiver();
        let gated = notifier.gated().0;
        assert!(gated.send(b"after".to_vec()).await);
        assert_eq!(receiver.recv().await.as_deref(), Some(&b"after"[..]));
    }
}
