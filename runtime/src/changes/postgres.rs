//! Change events across instances through PostgreSQL's LISTEN/NOTIFY: what one instance
//! announces, every instance's listen streams deliver.

use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::broadcast::error::RecvError;
use tokio_postgres::{AsyncMessage, NoTls};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{AnnouncedFrom, ChangeEvent, Changes, Signal};
use crate::replay::StoreError;

/// The channel every instance listens on.
const CHANNEL: &str = "mcp_rounds_changes";
/// NOTIFY payloads are limited to 8000 bytes.
const MAX_PAYLOAD: usize = 7_900;
/// The most events taken into one batch.
const MAX_BATCH: usize = 256;

/// Relays a server's [`Changes`] to and from every other instance connected to the same
/// database. Events announced together go in one notification. Delivery is at least once:
/// when the relay loses its connection it reconnects, and when it falls behind it tells the
/// other instances so; either way every listen stream that may have missed events ends
/// gracefully, so that its client listens again and re-reads. Dropping the relay stops it.
///
/// ```no_run
/// use mcp_rounds::Server;
/// use mcp_rounds::changes::PostgresFanOut;
///
/// # async fn run(server: Server) -> Result<(), Box<dyn std::error::Error>> {
/// let _relay = PostgresFanOut::start(server.changes(), "postgres://notes@db.internal/notes").await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct PostgresFanOut {
    _stop: DropGuard,
}

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

/// One notification's payload: `events`, in order.
#[cfg(test)]
fn encode(instance: &str, events: &[ChangeEvent]) -> String {
    let events: Vec<String> = events.iter().map(|event| event_value(event).to_string()).collect();
    payload(instance, &events)
}

/// The payload carrying events already encoded, each once.
fn payload(instance: &str, events: &[String]) -> String {
    format!(r#"{{"from":{},"events":[{}]}}"#, serde_json::Value::from(instance), events.join(","))
}

/// The payload that tells every other instance it may have missed events of `instance`.
fn encode_resync(instance: &str) -> String {
    serde_json::json!({ "from": instance, "resync": true }).to_string()
}

/// What a payload says to an instance.
#[derive(Debug, PartialEq)]
enum Relayed {
    Events(Vec<ChangeEvent>),
    /// Events were lost on the way: listeners start over.
    Resync,
}

/// What a payload says, unless it came from `instance` itself or says nothing.
fn decode(instance: &str, payload: &str) -> Option<Relayed> {
    let value: serde_json::Value = serde_json::from_str(payload).ok()?;
    if value["from"].as_str()? == instance {
        return None;
    }
    if value["resync"] == true {
        return Some(Relayed::Resync);
    }
    // One event per payload is what instances of earlier versions send, during an upgrade.
    let events: Vec<ChangeEvent> = match (&value["events"], &value["event"]) {
        (serde_json::Value::Array(events), _) => events.iter().filter_map(event_of).collect(),
        (_, single) => event_of(single).into_iter().collect(),
    };
    (!events.is_empty()).then_some(Relayed::Events(events))
}

/// The payloads that carry `event` and whatever else has been announced here meanwhile, each
/// within PostgreSQL's limit; `None` in place of an event too large for any payload. Batching
/// keeps the relay ahead of a burst (one round trip per batch, not per event).
fn batch(first: ChangeEvent, receiver: &mut tokio::sync::broadcast::Receiver<Signal>, instance: &str) -> Batch {
    let mut events = vec![first];
    let mut lagged = false;
    while events.len() < MAX_BATCH {
        match receiver.try_recv() {
            Ok(Signal::Event(event, AnnouncedFrom::Here)) => events.push(event),
            Ok(_) => {}
            Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => lagged = true,
            Err(_) => break,
        }
    }
    // Each event is encoded once; a payload's size is the envelope's plus its events' and the
    // commas between them.
    let envelope = payload(instance, &[]).len();
    let mut payloads = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut size = envelope;
    for event in &events {
        let encoded = event_value(event).to_string();
        if envelope + encoded.len() > MAX_PAYLOAD {
            lagged = true;
            continue;
        }
        if !current.is_empty() && size + 1 + encoded.len() > MAX_PAYLOAD {
            payloads.push(payload(instance, &current));
            current.clear();
            size = envelope;
        }
        size += usize::from(!current.is_empty()) + encoded.len();
        current.push(encoded);
    }
    if !current.is_empty() {
        payloads.push(payload(instance, &current));
    }
    Batch { payloads, lost: lagged }
}

/// What one batch sends.
struct Batch {
    payloads: Vec<String>,
    /// Some events could not be sent (too large, or missed): other instances must resync.
    lost: bool,
}

impl PostgresFanOut {
    /// Connects to the database at `url` and starts relaying. Fails when it cannot be reached;
    /// later connection losses are retried.
    pub async fn start(changes: Changes, url: &str) -> Result<Self, StoreError> {
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e| StoreError(format!("invalid PostgreSQL URL: {e}")))?;
        if config.get_application_name().is_none() {
            config.application_name("mcp-rounds-changes");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(|e| StoreError(e.to_string()))?;
        let instance: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let stop = CancellationToken::new();
        // The first connection is made here, so that a wrong URL is an error now.
        let first = connect(&config).await?;
        tokio::spawn(relay(changes, config, instance, stop.clone(), Some(first)));
        Ok(PostgresFanOut { _stop: stop.drop_guard() })
    }
}

type Listener = (tokio_postgres::Client, tokio::sync::mpsc::UnboundedReceiver<String>, tokio::task::JoinHandle<()>);

/// A client listening on the channel, and the payloads that arrive on it.
async fn connect(config: &tokio_postgres::Config) -> Result<Listener, StoreError> {
    let (client, mut connection) =
        config.connect(NoTls).await.map_err(|e| StoreError(format!("cannot reach PostgreSQL: {e}")))?;
    let (sender, payloads) = tokio::sync::mpsc::unbounded_channel();
    // The connection yields notifications as messages; it must be polled for the client to work.
    let driver = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(n)) if n.channel() == CHANNEL => {
                    if sender.send(n.payload().to_owned()).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "the change relay lost its PostgreSQL connection");
                    return;
                }
            }
        }
    });
    client.batch_execute(&format!("LISTEN {CHANNEL}")).await.map_err(|e| StoreError(e.to_string()))?;
    Ok((client, payloads, driver))
}

/// Sends each payload on the channel, in order.
async fn send(
    client: &tokio_postgres::Client,
    payloads: impl Iterator<Item = &String>,
) -> Result<(), tokio_postgres::Error> {
    for payload in payloads {
        client.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, payload]).await?;
    }
    Ok(())
}

async fn relay(
    changes: Changes,
    config: tokio_postgres::Config,
    instance: String,
    stop: CancellationToken,
    mut connection: Option<Listener>,
) {
    let mut relay = changes.relay();
    let mut backoff = Duration::from_millis(100);
    loop {
        let (client, mut payloads, driver) = match connection.take() {
            Some(connection) => connection,
            None => {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(backoff) => {}
                }
                match connect(&config).await {
                    Ok(connection) => {
                        backoff = Duration::from_millis(100);
                        // Whatever happened while disconnected was missed.
                        changes.resync();
                        connection
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "the change relay cannot reconnect yet");
                        backoff = (backoff * 2).min(Duration::from_secs(5));
                        continue;
                    }
                }
            }
        };
        loop {
            tokio::select! {
                () = stop.cancelled() => {
                    driver.abort();
                    return;
                }
                payload = payloads.recv() => match payload {
                    Some(payload) => match decode(&instance, &payload) {
                        Some(Relayed::Events(events)) => {
                            for event in events {
                                changes.announce_from_elsewhere(event);
                            }
                        }
                        Some(Relayed::Resync) => changes.resync(),
                        None => {}
                    },
                    // The connection is gone.
                    None => break,
                },
                signal = relay.receiver.recv() => {
                    let batch = match signal {
                        Ok(Signal::Event(event, AnnouncedFrom::Here)) => batch(event, &mut relay.receiver, &instance),
                        Ok(_) => continue,
                        Err(RecvError::Lagged(missed)) => {
                            tracing::warn!(missed, "the change relay fell behind; other instances resync");
                            Batch { payloads: Vec::new(), lost: true }
                        }
                        Err(RecvError::Closed) => return,
                    };
                    let resync = batch.lost.then(|| encode_resync(&instance));
                    if let Err(e) = send(&client, batch.payloads.iter().chain(resync.as_ref())).await {
                        tracing::warn!(error = %e, "a change could not be relayed");
                        break;
                    }
                }
            }
        }
        driver.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_an_instance_ignores_its_own() {
        let events = vec![
            ChangeEvent::ToolsListChanged,
            ChangeEvent::PromptsListChanged,
            ChangeEvent::ResourcesListChanged,
            ChangeEvent::ResourceUpdated("notes://w/1".into()),
            ChangeEvent::TaskUpdated("t1".into()),
        ];
        let payload = encode("a", &events);
        assert_eq!(decode("b", &payload), Some(Relayed::Events(events)));
        assert_eq!(decode("a", &payload), None);
        assert_eq!(decode("b", &encode_resync("a")), Some(Relayed::Resync));
        assert_eq!(decode("a", &encode_resync("a")), None);
        // What an instance of an earlier version sends.
        let single = r#"{"from":"a","event":{"updated":"notes://w/2"}}"#;
        assert_eq!(
            decode("b", single),
            Some(Relayed::Events(vec![ChangeEvent::ResourceUpdated("notes://w/2".into())]))
        );
        assert_eq!(decode("b", "not json"), None);
        assert_eq!(decode("b", r#"{"from":"a","event":"bogus"}"#), None);
    }

    #[test]
    fn a_burst_goes_in_few_payloads_and_an_event_too_large_asks_for_a_resync() {
        let (sender, mut receiver) = tokio::sync::broadcast::channel(1024);
        for n in 0..300 {
            let event = ChangeEvent::ResourceUpdated(format!("notes://w/{n}").into());
            sender.send(Signal::Event(event, AnnouncedFrom::Here)).unwrap();
        }
        let first = match receiver.try_recv().unwrap() {
            Signal::Event(event, _) => event,
            Signal::Resync => unreachable!(),
        };
        let sent = batch(first, &mut receiver, "a");
        assert!(!sent.lost);
        assert!(sent.payloads.iter().all(|p| p.len() <= MAX_PAYLOAD));
        let carried: usize = sent
            .payloads
            .iter()
            .map(|p| match decode("b", p) {
                Some(Relayed::Events(events)) => events.len(),
                other => panic!("{other:?}"),
            })
            .sum();
        assert_eq!(carried, MAX_BATCH, "one batch takes what was waiting, up to its limit");
        assert!(sent.payloads.len() < 10, "{} payloads for {MAX_BATCH} events", sent.payloads.len());

        let huge = ChangeEvent::ResourceUpdated(format!("notes://w/{}", "x".repeat(MAX_PAYLOAD)).into());
        let sent = batch(huge, &mut receiver, "a");
        assert!(sent.lost, "an event no payload can carry makes the others resync");
    }
}
