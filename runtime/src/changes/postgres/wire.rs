//! What a notification's body says, as JSON: who sent it, its sequence number and time, and
//! either the events it carries or that the others must resync. Events announced together are
//! batched into as few notifications as PostgreSQL's payload limit allows.

use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::TryRecvError;

use super::super::{AnnouncedFrom, ChangeEvent, Signal};

/// NOTIFY payloads must be shorter than 8000 bytes.
const MAX_PAYLOAD: usize = 7_999;
/// The most events taken into one batch.
const MAX_BATCH: usize = 256;

fn event_value(event: &ChangeEvent) -> serde_json::Value {
    match event {
        ChangeEvent::ToolsListChanged => serde_json::json!("tools"),
        ChangeEvent::PromptsListChanged => serde_json::json!("prompts"),
        ChangeEvent::ResourcesListChanged => serde_json::json!("resources"),
        ChangeEvent::ResourceUpdated(uri) => serde_json::json!({ "updated": &**uri }),
        ChangeEvent::TaskUpdated(id) => serde_json::json!({ "task": &**id }),
    }
}

fn event_of(value: &serde_json::Value) -> Option<ChangeEvent> {
    match value {
        serde_json::Value::String(kind) => match kind.as_str() {
            "tools" => Some(ChangeEvent::ToolsListChanged),
            "prompts" => Some(ChangeEvent::PromptsListChanged),
            "resources" => Some(ChangeEvent::ResourcesListChanged),
            _ => None,
        },
        other => match (other["updated"].as_str(), other["task"].as_str()) {
            (Some(uri), _) => Some(ChangeEvent::ResourceUpdated(uri.into())),
            (None, Some(id)) => Some(ChangeEvent::TaskUpdated(id.into())),
            (None, None) => None,
        },
    }
}

/// Who sent a body, and when.
#[derive(Debug, PartialEq)]
pub(super) struct Postmark<'a> {
    /// The sending relay's random id.
    pub from: &'a str,
    /// Its count of notifications sent, which only grows.
    pub seq: u64,
    /// When it sent it, in milliseconds since the Unix epoch, by its clock.
    pub at_ms: u64,
}

fn envelope(origin: &Postmark<'_>) -> String {
    format!(r#"{{"from":{},"seq":{},"at":{}"#, serde_json::Value::from(origin.from), origin.seq, origin.at_ms)
}

/// The body carrying `events`, each encoded already.
pub(super) fn events_body(origin: &Postmark<'_>, events: &[String]) -> String {
    format!(r#"{},"events":[{}]}}"#, envelope(origin), events.join(","))
}

/// The body that tells every other instance it may have missed events of this one.
pub(super) fn resync_body(origin: &Postmark<'_>) -> String {
    format!(r#"{},"resync":true}}"#, envelope(origin))
}

/// What a body says to an instance.
#[derive(Debug, PartialEq)]
pub(super) enum Relayed {
    Events(Vec<ChangeEvent>),
    /// Events were lost on the way (or could not be read): listeners start over.
    Resync,
}

/// A body's origin and content; `None` when it is not one.
pub(super) fn decode(body: &str) -> Option<(Postmark<'_>, Relayed)> {
    #[derive(serde::Deserialize)]
    struct Fields<'a> {
        #[serde(borrow)]
        from: &'a str,
        seq: u64,
        at: u64,
        #[serde(default)]
        resync: bool,
        #[serde(default)]
        events: Vec<serde_json::Value>,
    }
    let body: Fields<'_> = serde_json::from_str(body).ok()?;
    let origin = Postmark { from: body.from, seq: body.seq, at_ms: body.at };
    if body.resync {
        return Some((origin, Relayed::Resync));
    }
    let events: Vec<ChangeEvent> = body.events.iter().filter_map(event_of).collect();
    if events.len() < body.events.len() {
        // A kind this version does not know (a newer instance's, during an upgrade): whatever it
        // said is missed here, so listeners start over rather than go without it.
        return Some((origin, Relayed::Resync));
    }
    Some((origin, Relayed::Events(events)))
}

/// The events announced here, grouped so that each group's body fits in `budget` bytes beside
/// its envelope.
pub(super) struct Batch {
    /// Each group's events, encoded.
    pub groups: Vec<Vec<String>>,
    /// Some events could not be sent (too large, or missed): other instances must resync.
    pub lost: bool,
}

/// `first` and whatever else has been announced here meanwhile, grouped within `budget` bytes
/// of events per notification. Batching keeps the relay ahead of a burst (one round trip per
/// notification, not per event).
pub(super) fn batch(first: ChangeEvent, receiver: &mut Receiver<Signal>, budget: usize) -> Batch {
    let mut events = vec![first];
    let mut lost = false;
    while events.len() < MAX_BATCH {
        match receiver.try_recv() {
            Ok(Signal::Event(event, AnnouncedFrom::Here)) => events.push(event),
            Ok(_) => {}
            Err(TryRecvError::Lagged(_)) => lost = true,
            Err(_) => break,
        }
    }
    let mut groups = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut size = 0;
    for event in &events {
        let encoded = event_value(event).to_string();
        if encoded.len() > budget {
            lost = true;
            continue;
        }
        // Each event after the first adds a comma.
        if !current.is_empty() && size + 1 + encoded.len() > budget {
            groups.push(std::mem::take(&mut current));
            size = 0;
        }
        size += usize::from(!current.is_empty()) + encoded.len();
        current.push(encoded);
    }
    if !current.is_empty() {
        groups.push(current);
    }
    Batch { groups, lost }
}

/// The bytes of events a body may carry once sealed with `overhead` bytes, whatever its origin.
pub(super) fn events_budget(overhead: usize, from: &str) -> usize {
    let largest = Postmark { from, seq: u64::MAX, at_ms: u64::MAX };
    MAX_PAYLOAD - overhead - events_body(&largest, &[]).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: Postmark<'static> = Postmark { from: "a", seq: 7, at_ms: 1_700_000_000_000 };

    #[test]
    fn events_round_trip_with_their_origin() {
        let events = vec![
            ChangeEvent::ToolsListChanged,
            ChangeEvent::PromptsListChanged,
            ChangeEvent::ResourcesListChanged,
            ChangeEvent::ResourceUpdated("notes://w/1".into()),
            ChangeEvent::TaskUpdated("t1".into()),
        ];
        let encoded: Vec<String> = events.iter().map(|e| event_value(e).to_string()).collect();
        let body = events_body(&ORIGIN, &encoded);
        assert_eq!(decode(&body), Some((ORIGIN, Relayed::Events(events))));
        assert_eq!(decode(&resync_body(&ORIGIN)), Some((ORIGIN, Relayed::Resync)));
    }

    #[test]
    fn what_is_not_a_body_says_nothing_and_an_unknown_event_asks_for_a_resync() {
        assert_eq!(decode("not json"), None);
        assert_eq!(decode(r#"{"from":"a","events":["tools"]}"#), None, "no sequence number or time");
        assert_eq!(decode(r#"{"from":"a","seq":-1,"at":1,"events":[]}"#), None);
        let newer = r#"{"from":"a","seq":1,"at":1,"events":["tools",{"bogus":1}]}"#;
        assert_eq!(decode(newer).map(|(_, relayed)| relayed), Some(Relayed::Resync));
    }

    #[test]
    fn a_burst_goes_in_few_notifications_and_an_event_too_large_asks_for_a_resync() {
        let (sender, mut receiver) = tokio::sync::broadcast::channel(1024);
        for n in 0..300 {
            let event = ChangeEvent::ResourceUpdated(format!("notes://w/{n}").into());
            sender.send(Signal::Event(event, AnnouncedFrom::Here)).unwrap();
        }
        let Ok(Signal::Event(first, _)) = receiver.try_recv() else { unreachable!() };
        let budget = events_budget(120, "0123456789abcdef");
        let sent = batch(first, &mut receiver, budget);
        assert!(!sent.lost);
        let largest = Postmark { from: "0123456789abcdef", seq: u64::MAX, at_ms: u64::MAX };
        assert!(sent.groups.iter().all(|g| events_body(&largest, g).len() + 120 <= MAX_PAYLOAD));
        let carried: usize = sent
            .groups
            .iter()
            .map(|g| match decode(&events_body(&ORIGIN, g)) {
                Some((_, Relayed::Events(events))) => events.len(),
                other => panic!("{other:?}"),
            })
            .sum();
        assert_eq!(carried, MAX_BATCH, "one batch takes what was waiting, up to its limit");
        assert!(sent.groups.len() < 10, "{} notifications for {MAX_BATCH} events", sent.groups.len());

        let huge = ChangeEvent::ResourceUpdated(format!("notes://w/{}", "x".repeat(MAX_PAYLOAD)).into());
        let sent = batch(huge, &mut receiver, budget);
        assert!(sent.lost, "an event no notification can carry makes the others resync");
    }
}
