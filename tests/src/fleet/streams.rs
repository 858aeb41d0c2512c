//! Listen streams that follow every note of the workload: each records its acknowledgement,
//! every event with when it came, and how it ended; when one ends, its client lists the notes
//! again (to catch up on what it may have missed) and listens again, as the protocol asks.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;

use super::client::{Mcp, drain_events, message};
use super::record::{Call, Clock, End, Event, Op, Recorder};

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

/// Lists the notes until an answer comes (or the run closes), recording when on stream `index`.
async fn relist(mcp: Mcp, clock: Clock, recorder: Recorder, index: usize, closing: watch::Receiver<bool>) {
    let mut n = 0;
    while !*closing.borrow() {
        n += 1;
        let id = format!("relist-{index}-{n}");
        let request = message(&id, "resources/list", json!({}), json!({}));
        let sent = clock.now();
        let answer = mcp.send(&request, Duration::from_secs(10)).await;
        let answered = clock.now();
        let listed = answer.result().is_some();
        recorder.call(Call { worker: usize::MAX, op: Op::List, sent, answered, answer, request: id });
        if listed {
            recorder.update_stream(index, |s| s.relisted = Some(answered));
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Holds one stream open at a time until `closing` says so; whenever one ends, listens again
/// and, once the new stream is acknowledged, lists the notes again (so that a change is either
/// announced on the new stream or already in the list). `follower` names this client.
pub async fn follow(
    mcp: Mcp,
    clock: Clock,
    recorder: Recorder,
    uris: Vec<String>,
    follower: usize,
    mut closing: watch::Receiver<bool>,
) {
    let mut n = 0;
    let mut catch_up: Vec<usize> = Vec::new();
    while !*closing.borrow() {
        n += 1;
        let index = recorder.stream(follower);
        let opened = mcp.open_stream(&format!("listen-{follower}-{n}"), filter(&uris)).await;
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
                            for ended in catch_up.drain(..) {
                                let (mcp, clock, recorder) = (mcp.clone(), clock.clone(), recorder.clone());
                                tokio::spawn(relist(mcp, clock, recorder, ended, closing.clone()));
                            }
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
        if end != End::Closed {
            catch_up.push(index);
        }
        recorder.update_stream(index, |s| s.ended = Some((clock.now(), end)));
    }
}
