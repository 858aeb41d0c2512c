//! The client's connection: ids, sending through the transport, waiting for the answer by id,
//! and cancelling a request whose caller stopped waiting.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde_json::value::RawValue;

use super::error::ClientError;
use super::limits::Limits;
use super::transport::{ClientTransport, Outbound, OutboundKind, TransportError};
use super::transport::{EventQueue, Inbox};
use crate::jsonrpc::{self, RequestId};
use crate::method::Method;
use crate::model::CancelledNotificationParams;

/// One server's transport and the requests awaiting its answers.
pub(crate) struct Link {
    pub(crate) transport: Arc<dyn ClientTransport>,
    pub(crate) inbox: Inbox,
    pub(crate) limits: Limits,
    next_id: AtomicI64,
}

/// A request on its way: what [`Link::request`] sends.
pub(crate) struct Sending {
    /// The method, for errors.
    pub(crate) method: Cow<'static, str>,
    /// The message, built for the id [`Link::next_id`] gave.
    pub(crate) outbound: Outbound,
    /// How long to wait for the answer.
    pub(crate) timeout: Option<Duration>,
    /// Whether a cancel must be sent even when the transport closed the exchange (a
    /// 2025-11-25 session reads only `notifications/cancelled`).
    pub(crate) always_notify: bool,
    /// Whether the answer may stay silent for as long as it likes (a listen stream): the
    /// idle timeout does not apply to it.
    pub(crate) open_ended: bool,
}

impl Link {
    /// Opens `transport`; its events arrive on the receiver.
    pub(crate) async fn open(
        transport: Arc<dyn ClientTransport>,
        limits: Limits,
    ) -> Result<(Link, EventQueue), TransportError> {
        let (inbox, events) = Inbox::new(limits.max_message_size);
        transport.open(inbox.clone()).await?;
        Ok((Link { transport, inbox, limits, next_id: AtomicI64::new(1) }, events))
    }

    /// Starts over: the transport is closed and opened again, with a new inbox (whatever the
    /// old connection still says goes nowhere).
    pub(crate) async fn reopen(&mut self) -> Result<EventQueue, TransportError> {
        self.transport.close().await;
        let (inbox, events) = Inbox::new(self.limits.max_message_size);
        self.transport.open(inbox.clone()).await?;
        self.inbox = inbox;
        Ok(events)
    }

    /// A fresh request id.
    pub(crate) fn next_id(&self) -> RequestId {
        RequestId::number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Sends a request and waits for its answer: the raw result, or the error that says why
    /// there is none. Dropping the future cancels the request.
    pub(crate) async fn request(&self, id: RequestId, sending: Sending) -> Result<Box<RawValue>, ClientError> {
        let Sending { method, mut outbound, timeout, always_notify, open_ended } = sending;
        if !open_ended {
            outbound.idle_timeout = self.limits.idle_timeout;
        }
        let answer = self.inbox.expect(id.clone());
        let mut waiting = Waiting { link: self, id, done: false, always_notify };
        if let Err(error) = self.transport.send(outbound).await {
            waiting.done = true;
            self.inbox.forget(&waiting.id);
            return Err(ClientError::from_transport(method, error));
        }
        let answer = match timeout {
            None => answer.await,
            Some(after) => match tokio::time::timeout(after, answer).await {
                Ok(answer) => answer,
                // Dropping `waiting` cancels the request.
                Err(_) => return Err(ClientError::Timeout { method, after }),
            },
        };
        waiting.done = true;
        // What the server sent before its answer (a log line, a progress) is handled before
        // the caller sees the answer, not after.
        if answer.is_ok() {
            self.inbox.caught_up().await;
        }
        match answer {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(error))) => Err(ClientError::Protocol { method, error: Box::new(error) }),
            Ok(Err(TransportError::Rejected { error, .. })) => Err(ClientError::Protocol { method, error }),
            Ok(Err(error)) => Err(ClientError::from_transport(method, error)),
            Err(_) => Err(ClientError::transport(method, TransportError::Closed("the client was closed".into()))),
        }
    }
}

/// Cancels the request if it is dropped before its answer came.
struct Waiting<'a> {
    link: &'a Link,
    id: RequestId,
    done: bool,
    always_notify: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.done || !self.link.inbox.forget(&self.id) {
            return;
        }
        let closed = self.link.transport.abandon(&self.id);
        if closed && !self.always_notify {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let params = CancelledNotificationParams {
            request_id: self.id.clone(),
            reason: Some("the client stopped waiting".to_owned()),
            meta: Default::default(),
        };
        let body = jsonrpc::encode_notification(Method::NotificationsCancelled, &params);
        let transport = self.link.transport.clone();
        runtime.spawn(async move {
            let _ = transport.send(Outbound::new(body, OutboundKind::Notification)).await;
        });
    }
}
