//! Where a request's notifications go.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where a request's notifications go (progress, log messages, listen events): the
/// transport's stream for that request.
#[derive(Clone, Debug)]
pub struct Notifier {
    sender: tokio::sync::mpsc::Sender<Vec<u8>>,
    // Closed when the request this stream belonged to was answered and its work went on (a
    // task): the client heard its answer, so nothing more is sent for that request.
    open: Option<Arc<AtomicBool>>,
}

impl Notifier {
    /// Notifications are written to `sender`, one encoded JSON-RPC message each.
    pub fn new(sender: tokio::sync::mpsc::Sender<Vec<u8>>) -> Self {
        Notifier { sender, open: None }
    }

    /// The same stream, and the switch that stops this copy (and its clones) sending.
    pub(crate) fn gated(&self) -> (Notifier, Arc<AtomicBool>) {
        let open = Arc::new(AtomicBool::new(true));
        (Notifier { sender: self.sender.clone(), open: Some(open.clone()) }, open)
    }

    fn is_open(&self) -> bool {
        self.open.as_ref().is_none_or(|open| open.load(Ordering::Relaxed))
    }

    /// Sends now if there is room; progress and logs are dropped rather than delay the work.
    pub(crate) fn try_send(&self, message: Vec<u8>) -> bool {
        self.is_open() && self.sender.try_send(message).is_ok()
    }

    /// Whether the stream is gone.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_closed(&self) -> bool {
        self.sender.is_closed() || !self.is_open()
    }

    /// Sends, waiting for room; `false` when the stream is gone.
    pub(crate) async fn send(&self, message: Vec<u8>) -> bool {
        self.is_open() && self.sender.send(message).await.is_ok()
    }
}
