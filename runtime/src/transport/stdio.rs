//! The stdio transport: one JSON-RPC message per line on stdin and stdout.
//!
//! Requests run concurrently and are answered as they complete. stdout carries nothing but
//! JSON-RPC; logs belong on stderr. At end of input, requests in flight finish, then
//! [`Stdio::serve`] returns.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::framing::{DEFAULT_MAX_MESSAGE_BYTES, Frame, LineReader};
use crate::context::{Notifier, Principal};
use crate::error::Error;
use crate::jsonrpc::{self, Incoming, RequestId};
use crate::model::notifications::CANCELLED;
use crate::server::{Call, Server};

/// Responses waiting for stdout; senders wait when the client stops reading.
const OUTBOX_CAPACITY: usize = 256;

/// Serves a [`Server`] over stdin and stdout (or any pair of byte streams).
///
/// ```no_run
/// use mcp_rounds::{Principal, Server};
/// use mcp_rounds::transport::stdio::Stdio;
///
/// # async fn run(server: Server) -> std::io::Result<()> {
/// Stdio::new().principal(Principal::new("demo")).serve(&server).await
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Stdio {
    principal: Principal,
    max_message_bytes: usize,
}

impl Default for Stdio {
    fn default() -> Self {
        Stdio { principal: Principal::anonymous(), max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES }
    }
}

#[derive(Deserialize)]
struct CancelParams {
    #[serde(rename = "requestId")]
    request_id: RequestId,
}

type InFlight = Arc<Mutex<HashMap<RequestId, CancellationToken>>>;

impl Stdio {
    /// Anonymous principal, 4 MiB message limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// The principal every request on this stream runs as. There is no authentication on a
    /// pipe: whoever started the process is the caller.
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principal = principal;
        self
    }

    /// The largest message accepted, in bytes (default 4 MiB). Longer lines are refused with
    /// -32600 without being held in memory.
    pub fn max_message_bytes(mut self, limit: usize) -> Self {
        self.max_message_bytes = limit;
        self
    }

    /// Serves on this process's stdin and stdout until stdin closes.
    pub async fn serve(&self, server: &Server) -> io::Result<()> {
        self.serve_streams(server, tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves on any byte streams with the same framing (a socket, a pipe, a test buffer).
    pub async fn serve_streams<R, W>(&self, server: &Server, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outbox, outgoing) = mpsc::channel::<Vec<u8>>(OUTBOX_CAPACITY);
        let writer = tokio::spawn(write_lines(writer, outgoing));
        let in_flight: InFlight = Arc::default();
        let tasks = TaskTracker::new();
        // Ends listen streams (with a result) at end of input, so that shutdown can finish.
        let shutdown = CancellationToken::new();
        let mut frames = LineReader::new(BufReader::new(reader), self.max_message_bytes);

        let read_result = loop {
            let frame = match frames.next_frame().await {
                Ok(Some(frame)) => frame,
                Ok(None) => break Ok(()),
                Err(err) => break Err(err),
            };
            let bytes = match frame {
                Frame::Message(bytes) => bytes,
                Frame::TooLarge { id } => {
                    tracing::warn!(limit = self.max_message_bytes, "message over the size limit refused");
                    let error = Error::invalid_request(format!(
                        "Message too large: the limit is {} bytes",
                        self.max_message_bytes
                    ))
                    .with_data(serde_json::json!({ "maxMessageBytes": self.max_message_bytes }));
                    send(&outbox, jsonrpc::encode_error(id.as_ref(), &error)).await;
                    continue;
                }
            };
            match jsonrpc::decode(&bytes) {
                Incoming::Request(request) => {
                    let id = request.id.clone();
                    let token = CancellationToken::new();
                    let fresh = match in_flight.lock().expect("in-flight map lock").entry(id.clone()) {
                        Entry::Occupied(_) => false,
                        Entry::Vacant(slot) => {
                            slot.insert(token.clone());
                            true
                        }
                    };
                    if !fresh {
                        let error = Error::invalid_request("Request id is already in use by a request in flight");
                        send(&outbox, jsonrpc::encode_error(Some(&id), &error)).await;
                        continue;
                    }
                    let call = Call {
                        cancellation: token.clone(),
                        notifier: Some(Notifier::new(outbox.clone())),
                        shutdown: shutdown.clone(),
                        ..Call::new(request, self.principal.clone())
                    };
                    let response = server.handle_call(call);
                    let outbox = outbox.clone();
                    let in_flight = in_flight.clone();
                    tasks.spawn(async move {
                        let response = tokio::select! {
                            biased;
                            () = token.cancelled() => None,
                            response = response => Some(response),
                        };
                        in_flight.lock().expect("in-flight map lock").remove(&id);
                        match response {
                            Some(response) => send(&outbox, response.bytes).await,
                            None => tracing::debug!(%id, "request cancelled; no response sent"),
                        }
                    });
                }
                Incoming::Notification(notification) if &*notification.method == CANCELLED => {
                    let params = notification.params.as_deref().map_or("null", |p| p.get());
                    match serde_json::from_str::<CancelParams>(params) {
                        Ok(p) => {
                            if let Some(token) = in_flight.lock().expect("in-flight map lock").get(&p.request_id) {
                                token.cancel();
                            }
                        }
                        Err(_) => tracing::debug!("notifications/cancelled without a usable requestId ignored"),
                    }
                }
                Incoming::Notification(notification) => {
                    tracing::debug!(method = %notification.method, "notification ignored");
                }
                Incoming::Response => tracing::debug!("response from the client ignored"),
                Incoming::Invalid { id, error } => {
                    send(&outbox, jsonrpc::encode_error(id.as_ref(), &error)).await;
                }
            }
        };

        shutdown.cancel();
        tasks.close();
        tasks.wait().await;
        drop(outbox);
        let written = writer.await.map_err(io::Error::other)?;
        read_result.and(written)
    }
}

async fn send(outbox: &mpsc::Sender<Vec<u8>>, bytes: Vec<u8>) {
    // Fails only when the writer stopped (stdout closed); there is no one left to tell.
    let _ = outbox.send(bytes).await;
}

async fn write_lines<W: AsyncWrite + Unpin>(writer: W, mut outgoing: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut writer = BufWriter::new(writer);
    // One message per line: the framing adds the newline, so nothing else needs to.
    while let Some(message) = outgoing.recv().await {
        writer.write_all(&message).await?;
        writer.write_all(b"\n").await?;
        // Flush once per burst rather than once per message.
        while let Ok(message) = outgoing.try_recv() {
            writer.write_all(&message).await?;
            writer.write_all(b"\n").await?;
        }
        writer.flush().await?;
    }
    writer.flush().await?;
    writer.into_inner().shutdown().await
}
