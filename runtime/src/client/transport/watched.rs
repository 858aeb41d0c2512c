//! A transport whose traffic someone watches: every message as it leaves and as it arrives,
//! for a client that shows what it exchanges (a command's `--verbose`).

use std::sync::Arc;

use super::{ClientTransport, Inbox, Outbound, TransportError};
use crate::client::message::Protocol;
use crate::future::BoxFuture;
use crate::jsonrpc::RequestId;

/// One message on the wire, as [`ClientBuilder::on_traffic`](crate::client::ClientBuilder::on_traffic)
/// sees it: the JSON-RPC text exactly as sent or received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Traffic<'a> {
    /// A message the client sent.
    Sent(&'a [u8]),
    /// A message the server sent (an HTTP error status's JSON-RPC body included).
    Received(&'a [u8]),
}

/// Who watches.
pub(crate) type Watch = Arc<dyn Fn(Traffic<'_>) + Send + Sync>;

/// `inner`, with every message shown to `watch` first.
pub(crate) struct Watched {
    pub(crate) inner: Arc<dyn ClientTransport>,
    pub(crate) watch: Watch,
}

impl ClientTransport for Watched {
    fn open(&self, inbox: Inbox) -> BoxFuture<'_, Result<(), TransportError>> {
        self.inner.open(inbox.watched(self.watch.clone()))
    }

    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), TransportError>> {
        (self.watch)(Traffic::Sent(&message.body));
        self.inner.send(message)
    }

    fn abandon(&self, id: &RequestId) -> bool {
        self.inner.abandon(id)
    }

    fn settled(&self, protocol: &Protocol) -> BoxFuture<'_, ()> {
        self.inner.settled(protocol)
    }

    fn credential(&self) -> Option<u64> {
        self.inner.credential()
    }

    fn has_headers(&self) -> bool {
        self.inner.has_headers()
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        self.inner.close()
    }
}
