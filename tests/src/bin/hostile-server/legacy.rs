//! `legacy-flood`: a 2025-11-25 server that refuses `server/discover` as an old server does,
//! settles the `initialize` handshake, and then floods its session's stream with its own
//! `elicitation/create` requests as fast as it can. The client's answers are counted.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::body::{Made, Piece};
use crate::http::{App, read_body, reply};
use crate::record::Record;
use crate::streams::event_stream;
use crate::wire::{Incoming, Query, Reply, error};

const LEGACY_VERSION: &str = "2025-11-25";
const SESSION: &str = "mcp-session-id";
/// Requests made per chunk of the stream.
const BATCH: u64 = 64;
/// The most requests asked for that are sent.
const MAX_COUNT: u64 = 100_000_000;

/// The answer to one request on the scenario's endpoint.
pub async fn answer(app: &App, parts: &Parts, body: Body, query: &Query) -> Response {
    let session = parts.headers.get(SESSION).filter(|s| !s.is_empty());
    match parts.method {
        Method::GET => match session {
            Some(_) => flood(&app.record, query.number("count", 2000, MAX_COUNT)),
            None => no_session(),
        },
        Method::DELETE => StatusCode::OK.into_response(),
        Method::POST => {
            let bytes = match read_body(body).await {
                Ok(bytes) => bytes,
                Err(response) => return response,
            };
            match Incoming::parse(&bytes) {
                Ok(message) => post(&app.record, &message).await,
                Err(error) => reply(Reply::Json(400, error)),
            }
        }
        _ => (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "GET, POST, DELETE")]).into_response(),
    }
}

/// What an old server without a session answers to anything but `initialize`.
fn no_session() -> Response {
    let body = error(Value::Null, -32000, "Bad Request: No valid session ID provided", None);
    reply(Reply::Json(400, body))
}

async fn post(record: &Record, message: &Incoming) -> Response {
    if message.method.is_none() {
        if message.id.is_some() {
            record.count("legacy_answers");
            if message.error.is_some() {
                record.count("legacy_answer_errors");
            } else if message.result.is_some() {
                record.count("legacy_answer_results");
            }
        }
        return StatusCode::ACCEPTED.into_response();
    }
    if !message.is_request() {
        return StatusCode::ACCEPTED.into_response();
    }
    let result = match message.method() {
        "server/discover" => return no_session(),
        "initialize" => {
            let n = record.count("legacy_sessions");
            let result = json!({
                "protocolVersion": LEGACY_VERSION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-legacy-flood", "version": "0.1.0"},
            });
            let mut response = reply(Reply::ok(message.answer(result)));
            if let Ok(value) = HeaderValue::from_str(&format!("flood-{n}")) {
                response.headers_mut().insert(SESSION, value);
            }
            return response;
        }
        "tools/list" => json!({"tools": [{
            "name": "wait",
            "description": "Answers after a minute.",
            "inputSchema": {"type": "object"},
        }]}),
        "tools/call" => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            json!({"content": [{"type": "text", "text": "waited 60 s"}]})
        }
        "ping" => json!({}),
        method => return reply(Reply::ok(message.fail(-32601, &format!("method not found: {method}"), None))),
    };
    reply(Reply::ok(message.answer(result)))
}

/// The session's stream: `count` elicitation requests, ids 1 to `count`, then silence with
/// the stream left open.
fn flood(record: &Arc<Record>, count: u64) -> Response {
    let mut next = 1;
    let counted = record.clone();
    let make = move || {
        if next > count {
            return None;
        }
        let last = (next + BATCH - 1).min(count);
        let mut chunk = String::new();
        for id in next..=last {
            let request = json!({
                "jsonrpc": "2.0",
                "id": id,
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": format!("Question {id}: go on?"),
                    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
                },
            });
            chunk.push_str(&format!("data: {request}\n\n"));
        }
        counted.add("legacy_requests_sent", last + 1 - next);
        next = last + 1;
        Some(Bytes::from(chunk))
    };
    event_stream(Made::new([Piece::Made(Box::new(make))]).then_hang().counted(record, "legacy-flood").into_body())
}
