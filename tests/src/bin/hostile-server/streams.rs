//! Answers too big to hold or that never come: a JSON body of any size (`big-json`), an event
//! stream whose line, event or id never ends (`big-sse-line`, `big-sse-event`, `big-sse-id`),
//! a retry of 46 days (`sse-retry`), headers and then silence (`silent`), no headers at all
//! (`no-headers`), and keep-alive comments forever (`drip`).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::body::{Fed, Made, Piece, a_block};
use crate::http::{App, reply};
use crate::wire::{Incoming, Offer, Query, complete, plain_info, tool};

/// The default size of the big bodies: 512 MiB.
const DEFAULT_BYTES: u64 = 512 * 1024 * 1024;
/// The default size of `big-sse-id`'s id: 64 MiB.
const DEFAULT_ID_BYTES: u64 = 64 * 1024 * 1024;
/// The largest size asked for that is honoured: 1 TiB.
const MAX_BYTES: u64 = 1 << 40;
/// One `data:` line of `big-sse-event`, its newline included.
const LINE: usize = 1024;

/// Whether `scenario` is one of these.
pub fn serves(scenario: &str) -> bool {
    matches!(
        scenario,
        "big-json" | "big-sse-line" | "big-sse-event" | "big-sse-id" | "sse-retry" | "silent" | "no-headers" | "drip"
    )
}

/// The answer to `message` in `scenario` (one of [`serves`]).
pub async fn answer(app: &App, scenario: &'static str, message: &Incoming, query: &Query) -> Response {
    let name = if matches!(scenario, "silent" | "no-headers" | "drip") { "hang" } else { "big" };
    if !message.is_request() || matches!(message.method(), "server/discover" | "tools/list") {
        let offer = Offer::tools(scenario, vec![tool(name, "Answers at length, or not at all.")]);
        return reply(offer.basic(message));
    }
    let record = &app.record;
    let bytes = query.number("bytes", DEFAULT_BYTES, MAX_BYTES);
    let result = || {
        let answer =
            message.answer(complete(json!({"content": [{"type": "text", "text": "ok"}]}), &plain_info(scenario)));
        Bytes::from(format!("data: {answer}\n\n"))
    };
    match scenario {
        "big-json" => {
            let prefix = format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"complete","content":[{{"type":"text","text":""#,
                message.id()
            );
            let suffix = r#""}]}}"#;
            let filler = bytes.saturating_sub((prefix.len() + suffix.len()) as u64);
            let total = prefix.len() as u64 + filler + suffix.len() as u64;
            let made = Made::new([
                Piece::Once(Bytes::from(prefix)),
                Piece::Repeat { block: a_block(), left: filler },
                Piece::Once(Bytes::from_static(suffix.as_bytes())),
            ])
            .counted(record, "big-json");
            let mut response = ([(header::CONTENT_TYPE, "application/json")], made.into_body()).into_response();
            if query.get("length") == Some("declared") {
                response.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from(total));
            }
            response
        }
        "big-sse-line" => event_stream(
            Made::new([Piece::Once(Bytes::from_static(b"data: ")), Piece::Repeat { block: a_block(), left: bytes }])
                .counted(record, "big-sse-line")
                .into_body(),
        ),
        "big-sse-event" => {
            // Whole lines: the size asked for, rounded up to a multiple of 1 KiB.
            let left = bytes.div_ceil(LINE as u64) * LINE as u64;
            event_stream(
                Made::new([Piece::Repeat { block: lines(), left }]).counted(record, "big-sse-event").into_body(),
            )
        }
        "big-sse-id" => {
            let id_bytes = query.number("bytes", DEFAULT_ID_BYTES, MAX_BYTES);
            event_stream(
                Made::new([
                    Piece::Once(Bytes::from_static(b"id: ")),
                    Piece::Repeat { block: a_block(), left: id_bytes },
                    Piece::Once(Bytes::from_static(b"\n")),
                    Piece::Once(result()),
                ])
                .counted(record, "big-sse-id")
                .into_body(),
            )
        }
        "sse-retry" => {
            let mut pieces = vec![Piece::Once(Bytes::from_static(b"retry: 4000000000\nid: 1\n\n"))];
            if query.get("close") != Some("1") {
                pieces.push(Piece::Once(result()));
            }
            event_stream(Made::new(pieces).counted(record, "sse-retry").into_body())
        }
        "silent" => event_stream(Made::new([]).then_hang().into_body()),
        "no-headers" => std::future::pending().await,
        _ => {
            let (body, sender) = Fed::new(record, "drip");
            tokio::spawn(async move {
                // Ends when the client hangs up: the body, and the channel's other end, are gone.
                while sender.send(Bytes::from_static(b": keep-alive\n\n")).await.is_ok() {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            });
            event_stream(Body::from_stream(body))
        }
    }
}

/// 64 KiB of `data: aaa…\n` lines, 1 KiB each.
fn lines() -> Bytes {
    let mut line = b"data: ".to_vec();
    line.resize(LINE - 1, b'a');
    line.push(b'\n');
    Bytes::from(line.repeat(64))
}

/// `200 text/event-stream` with `body`.
pub fn event_stream(body: Body) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "text/event-stream"),
        (header::CACHE_CONTROL, "no-cache"),
        (header::HeaderName::from_static("x-accel-buffering"), "no"),
    ];
    (StatusCode::OK, headers, body).into_response()
}
