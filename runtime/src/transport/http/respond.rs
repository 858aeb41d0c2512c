//! Framing an answer for HTTP: `application/json` when a request finishes with nothing to
//! stream first, a `text/event-stream` of its notifications and then its answer otherwise,
//! with the status its outcome maps to.

use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use tokio::sync::{mpsc, oneshot};

use crate::connection::{Answered, Running, Status};
use crate::context::Notes;
use crate::error::Error;
use crate::future::BoxFuture;
use crate::jsonrpc;

/// On a `403` answer: the scopes the request needs, space-separated.
#[derive(Clone, Debug)]
pub(super) struct NeedsScope(pub(super) Box<str>);

/// The header that carries a legacy session's id.
pub(super) const SESSION_ID: &str = "mcp-session-id";

/// HTTP's status for what the connection says an answer means.
pub(super) fn status_code(status: Status) -> StatusCode {
    match status {
        Status::Ok => StatusCode::OK,
        Status::Invalid => StatusCode::BAD_REQUEST,
        Status::NotFound => StatusCode::NOT_FOUND,
        Status::NotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        Status::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        Status::Conflict => StatusCode::CONFLICT,
        Status::Forbidden => StatusCode::FORBIDDEN,
        Status::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
        Status::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Status::Failed => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

pub(super) fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

pub(super) fn error_response(status: StatusCode, id: Option<&crate::RequestId>, error: &Error) -> Response {
    json_response(status, jsonrpc::encode_error(id, error))
}

fn answered_response(answered: Answered) -> Response {
    let status = status_code(answered.status);
    let mut response = json_response(status, answered.encoded.bytes);
    if let (StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE, Some(after)) =
        (status, answered.encoded.retry_after)
    {
        // Whole seconds, rounded up: a client waiting that long is not refused again.
        let seconds = after.as_secs() + u64::from(after.subsec_nanos() > 0);
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    }
    if let (StatusCode::FORBIDDEN, Some(scope)) = (status, answered.encoded.scope) {
        // The endpoint, which knows its protected resource, turns this into its challenge.
        response.extensions_mut().insert(NeedsScope(scope));
    }
    if let Some(id) = answered.opened
        && let Ok(value) = HeaderValue::from_str(&id)
    {
        response.headers_mut().insert(SESSION_ID, value);
    }
    response
}

/// Runs the request and answers: with JSON when it finishes without anything to stream
/// first, else with an event stream of its notifications and then its answer. Closing the
/// stream cancels the request.
///
/// Most requests need no waiting: those are answered right here, with no task or future of
/// their own (`Ok`). Otherwise the request runs on a task of its own, and the response is
/// what the returned future makes of it.
pub(super) fn answer(
    running: Running,
    notes: Option<Notes>,
    keep_alive: Duration,
) -> Result<Response, BoxFuture<'static, Response>> {
    let Running { cancellation, mut answer } = running;
    // A waker that does nothing is enough: a request not done at once is polled again, with
    // the waker of the task it then runs on.
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    if let std::task::Poll::Ready(answered) = answer.as_mut().poll(&mut context) {
        let Some(answered) = answered else { return Ok(StatusCode::NO_CONTENT.into_response()) };
        // Nothing was sent, nor can be now: dropping `notes` closes the stream.
        let Some(notes) = notes.filter(|notes| !notes.untouched()) else {
            return Ok(answered_response(answered));
        };
        let mut notes = notes.into_receiver();
        return Ok(match notes.try_recv() {
            Err(_) => answered_response(answered),
            // It notified before answering: the notifications go first, on an event stream.
            Ok(first) => {
                let (done_tx, done_rx) = oneshot::channel();
                let _ = done_tx.send(answered);
                stream_response(first, notes, done_rx, cancellation.drop_guard(), keep_alive)
            }
        });
    }
    // A client that reads no event stream gets no notifications: a receiver that never
    // receives stands in for them.
    let notes = notes.map_or_else(|| mpsc::channel(1).1, Notes::into_receiver);
    let (done_tx, done_rx) = oneshot::channel();
    let watch = cancellation.clone();
    tokio::spawn(async move {
        tokio::select! {
            biased;
            () = watch.cancelled() => {}
            answered = answer => {
                if let Some(answered) = answered {
                    let _ = done_tx.send(answered);
                }
            }
        }
    });
    Err(Box::pin(respond(notes, done_rx, cancellation.drop_guard(), keep_alive)))
}

/// Answers with JSON when the request finishes before it has anything to stream, and with an
/// event stream from its first notification on otherwise.
async fn respond(
    mut notes: mpsc::Receiver<Vec<u8>>,
    mut done: oneshot::Receiver<Answered>,
    guard: tokio_util::sync::DropGuard,
    keep_alive: Duration,
) -> Response {
    let first = tokio::select! {
        biased;
        first = notes.recv() => first,
        answered = &mut done => {
            return match answered {
                Ok(answered) => answered_response(answered),
                Err(_) => error_response(StatusCode::INTERNAL_SERVER_ERROR, None, &Error::internal()),
            };
        }
    };
    let Some(first) = first else {
        // The handler dropped its notifier without finishing: wait for the answer.
        return match done.await {
            Ok(answered) => answered_response(answered),
            Err(_) => error_response(StatusCode::INTERNAL_SERVER_ERROR, None, &Error::internal()),
        };
    };
    stream_response(first, notes, done, guard, keep_alive)
}

/// An event stream: `first`, then the request's further notifications, then its answer.
fn stream_response(
    first: Vec<u8>,
    notes: mpsc::Receiver<Vec<u8>>,
    done: oneshot::Receiver<Answered>,
    guard: tokio_util::sync::DropGuard,
    keep_alive: Duration,
) -> Response {
    let events = event_stream(first, notes, done, guard);
    event_stream_response(events, keep_alive)
}

/// `events` as an SSE response that proxies do not buffer.
pub(super) fn event_stream_response(
    events: impl Stream<Item = Result<Event, std::convert::Infallible>> + Send + 'static,
    keep_alive: Duration,
) -> Response {
    let mut response = Sse::new(events).keep_alive(KeepAlive::new().interval(keep_alive)).into_response();
    response.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// One message as an SSE event.
pub(super) fn message_event(bytes: &[u8]) -> Event {
    Event::default().event("message").data(String::from_utf8_lossy(bytes))
}

struct Streaming {
    notes: mpsc::Receiver<Vec<u8>>,
    done: Option<oneshot::Receiver<Answered>>,
    pending: std::collections::VecDeque<Vec<u8>>,
    // Lives as long as the stream: a client that closes it cancels the request.
    _guard: tokio_util::sync::DropGuard,
}

fn event_stream(
    first: Vec<u8>,
    notes: mpsc::Receiver<Vec<u8>>,
    done: oneshot::Receiver<Answered>,
    guard: tokio_util::sync::DropGuard,
) -> impl Stream<Item = Result<Event, std::convert::Infallible>> + Send {
    let state = Streaming { notes, done: Some(done), pending: [first].into(), _guard: guard };
    stream::unfold(state, |mut state| async move {
        loop {
            if let Some(bytes) = state.pending.pop_front() {
                return Some((Ok(message_event(&bytes)), state));
            }
            let done = state.done.as_mut()?;
            tokio::select! {
                // Notifications sent before the answer go out before it.
                biased;
                note = state.notes.recv() => match note {
                    Some(bytes) => state.pending.push_back(bytes),
                    None => {
                        if let Ok(answered) = done.await {
                            state.pending.push_back(answered.encoded.bytes);
                        }
                        state.done = None;
                    }
                },
                answered = &mut *done => {
                    while let Ok(bytes) = state.notes.try_recv() {
                        state.pending.push_back(bytes);
                    }
                    if let Ok(answered) = answered {
                        state.pending.push_back(answered.encoded.bytes);
                    }
                    state.done = None;
                }
            }
        }
    })
}
