//! Where a transport delivers what the server sends: answers go straight to the request that
//! waits for them, by id; notifications and a 2025-11-25 server's own requests go to the
//! client's event task in arrival order, a bounded number at a time.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot, watch};

use super::TransportError;
use super::watched::{Traffic, Watch};
use crate::client::limits::Limit;
use crate::jsonrpc::{ErrorObject, RequestId};

/// Notifications and server requests waiting for the event task at most: a server that sends
/// them faster than the client handles them loses the excess (each dropped one logged).
const MAX_QUEUED_EVENTS: usize = 4096;

/// What a request gets back: its result, its JSON-RPC error, or why no answer came.
pub(crate) type Delivery = Result<Result<Box<RawValue>, ErrorObject>, TransportError>;

/// Where a transport delivers the server's messages. Cheap to clone.
#[derive(Clone)]
pub struct Inbox {
    routes: Arc<Routes>,
    /// Who sees each message first, if anyone watches.
    watch: Option<Watch>,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox").field("routes", &self.routes).field("watched", &self.watch.is_some()).finish()
    }
}

#[derive(Debug)]
struct Routes {
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Delivery>, foldhash::fast::RandomState>>,
    events: mpsc::UnboundedSender<Event>,
    /// Events sent and not yet received: bounds the channel, whose end-of-connection event
    /// must never be refused.
    queued: Arc<AtomicUsize>,
    /// Events sent so far, and how many the event task has handled: an answer is handed over
    /// only once what came before it was (a log line, a progress, before the result).
    sent: AtomicU64,
    handled: watch::Receiver<u64>,
    /// Whether an event task handles the events yet (not while the protocol is settled).
    consuming: Arc<AtomicBool>,
    max_message_size: usize,
}

/// The receiving end of an inbox's events.
#[derive(Debug)]
pub(crate) struct EventQueue {
    receiver: mpsc::UnboundedReceiver<Event>,
    queued: Arc<AtomicUsize>,
    received: u64,
    handled: watch::Sender<u64>,
    consuming: Arc<AtomicBool>,
}

impl EventQueue {
    /// The next event, once there is one; `None` when every inbox is gone.
    pub(crate) async fn recv(&mut self) -> Option<Event> {
        let event = self.receiver.recv().await;
        if matches!(event, Some(Event::Notification { .. } | Event::Request { .. })) {
            self.queued.fetch_sub(1, Ordering::Relaxed);
            self.received += 1;
        }
        event
    }

    /// The event task takes the events from now on.
    pub(crate) fn consume(&self) {
        self.consuming.store(true, Ordering::Release);
    }

    /// The event received last is handled.
    pub(crate) fn handled(&self) {
        self.handled.send_replace(self.received);
    }
}

impl Drop for EventQueue {
    fn drop(&mut self) {
        // Nobody handles the events any more: nobody waits for them either.
        self.consuming.store(false, Ordering::Release);
    }
}

/// Something the server sent that is not an answer.
#[derive(Debug)]
pub(crate) enum Event {
    /// A notification: its method and params.
    Notification { method: String, params: Option<Box<RawValue>> },
    /// A request of a 2025-11-25 server (elicitation, sampling, roots, ping).
    Request { id: RequestId, method: String, params: Option<Box<RawValue>> },
    /// The connection ended.
    Closed(TransportError),
}

/// Any JSON-RPC message, read once.
#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Box<RawValue>>,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

impl Inbox {
    /// An inbox that takes messages of up to `max_message_size` bytes, and the receiving end
    /// of its events.
    pub(crate) fn new(max_message_size: usize) -> (Inbox, EventQueue) {
        let (events, receiver) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let consuming = Arc::new(AtomicBool::new(false));
        let (handled, handled_receiver) = watch::channel(0);
        let routes = Routes {
            waiting: Mutex::new(HashMap::default()),
            events,
            queued: queued.clone(),
            sent: AtomicU64::new(0),
            handled: handled_receiver,
            consuming: consuming.clone(),
            max_message_size,
        };
        let queue = EventQueue { receiver, queued, received: 0, handled, consuming };
        (Inbox { routes: Arc::new(routes), watch: None }, queue)
    }

    /// Waits until the event task has handled every event sent so far (when there is one).
    pub(crate) async fn caught_up(&self) {
        let sent = self.routes.sent.load(Ordering::Acquire);
        let mut handled = self.routes.handled.clone();
        while self.routes.consuming.load(Ordering::Acquire) && *handled.borrow_and_update() < sent {
            if handled.changed().await.is_err() {
                return;
            }
        }
    }

    /// The largest message the client takes, in bytes: a transport reads no further than
    /// this into one message (an answer's body, an event, a line) and fails it with
    /// [`TransportError::OverLimit`] instead; [`Inbox::deliver`] refuses anything larger.
    pub fn max_message_size(&self) -> usize {
        self.routes.max_message_size
    }

    /// The error for a message over [`Inbox::max_message_size`].
    pub fn too_large(&self) -> TransportError {
        TransportError::OverLimit(Limit::MessageSize(self.routes.max_message_size))
    }

    /// The same inbox, every message shown to `watch` before it is delivered.
    pub(crate) fn watched(self, watch: Watch) -> Inbox {
        Inbox { watch: Some(watch), ..self }
    }

    /// Waits for the answer to `id`, which is about to be sent.
    pub(crate) fn expect(&self, id: RequestId) -> oneshot::Receiver<Delivery> {
        let (sender, receiver) = oneshot::channel();
        self.waiting().insert(id, sender);
        receiver
    }

    /// Stops waiting for `id`; whether it was still awaited.
    pub(crate) fn forget(&self, id: &RequestId) -> bool {
        self.waiting().remove(id).is_some()
    }

    fn waiting(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<Delivery>, foldhash::fast::RandomState>> {
        self.routes.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One message from the server, as it arrived. Returns an error, and delivers nothing,
    /// when it is not a JSON-RPC message or is larger than [`Inbox::max_message_size`].
    pub fn deliver(&self, bytes: &[u8]) -> Result<(), TransportError> {
        if bytes.len() > self.routes.max_message_size {
            return Err(self.too_large());
        }
        if let Some(watch) = &self.watch {
            watch(Traffic::Received(bytes));
        }
        // A message is a JSON object of UTF-8 text, whatever members the reading skips (a
        // derived reader takes an array too, and skips over bad bytes it does not keep).
        let text = std::str::from_utf8(bytes).map_err(|e| TransportError::Malformed(format!("not UTF-8 text: {e}")))?;
        if !text.trim_start().starts_with('{') {
            let problem = format!("not a JSON object: {}", TransportError::body_excerpt(bytes));
            return Err(TransportError::Malformed(problem));
        }
        let message: Message = serde_json::from_str(text)
            .map_err(|e| TransportError::Malformed(format!("{e}: {}", TransportError::body_excerpt(bytes))))?;
        match (message.method, message.id) {
            (Some(method), Some(id)) => self.queue(Event::Request { id, method, params: message.params }),
            (Some(method), None) => self.queue(Event::Notification { method, params: message.params }),
            (None, Some(id)) => {
                let answer = match (message.result, message.error) {
                    (Some(result), None) => Ok(result),
                    (None, Some(error)) => Err(error),
                    _ => {
                        let problem = "a response needs exactly one of `result` and `error`";
                        return self.failed(&id, TransportError::Malformed(problem.into()));
                    }
                };
                self.answer(&id, Ok(answer));
            }
            (None, None) => {
                // An error without an id answers nothing the client can name.
                let detail = message.error.map(|e| format!(" ({}: {})", e.code, e.message)).unwrap_or_default();
                return Err(TransportError::Malformed(format!("a message with neither a method nor an id{detail}")));
            }
        }
        Ok(())
    }

    /// Hands a notification or a server's request to the event task, unless too many wait.
    fn queue(&self, event: Event) {
        let queued = self.routes.queued.fetch_add(1, Ordering::Relaxed);
        if queued >= MAX_QUEUED_EVENTS {
            self.routes.queued.fetch_sub(1, Ordering::Relaxed);
            let method = match &event {
                Event::Notification { method, .. } | Event::Request { method, .. } => method.as_str(),
                Event::Closed(_) => "",
            };
            tracing::warn!(method, "the server sends faster than the client handles: a message dropped");
            return;
        }
        if self.routes.events.send(event).is_err() {
            self.routes.queued.fetch_sub(1, Ordering::Relaxed);
        } else {
            self.routes.sent.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// The answer to `id` is this JSON-RPC error, whatever id the message itself carried (an
    /// HTTP error body may carry none).
    pub fn reject(&self, id: &RequestId, error: ErrorObject) {
        if let Some(watch) = &self.watch {
            let message = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": &error});
            watch(Traffic::Received(message.to_string().as_bytes()));
        }
        self.answer(id, Ok(Err(error)));
    }

    /// The exchange for `id` ended without an answer. Returns `Ok` so that a transport can
    /// return it from where it found out.
    pub fn failed(&self, id: &RequestId, error: TransportError) -> Result<(), TransportError> {
        self.answer(id, Err(error));
        Ok(())
    }

    /// The connection ended: every request still waiting fails with `error`.
    pub fn closed(&self, error: TransportError) {
        let waiting: Vec<_> = self.waiting().drain().collect();
        for (_, sender) in waiting {
            let _ = sender.send(Err(error.clone()));
        }
        let _ = self.routes.events.send(Event::Closed(error));
    }

    /// Whether the client still waits for `id` (a transport may stop reading when not).
    pub fn awaits(&self, id: &RequestId) -> bool {
        self.waiting().contains_key(id)
    }

    fn answer(&self, id: &RequestId, answer: Delivery) {
        let sender = self.waiting().remove(id);
        match sender {
            Some(sender) => {
                let _ = sender.send(answer);
            }
            None => tracing::debug!(%id, "an answer to no request awaited: dropped"),
        }
    }
}
