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

/// Relays a server's [`Changes`] to and from every other instance connected to the same
/// database. Events are delivered at least once: when the relay loses its connection it
/// reconnects, and every listen stream ends gracefully so that its client listens again and
/// re-reads rather than trust a stream that may have missed events. Dropping the relay stops
/// it.
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

fn encode(instance: &str, event: &ChangeEvent) -> String {
    let event = match event {
        ChangeEvent::ToolsListChanged => serde_json::json!("tools"),
        ChangeEvent::PromptsListChanged => serde_json::json!("prompts"),
        ChangeEvent::ResourcesListChanged => serde_json::json!("resources"),
        ChangeEvent::ResourceUpdated(uri) => serde_json::json!({ "updated": &**uri }),
        ChangeEvent::TaskUpdated(id) => serde_json::json!({ "task": &**id }),
    };
    serde_json::json!({ "from": instance, "event": event }).to_string()
}

/// The event in a payload, unless it came from `instance` itself or is not one.
fn decode(instance: &str, payload: &str) -> Option<ChangeEvent> {
    let value: serde_json::Value = serde_json::from_str(payload).ok()?;
    if value["from"].as_str()? == instance {
        return None;
    }
    match &value["event"] {
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
                    Some(payload) => {
                        if let Some(event) = decode(&instance, &payload) {
                            changes.announce_from_elsewhere(event);
                        }
                    }
                    // The connection is gone.
                    None => break,
                },
                signal = relay.receiver.recv() => match signal {
                    Ok(Signal::Event(event, AnnouncedFrom::Here)) => {
                        let payload = encode(&instance, &event);
                        if payload.len() > MAX_PAYLOAD {
                            tracing::warn!("a change event is too large to relay; other instances resync");
                            continue;
                        }
                        if let Err(e) = client.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload]).await {
                            tracing::warn!(error = %e, "a change could not be relayed");
                            break;
                        }
                    }
                    Ok(_) => {}
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "the change relay fell behind; other instances may miss events");
                    }
                    Err(RecvError::Closed) => return,
                },
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
        for event in [
            ChangeEvent::ToolsListChanged,
            ChangeEvent::PromptsListChanged,
            ChangeEvent::ResourcesListChanged,
            ChangeEvent::ResourceUpdated("notes://w/1".into()),
        ] {
            let payload = encode("a", &event);
            assert_eq!(decode("b", &payload), Some(event.clone()));
            assert_eq!(decode("a", &payload), None);
        }
        assert_eq!(decode("b", "not json"), None);
        assert_eq!(decode("b", r#"{"from":"a","event":"bogus"}"#), None);
    }
}
