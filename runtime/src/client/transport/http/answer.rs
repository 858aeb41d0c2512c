//! What comes back over Streamable HTTP, read within the client's limits: a JSON body, an
//! event stream (resumed in a 2025-11-25 session when it breaks), an error status, or a
//! redirect the transport does not follow.

use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue, LOCATION};
use serde::Deserialize;

use super::{HttpState, LAST_EVENT_ID, PROTOCOL_VERSION, SESSION_ID, lock};
use crate::client::reading::{body, causes, same_origin, within};
use crate::client::transport::sse::{Ended, Position, read_events};
use crate::client::transport::{Inbox, TransportError};
use crate::jsonrpc::{ErrorObject, RequestId};

/// How long to wait before resuming a broken stream when the server did not say (`retry:`).
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// Times a broken stream is resumed for one request before the request fails.
const MAX_RESUMPTIONS: usize = 5;

/// How much of an error status's body is read when it is not JSON-RPC: enough to quote.
const EXCERPT_BYTES: usize = 4096;

#[derive(Deserialize)]
struct ErrorBody {
    error: ErrorObject,
}

impl HttpState {
    /// The POST of a message, with `token` as its bearer token if given.
    pub(super) fn post(
        &self,
        message_headers: &[(String, String)],
        body: Vec<u8>,
        token: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let mut headers = self.fixed.get().cloned().unwrap_or_default();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(value) = token.and_then(bearer_value) {
            headers.insert(AUTHORIZATION, value);
        }
        for (name, value) in message_headers {
            match (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
                (Ok(name), Ok(value)) => {
                    headers.insert(name, value);
                }
                _ => tracing::warn!(header = %name, "a header the client built is not valid HTTP: left out"),
            }
        }
        if let Some(session) = lock(&self.session).clone() {
            headers.insert(SESSION_ID, session);
        }
        self.http().post(self.url().clone()).headers(headers).body(body)
    }

    pub(super) fn http(&self) -> &reqwest::Client {
        self.http.get().expect("opened before use")
    }

    pub(super) fn url(&self) -> &reqwest::Url {
        self.url.get().expect("opened before use")
    }

    fn remember_session(&self, response: &reqwest::Response) {
        if let Some(session) = response.headers().get(SESSION_ID) {
            *lock(&self.session) = Some(session.clone());
        }
    }

    /// Refuses a redirect, and an answer that a client following redirects got from another
    /// origin than the server's.
    fn check_origin(&self, response: &reqwest::Response) -> Result<(), TransportError> {
        let status = response.status().as_u16();
        if response.status().is_redirection() {
            let location = response.headers().get(LOCATION).and_then(|l| l.to_str().ok()).unwrap_or("nowhere");
            let location: String = location.chars().take(200).collect();
            return Err(TransportError::Redirected { status, location, reason: " outside the server's origin".into() });
        }
        if !same_origin(self.url(), response) {
            let location = response.url().origin().ascii_serialization();
            let reason = ": the HTTP client followed it to another origin, and its answer is not read".to_owned();
            return Err(TransportError::Redirected { status, location, reason });
        }
        Ok(())
    }

    /// What an error status says: its JSON-RPC error if the body is one, else its start.
    async fn refusal(&self, mut response: reqwest::Response, max: usize, idle: Option<Duration>) -> TransportError {
        let status = response.status().as_u16();
        let read = body(&mut response, max, idle).await;
        let text = match read {
            Ok(text) => text,
            Err(TransportError::OverLimit(_)) => b"(a body over the client's size limit)".to_vec(),
            Err(error) => return error,
        };
        match serde_json::from_slice::<ErrorBody>(&text) {
            Ok(ErrorBody { error }) => TransportError::Rejected { status, error: Box::new(error) },
            Err(_) => TransportError::Status { status, body: TransportError::body_excerpt(&text) },
        }
    }

    /// The answer to a notification or to a server's request: a success status, nothing more.
    pub(super) async fn acknowledged(&self, response: reqwest::Response, inbox: &Inbox) -> Result<(), TransportError> {
        self.check_origin(&response)?;
        self.remember_session(&response);
        if response.status().is_success() {
            return Ok(());
        }
        Err(self.refusal(response, inbox.max_message_size().min(EXCERPT_BYTES), None).await)
    }

    /// Reads the answer to request `id` from `response`, resuming a broken 2025-11-25 stream.
    pub(super) async fn answer(
        &self,
        id: &RequestId,
        response: reqwest::Response,
        inbox: &Inbox,
        idle: Option<Duration>,
    ) {
        if let Err(error) = self.check_origin(&response) {
            let _ = inbox.failed(id, error);
            return;
        }
        self.remember_session(&response);
        let status = response.status();
        if !status.is_success() {
            let _ = inbox.failed(id, self.refusal(response, inbox.max_message_size(), idle).await);
            return;
        }
        if !is_event_stream(&response) {
            let mut response = response;
            match body(&mut response, inbox.max_message_size(), idle).await {
                Ok(body) if body.trim_ascii().is_empty() => {
                    let _ = inbox.failed(id, TransportError::Malformed(format!("HTTP {status} without an answer")));
                }
                Ok(body) => {
                    if let Err(error) = inbox.deliver(&body) {
                        let _ = inbox.failed(id, error);
                    }
                }
                Err(error) => {
                    let _ = inbox.failed(id, error);
                }
            }
            return self.unanswered(id, inbox, "the answer named no request of this client");
        }
        let mut position = Position::default();
        let mut response = response;
        for _ in 0..=MAX_RESUMPTIONS {
            let ended = read_events(response, inbox, &mut position, Some(id), idle).await;
            if !inbox.awaits(id) {
                return;
            }
            let why = match ended {
                Ended::Failed(error) => {
                    let _ = inbox.failed(id, error);
                    return;
                }
                Ended::Done => "it ended".to_owned(),
                Ended::Broke(why) => why,
            };
            let session = lock(&self.session).is_some();
            let (Some(last), true) = (position.last_event_id.clone(), session) else {
                let _ = inbox.failed(id, TransportError::Closed(format!("the answer's stream broke off: {why}")));
                return;
            };
            tokio::time::sleep(position.retry.unwrap_or(DEFAULT_RETRY)).await;
            response = match self.resume(Some(&last), inbox, idle).await {
                Ok(resumed) => resumed,
                Err(error) => {
                    let _ = inbox.failed(id, error);
                    return;
                }
            };
        }
        self.unanswered(id, inbox, "the stream broke off too many times")
    }

    /// A 2025-11-25 session's stream, opened or resumed after `last_event_id`: an event
    /// stream from the server, or why not.
    async fn resume(
        &self,
        last_event_id: Option<&str>,
        inbox: &Inbox,
        idle: Option<Duration>,
    ) -> Result<reqwest::Response, TransportError> {
        let response = within(idle, "the stream", self.get_stream(last_event_id))
            .await?
            .map_err(|e| TransportError::Closed(format!("cannot resume the stream: {}", causes(&e))))?;
        self.check_origin(&response)?;
        if response.status().is_success() && is_event_stream(&response) {
            return Ok(response);
        }
        Err(self.refusal(response, inbox.max_message_size().min(EXCERPT_BYTES), idle).await)
    }

    /// A GET for a 2025-11-25 session's stream, resuming after `last_event_id` if given.
    pub(super) async fn get_stream(&self, last_event_id: Option<&str>) -> reqwest::Result<reqwest::Response> {
        let mut headers = self.fixed.get().cloned().unwrap_or_default();
        if let Some(value) = self.current_token().await.as_deref().and_then(bearer_value) {
            headers.insert(AUTHORIZATION, value);
        }
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(session) = lock(&self.session).clone() {
            headers.insert(SESSION_ID, session);
        }
        if let Some(version) = lock(&self.legacy_version).clone() {
            headers.insert(PROTOCOL_VERSION, version);
        }
        if let Some(last) = last_event_id.and_then(|l| HeaderValue::from_str(l).ok()) {
            headers.insert(LAST_EVENT_ID, last);
        }
        self.http().get(self.url().clone()).headers(headers).send().await
    }

    /// Whether `response` opens the session's standalone stream.
    pub(super) fn opens_stream(&self, response: &reqwest::Response) -> bool {
        self.check_origin(response).is_ok() && response.status().is_success() && is_event_stream(response)
    }

    /// Reads the session's standalone stream, resuming it when it breaks off after an event
    /// id, until it ends for good. It may stay silent for as long as the server has nothing
    /// to ask: no idle timeout.
    pub(super) async fn standalone(&self, mut response: reqwest::Response, inbox: Inbox) {
        let mut position = Position::default();
        for _ in 0..=MAX_RESUMPTIONS {
            if let Ended::Failed(error) = read_events(response, &inbox, &mut position, None, None).await {
                tracing::warn!(%error, "the session's stream is closed");
                return;
            }
            let Some(last) = position.last_event_id.clone() else { return };
            tokio::time::sleep(position.retry.unwrap_or(DEFAULT_RETRY)).await;
            match self.resume(Some(&last), &inbox, None).await {
                Ok(next) => response = next,
                Err(_) => return,
            }
        }
    }

    fn unanswered(&self, id: &RequestId, inbox: &Inbox, why: &str) {
        if inbox.awaits(id) {
            let _ = inbox.failed(id, TransportError::Malformed(why.to_owned()));
        }
    }

    /// A failed exchange, as the transport reports it.
    pub(super) fn connect_error(&self, error: &reqwest::Error) -> TransportError {
        if error.is_connect() && error.is_timeout() {
            return TransportError::TimedOut { waiting_for: "connection".into(), after: self.connect_timeout };
        }
        let text = causes(error);
        if error.is_connect() { TransportError::Connect(text) } else { TransportError::Io(text) }
    }
}

fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

/// `Bearer {token}`, marked sensitive (never shown in a debug string).
pub(super) fn bearer_value(token: &str) -> Option<HeaderValue> {
    let mut value = HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}
