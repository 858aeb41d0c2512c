//! Reading a server-sent event stream into the inbox, remembering where it was (the last event
//! id and the server's `retry:`), so that a 2025-11-25 stream that breaks can be resumed.

use std::time::Duration;

use futures_util::StreamExt;
use sse_stream::SseStream;

use super::Inbox;
use crate::jsonrpc::RequestId;

/// Where a stream was when it ended, for resuming it.
#[derive(Clone, Debug, Default)]
pub(super) struct Position {
    /// The id of the last event received (`Last-Event-ID` on the resuming GET).
    pub(super) last_event_id: Option<String>,
    /// How long the server asked the client to wait before reconnecting.
    pub(super) retry: Option<Duration>,
}

/// Delivers every event's data to `inbox` until the stream ends, or, with `until`, until that
/// request is answered (a resumed stream may stay open after it); `Err` when it broke rather
/// than ended.
pub(super) async fn read_events(
    body: reqwest::Body,
    inbox: &Inbox,
    position: &mut Position,
    until: Option<&RequestId>,
) -> Result<(), String> {
    let mut events = SseStream::new(body);
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| e.to_string())?;
        if let Some(id) = event.id {
            position.last_event_id = Some(id);
        }
        if let Some(retry) = event.retry {
            position.retry = Some(Duration::from_millis(retry));
        }
        // An event without data (a priming event, a keep-alive) carries no message.
        let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else { continue };
        if event.event.as_deref().is_some_and(|kind| kind != "message") {
            continue;
        }
        if let Err(error) = inbox.deliver(data.as_bytes()) {
            tracing::warn!(%error, "an event of the server's stream is not JSON-RPC");
        }
        if until.is_some_and(|id| !inbox.awaits(id)) {
            return Ok(());
        }
    }
    Ok(())
}
