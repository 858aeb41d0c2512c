//! Reading a server-sent event stream into the inbox, within the client's limits, remembering
//! where it was (the last event id and the server's `retry:`, bounded), so that a 2025-11-25
//! stream that breaks can be resumed.

use std::time::Duration;

use super::event_stream::EventStreamDecoder;
use super::{Inbox, TransportError};
use crate::client::reading::next_chunk;
use crate::jsonrpc::RequestId;

/// Where a stream was when it ended, for resuming it.
#[derive(Clone, Debug, Default)]
pub(super) struct Position {
    /// The id of the last event received (`Last-Event-ID` on the resuming GET).
    pub(super) last_event_id: Option<String>,
    /// How long the server asked the client to wait before reconnecting (at most 30 s).
    pub(super) retry: Option<Duration>,
}

/// How a stream's reading ended.
#[derive(Debug)]
pub(super) enum Ended {
    /// The stream ended, or the request it was read for was answered.
    Done,
    /// It broke off (a resumable failure), for this reason.
    Broke(String),
    /// It cannot go on: an event over the limit, a silence too long.
    Failed(TransportError),
}

/// Delivers every event's data to `inbox` until the stream ends, or, with `until`, until that
/// request is answered (a resumed stream may stay open after it). No event may be larger
/// than the inbox takes; with `idle`, no silence longer than that.
pub(super) async fn read_events(
    mut response: reqwest::Response,
    inbox: &Inbox,
    position: &mut Position,
    until: Option<&RequestId>,
    idle: Option<Duration>,
) -> Ended {
    let mut decoder = EventStreamDecoder::new(inbox.max_message_size());
    let ended = loop {
        let chunk = match next_chunk(&mut response, idle).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break Ended::Done,
            Err(error @ TransportError::TimedOut { .. }) => break Ended::Failed(error),
            Err(error) => break Ended::Broke(error.to_string()),
        };
        let mut answered = false;
        let fed = decoder.feed(chunk.as_ref(), &mut |event| {
            // An event without data (a priming event, a keep-alive) carries no message, and
            // one of another type than `message` none of this protocol's.
            if event.data.trim_ascii().is_empty() || event.event.as_deref().is_some_and(|kind| kind != "message") {
                return;
            }
            if let Err(error) = inbox.deliver(&event.data) {
                tracing::warn!(%error, "an event of the server's stream is not JSON-RPC");
            }
            answered = answered || until.is_some_and(|id| !inbox.awaits(id));
        });
        if let Err(limit) = fed {
            break Ended::Failed(TransportError::OverLimit(limit));
        }
        if answered {
            break Ended::Done;
        }
    };
    if let Some(id) = decoder.last_event_id() {
        position.last_event_id = Some(id.to_owned());
    }
    if let Some(retry) = decoder.retry() {
        position.retry = Some(retry);
    }
    ended
}
