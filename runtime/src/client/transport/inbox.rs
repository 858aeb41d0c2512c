//! Where a transport delivers what the server sends: answers go straight to the request that
//! waits for them, by id; notifications and a 2025-11-25 server's own requests go to the
//! client's event task in arrival order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};

use super::TransportError;
use super::watched::{Traffic, Watch};
use crate::jsonrpc::{ErrorObject, RequestId};

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
    /// An inbox and the receiving end of its events.
    pub(crate) fn new() -> (Inbox, mpsc::UnboundedReceiver<Event>) {
        let (events, receiver) = mpsc::unbounded_channel();
        let routes = Routes { waiting: Mutex::new(HashMap::default()), events };
        (Inbox { routes: Arc::new(routes), watch: None }, receiver)
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
    /// when it is not a JSON-RPC message.
    pub fn deliver(&self, bytes: &[u8]) -> Result<(), TransportError> {
        if let Some(watch) = &self.watch {
            watch(Traffic::Received(bytes));
        }
        let message: Message = serde_json::from_slice(bytes)
            .map_err(|e| TransportError::Malformed(format!("{e}: {}", TransportError::body_excerpt(bytes))))?;
        match (message.method, message.id) {
            (Some(method), Some(id)) => {
                let _ = self.routes.events.send(Event::Request { id, method, params: message.params });
            }
            (Some(method), None) => {
                let _ = self.routes.events.send(Event::Notification { method, params: message.params });
            }
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
