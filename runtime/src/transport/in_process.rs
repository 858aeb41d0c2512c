//! A [`Server`] in the same process as its client: the server side of the client's
//! transport trait. Each message goes to the connection layer as a line of stdio would, with
//! the same checks, and what the server answers goes straight to the client's inbox: no bytes
//! framed, no pipe, no thread.

use std::sync::Arc;

use tokio::sync::{Mutex, mpsc};

use super::framing::Frame;
use super::stdio::{Lines, OUTBOX_CAPACITY, Stdio};
use crate::client::{ClientTransport, Inbox, Outbound, TransportError};
use crate::context::Principal;
use crate::future::BoxFuture;
use crate::server::Server;
use crate::telemetry::Transport;

/// The client transport that calls a [`Server`] in the same process.
///
/// ```
/// use mcp_rounds::client::Client;
/// use mcp_rounds::transport::in_process::InProcess;
/// use mcp_rounds::{Principal, Server};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcp_rounds::client::ClientError> {
/// let server = Server::builder("empty", "1.0.0").build().unwrap();
/// let client = Client::builder().connect(InProcess::new(&server).principal(Principal::new("ada"))).await?;
/// assert_eq!(client.server_info().map(|info| info.name.as_str()), Some("empty"));
/// # Ok(()) }
/// ```
pub struct InProcess {
    server: Server,
    stdio: Stdio,
    lines: Mutex<Option<Arc<Lines>>>,
}

impl InProcess {
    /// Calls `server` as the anonymous principal.
    pub fn new(server: &Server) -> Self {
        InProcess { server: server.clone(), stdio: Stdio::new(), lines: Mutex::new(None) }
    }

    /// Calls as `principal` (what a transport would have authenticated).
    pub fn principal(mut self, principal: Principal) -> Self {
        self.stdio = self.stdio.principal(principal);
        self
    }
}

impl std::fmt::Debug for InProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcess").field("server", &self.server).finish_non_exhaustive()
    }
}

impl ClientTransport for InProcess {
    fn open(&self, inbox: Inbox) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let (outbox, mut outgoing) = mpsc::channel::<Vec<u8>>(OUTBOX_CAPACITY);
            let lines = Arc::new(Lines::carried_by(&self.stdio, &self.server, outbox, Transport::InProcess));
            if let Some(old) = self.lines.lock().await.replace(lines) {
                old.finish().await;
            }
            tokio::spawn(async move {
                while let Some(message) = outgoing.recv().await {
                    if let Err(error) = inbox.deliver(&message) {
                        tracing::warn!(%error, "the server wrote something that is not JSON-RPC");
                    }
                }
                inbox.closed(TransportError::Closed("the in-process connection ended".into()));
            });
            Ok(())
        })
    }

    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let lines = self.lines.lock().await.clone();
            let lines = lines.ok_or_else(|| TransportError::Closed("the in-process connection is closed".into()))?;
            lines.frame(Frame::Message(message.body)).await;
            Ok(())
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(lines) = self.lines.lock().await.take() {
                lines.finish().await;
            }
        })
    }
}
