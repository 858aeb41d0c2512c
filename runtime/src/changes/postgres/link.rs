//! One connection of the relay: connected through the runtime's one PostgreSQL connector (TLS
//! as the settings say), listening on the channel, and a task that reads what arrives on it,
//! checks it and leaves what counts in the inbox.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use tokio_postgres::AsyncMessage;

use super::guard::{Guard, Verdict};
use super::inbox::IncomingQueue;
use super::wire::Relayed;
use crate::replay::postgres::describe;
use crate::replay::{PostgresSettings, StoreError};

/// The channel every instance listens on.
pub(super) const CHANNEL: &str = "mcp_rounds_changes";

/// A connection listening on the channel.
pub(super) struct RelayLink {
    /// Sends this instance's notifications.
    pub client: tokio_postgres::Client,
    /// Reads the connection; ends when the connection is lost.
    pub reader: tokio::task::JoinHandle<()>,
}

/// Connects, listens, and starts reading into `inbox`.
pub(super) async fn listen(
    settings: &PostgresSettings,
    guard: Arc<Mutex<Guard>>,
    inbox: Arc<IncomingQueue>,
) -> Result<RelayLink, StoreError> {
    let mut config = settings.config();
    if config.get_application_name().is_none() {
        config.application_name("mcp-rounds-changes");
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(5));
    }
    let (client, mut connection) = config
        .connect(settings.connector())
        .await
        .map_err(|e| StoreError(format!("cannot reach PostgreSQL: {}", describe(&e))))?;
    // The connection yields notifications as messages; it must be polled for the client to work.
    let reader = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(n)) if n.channel() == CHANNEL => {
                    let verdict = guard.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).check(n.payload());
                    match verdict {
                        Verdict::Accepted(Relayed::Events(events)) => inbox.push(events),
                        Verdict::Accepted(Relayed::Resync) => inbox.ask_resync(),
                        Verdict::Own | Verdict::Ignored(_) => {}
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %describe(&e), "the change relay lost its PostgreSQL connection");
                    return;
                }
            }
        }
    });
    if let Err(e) = client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
        reader.abort();
        return Err(StoreError(format!("cannot listen on {CHANNEL}: {}", describe(&e))));
    }
    Ok(RelayLink { client, reader })
}

/// Sends each payload on the channel, in order.
pub(super) async fn send(client: &tokio_postgres::Client, payloads: &[String]) -> Result<(), tokio_postgres::Error> {
    for payload in payloads {
        client.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, payload]).await?;
    }
    Ok(())
}
