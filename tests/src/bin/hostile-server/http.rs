//! The two listeners' routes: the main origin (one MCP endpoint per scenario, their OAuth
//! metadata, `GET /_record`) and the other origin, which records whatever reaches it.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_core::Stream;

use crate::body::Made;
use crate::record::{KEPT_BODY, Record, Visit};
use crate::streams::event_stream;
use crate::wire::{Incoming, Query, Reply};
use crate::{auth, escapes, legacy, rounds, streams};

/// The largest request body the main origin reads.
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// Every scenario, as the first segment of its endpoint's path.
const SCENARIOS: [&str; 20] = [
    "escapes",
    "big-json",
    "big-sse-line",
    "big-sse-event",
    "big-sse-id",
    "sse-retry",
    "endless-task",
    "endless-rounds",
    "many-inputs",
    "redirect",
    "redirect-same",
    "harvest",
    "harvest-http-metadata",
    "no-pkce",
    "legacy-flood",
    "sampling",
    "silent",
    "no-headers",
    "drip",
    "url-elicit",
];

/// What every route shares.
pub struct App {
    pub record: Arc<Record>,
    /// `http://127.0.0.1:PORT` of the main listener.
    pub main: String,
    /// `http://127.0.0.1:PORT` of the other one.
    pub elsewhere: String,
    /// The authorization server `harvest`'s metadata names.
    pub issuer: String,
}

/// `reply` as an HTTP response.
pub fn reply(reply: Reply) -> Response {
    match reply {
        Reply::Json(status, message) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            (status, [(header::CONTENT_TYPE, "application/json")], message.to_string()).into_response()
        }
        Reply::Events(messages) => {
            let text: String = messages.iter().map(|m| format!("data: {m}\n\n")).collect();
            event_stream(Body::from(text))
        }
        Reply::Accepted => StatusCode::ACCEPTED.into_response(),
        Reply::Never => event_stream(Made::new([]).then_hang().into_body()),
    }
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "no such scenario").into_response()
}

/// The body, read up to [`MAX_BODY`]; `Err` is the answer to a larger one.
pub async fn read_body(body: Body) -> Result<axum::body::Bytes, Response> {
    axum::body::to_bytes(body, MAX_BODY)
        .await
        .map_err(|_| (StatusCode::PAYLOAD_TOO_LARGE, "the body is too large").into_response())
}

/// The main origin.
pub async fn main_origin(State(app): State<Arc<App>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let query = Query::parse(parts.uri.query().unwrap_or(""));
    if path == "/_record" {
        return Json(app.record.to_json()).into_response();
    }
    if let Some(rest) = path.strip_prefix("/.well-known/oauth-protected-resource/") {
        return rest.strip_suffix("/mcp").and_then(|s| auth::resource_metadata(&app, s)).unwrap_or_else(not_found);
    }
    let named = path.strip_prefix('/').and_then(|p| p.strip_suffix("/mcp"));
    let Some(scenario) = named.and_then(|name| SCENARIOS.iter().copied().find(|s| *s == name)) else {
        return not_found();
    };
    app.record.request(scenario);
    match scenario {
        "redirect" | "redirect-same" => return auth::redirect(&app, scenario),
        "legacy-flood" => return legacy::answer(&app, &parts, body, &query).await,
        _ => {}
    }
    if auth::guards(scenario) && !auth::authorized(&parts.headers) {
        return auth::challenge(&app, scenario, &parts.headers);
    }
    if parts.method != Method::POST {
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "POST")]).into_response();
    }
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    let message = match Incoming::parse(&bytes) {
        Ok(message) => message,
        Err(error) => return reply(Reply::Json(400, error)),
    };
    if streams::serves(scenario) {
        return streams::answer(&app, scenario, &message, &query).await;
    }
    if auth::guards(scenario) {
        return reply(auth::whoami(scenario, &message));
    }
    if scenario == "escapes" {
        return reply(escapes::answer(&message, &query));
    }
    rounds::answer(scenario, &message, &query, &app.record).map_or_else(not_found, reply)
}

/// The other origin: every request recorded, then answered as [`auth::elsewhere`] says.
pub async fn elsewhere_origin(State(app): State<Arc<App>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let (kept, body_bytes) = read_kept(body).await;
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    app.record.visit(Visit {
        method: parts.method.as_str().to_owned(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or("").to_owned(),
        headers,
        body: kept.clone(),
        body_bytes,
    });
    auth::elsewhere(&app, &parts, &kept)
}

/// The first [`KEPT_BODY`] bytes of `body`, and its whole length (the rest is read and dropped).
async fn read_kept(body: Body) -> (Vec<u8>, u64) {
    let mut stream = body.into_data_stream();
    let mut kept = Vec::new();
    let mut total = 0u64;
    while let Some(Ok(chunk)) = poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await {
        total += chunk.len() as u64;
        let room = KEPT_BODY.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
    }
    (kept, total)
}
