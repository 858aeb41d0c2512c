//! The change notifications of a legacy session: list changes, and updates of the resources
//! it subscribed to, taken from the same [`Changes`](crate::Changes) that
//! `subscriptions/listen` reads.

use std::sync::{Arc, Weak};

use serde_json::{Map, json};
use tokio::sync::broadcast::error::RecvError;

use super::Session;
use crate::changes::{ChangeEvent, Signal};
use crate::jsonrpc::encode_notification;
use crate::method::Method;
use crate::uri::covers;

/// Forwards announced changes the session asked for to its sink, until it closes.
pub(super) fn watch(session: &Arc<Session>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
    let mut events = session.server.registry().shared.changes.subscribe();
    let weak: Weak<Session> = Arc::downgrade(session);
    let closed = session.closed.clone();
    runtime.spawn(async move {
        loop {
            let signal = tokio::select! {
                biased;
                () = closed.cancelled() => return,
                signal = events.recv() => signal,
            };
            let Some(session) = weak.upgrade() else { return };
            let messages = match signal {
                Ok(Signal::Event(event, _)) => notifications_for(&session, &event),
                // Events may have been missed: everything the client could have heard about is
                // announced, so it re-reads.
                Ok(Signal::Resync) | Err(RecvError::Lagged(_)) => everything_changed(&session),
                Err(RecvError::Closed) => return,
            };
            let sink = session.sink.lock().expect("sink lock").clone();
            if let Some(sink) = sink {
                for message in messages {
                    // A client that stopped reading loses notifications, never blocks others.
                    sink.try_send(message);
                }
            }
        }
    });
}

fn notifications_for(session: &Session, event: &ChangeEvent) -> Vec<Vec<u8>> {
    let capabilities = &session.server.registry().capabilities;
    let empty = Map::new();
    match event {
        ChangeEvent::ToolsListChanged if capabilities.tools.is_some() => {
            vec![encode_notification(Method::NotificationsToolsListChanged, &empty)]
        }
        ChangeEvent::PromptsListChanged if capabilities.prompts.is_some() => {
            vec![encode_notification(Method::NotificationsPromptsListChanged, &empty)]
        }
        ChangeEvent::ResourcesListChanged if capabilities.resources.is_some() => {
            vec![encode_notification(Method::NotificationsResourcesListChanged, &empty)]
        }
        ChangeEvent::ResourceUpdated(uri) => {
            let subscribed = session.subscriptions.lock().expect("subscriptions lock");
            if subscribed.iter().any(|s| covers(s, uri)) {
                vec![encode_notification(Method::NotificationsResourcesUpdated, &json!({ "uri": &**uri }))]
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

fn everything_changed(session: &Session) -> Vec<Vec<u8>> {
    let mut messages: Vec<Vec<u8>> =
        [ChangeEvent::ToolsListChanged, ChangeEvent::PromptsListChanged, ChangeEvent::ResourcesListChanged]
            .iter()
            .flat_map(|event| notifications_for(session, event))
            .collect();
    let subscribed = session.subscriptions.lock().expect("subscriptions lock").clone();
    messages.extend(
        subscribed
            .iter()
            .map(|uri| encode_notification(Method::NotificationsResourcesUpdated, &json!({ "uri": &**uri }))),
    );
    messages
}
