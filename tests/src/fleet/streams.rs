//! Listen streams that follow every note of the workload: each records its acknowledgement,
//! every event with when it came, and how it ended; when one ends, its client listens again, as
//! the protocol asks.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;

use super::client::{Mcp, drain_events};
use super::record::{Clock, End, Event, Recorder};

/// What the streams ask for: the list of notes, and every note of the workload by URI.
pub fn filter(uris: &[String]) -> Value {
    json!({"resourcesListChanged": true, "resourceSubscriptions": uris})
}

fn event_of(message: &Value) -> Option<Event> {
    match message["method"].as_str()? {
        "notifications/resources/list_changed" => Some(Event::ListChanged),
        "notifications/resources/updated" => Some(Event::Updated(message["params"]["uri"].as_str()?.to_owned())),
        _ => None,
    }
}

/// Holds one stream open at a time until `closing` says so, listening again whenever one ends.
pub async fn follow(mcp: Mcp, clock: Clock, recorder: Recorder, uris: Vec<String>, mut closing: watch::Receiver<bool>) {
    let mut n = 0;
    while !*closing.borrow() {
        n += 1;
        let index = recorder.stream();
        let opened = mcp.open_stream(&format!("listen-{n}"), filter(&uris)).await;
        let (mut response, served_by) = match opened {
            Ok(opened) => opened,
            Err(problem) => {
                recorder.update_stream(index, |s| s.ended = Some((clock.now(), End::Dropped(problem))));
                // Nothing to listen to yet (every instance down, say): try again shortly.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        recorder.update_stream(index, |s| s.served_by = served_by);
        let mut buffer = String::new();
        let end = loop {
            let chunk = tokio::select! {
                chunk = response.chunk() => chunk,
                _ = closing.changed() => break End::Closed,
            };
            match chunk {
                Ok(Some(bytes)) => {
                    buffer.push_str(&String::from_utf8_lossy(&bytes));
                    let at = clock.now();
                    let mut ended = false;
                    for message in drain_events(&mut buffer) {
                        if message["method"] == "notifications/subscriptions/acknowledged" {
                            recorder.update_stream(index, |s| s.acknowledged = Some(at));
                        } else if let Some(event) = event_of(&message) {
                            recorder.update_stream(index, |s| s.events.push((at, event)));
                        } else if message.get("result").is_some() {
                            ended = true;
                        }
                    }
                    if ended {
                        break End::Result;
                    }
                }
                Ok(None) => break End::Dropped("the stream ended without a result".into()),
                Err(e) => break End::Dropped(format!("{e:?}")),
            }
        };
        recorder.update_stream(index, |s| s.ended = Some((clock.now(), end)));
    }
}
