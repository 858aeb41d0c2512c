//! `subscriptions/listen` as a stream of typed changes, listening again when the connection
//! drops; in a 2025-11-25 session, the session's own change notifications (and
//! `resources/subscribe`) stand in for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::error::ClientError;
use super::{Client, Extras};
use crate::future::BoxFuture;
use crate::jsonrpc::RequestId;
use crate::method::Method;
use crate::model::{
    SubscribeRequestParams, SubscriptionFilter, SubscriptionsListenRequestParams, TaskNotificationParams,
};

/// Times a dropped listen stream is opened again before [`Listening::next`] gives up.
const MAX_RELISTENS: usize = 5;

/// A change a listen stream delivers.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Notice {
    /// The server's agreement: what it will deliver (first, on every stream it opens).
    Acknowledged(SubscriptionFilter),
    /// The tools changed: list them again.
    ToolsListChanged,
    /// The prompts changed.
    PromptsListChanged,
    /// The resources changed.
    ResourcesListChanged,
    /// A resource changed: read it again.
    ResourceUpdated {
        /// Its URI.
        uri: String,
    },
    /// A task's new state (the tasks extension).
    Task(Box<TaskNotificationParams>),
    /// The stream dropped and was opened again: anything may have changed meanwhile.
    Relistened,
}

type Sender = mpsc::UnboundedSender<Option<Notice>>;

/// The open listen streams, by subscription id; and, in a 2025-11-25 session, every listener.
#[derive(Debug, Default)]
pub(crate) struct Listeners {
    by_id: Mutex<HashMap<RequestId, Sender>>,
    session: Mutex<Vec<(u64, Sender)>>,
    next: std::sync::atomic::AtomicU64,
}

impl Listeners {
    fn by_id(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Sender>> {
        self.by_id.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn session(&self) -> std::sync::MutexGuard<'_, Vec<(u64, Sender)>> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Delivers a notice to the stream `subscription` names, or, for a notification of a
    /// 2025-11-25 session (no subscription), to every listener of the session.
    pub(crate) fn deliver(&self, subscription: Option<&RequestId>, notice: Notice) {
        match subscription {
            Some(id) => {
                if let Some(sender) = self.by_id().get(id) {
                    let _ = sender.send(Some(notice));
                }
            }
            None => {
                for (_, sender) in self.session().iter() {
                    let _ = sender.send(Some(notice.clone()));
                }
            }
        }
    }

    /// The server ended stream `id` (stdio: a `notifications/cancelled` naming it).
    pub(crate) fn end(&self, id: &RequestId) {
        if let Some(sender) = self.by_id().remove(id) {
            let _ = sender.send(None);
        }
    }
}

/// A listen stream: see [`Client::listen`]. Dropping it ends the subscription.
pub struct Listening {
    client: Client,
    params: SubscriptionsListenRequestParams,
    /// The id the stream is listening under now.
    current: Arc<Mutex<Option<RequestId>>>,
    /// The key of a 2025-11-25 session's listener.
    session_key: Option<u64>,
    sender: Sender,
    notices: mpsc::UnboundedReceiver<Option<Notice>>,
    request: Option<BoxFuture<'static, Result<Box<RawValue>, ClientError>>>,
    relistened: usize,
    ended: bool,
}

impl std::fmt::Debug for Listening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listening").field("filter", &self.params.notifications).finish_non_exhaustive()
    }
}

impl Client {
    /// Listens for the changes `filter` asks for, until the returned stream is dropped.
    ///
    /// Over 2026-07-28 this is `subscriptions/listen`, opened again (with
    /// [`Notice::Relistened`]) when the connection drops; in a 2025-11-25 session, the
    /// session's own change notifications, with `resources/subscribe` for the resources the
    /// filter names. Changes also clear what the client cached of what changed.
    ///
    /// ```no_run
    /// use mcp_rounds::client::{Client, Notice};
    /// use mcp_rounds::model::SubscriptionFilter;
    ///
    /// # async fn run(client: Client) -> Result<(), mcp_rounds::client::ClientError> {
    /// let mut filter = SubscriptionFilter::default();
    /// filter.tools_list_changed = Some(true);
    /// let mut changes = client.listen(filter).await?;
    /// while let Some(notice) = changes.next().await {
    ///     if notice? == Notice::ToolsListChanged {
    ///         println!("{} tools now", client.list_all_tools().await?.len());
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Listening, ClientError> {
        let (sender, notices) = mpsc::unbounded_channel();
        let mut listening = Listening {
            client: self.clone(),
            params: SubscriptionsListenRequestParams { notifications: filter },
            current: Arc::default(),
            session_key: None,
            sender,
            notices,
            request: None,
            relistened: 0,
            ended: false,
        };
        if self.protocol().is_legacy() {
            listening.follow_session().await?;
        } else {
            listening.start();
        }
        Ok(listening)
    }
}

impl Listening {
    /// Sends `subscriptions/listen`; its id is registered before it goes out.
    fn start(&mut self) {
        let client = self.client.clone();
        let params = self.params.clone();
        let sender = self.sender.clone();
        let current = self.current.clone();
        self.request = Some(Box::pin(async move {
            let listeners = client.inner.listeners.clone();
            let register = move |id: &RequestId| {
                let old = current.lock().unwrap_or_else(PoisonError::into_inner).replace(id.clone());
                let mut by_id = listeners.by_id();
                if let Some(old) = old {
                    by_id.remove(&old);
                }
                by_id.insert(id.clone(), sender.clone());
            };
            client
                .send(Method::SubscriptionsListen, &params, Extras { on_id: Some(&register), ..Extras::default() })
                .await
        }));
    }

    /// A 2025-11-25 session: subscribe to the resources, and hear the session's changes.
    async fn follow_session(&mut self) -> Result<(), ClientError> {
        for uri in self.params.notifications.resource_subscriptions.iter().flatten() {
            let params = SubscribeRequestParams { uri: uri.clone() };
            self.client.send(Method::ResourcesSubscribe, &params, Extras::naming(Some(uri))).await?;
        }
        let listeners = &self.client.inner.listeners;
        let key = listeners.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        listeners.session().push((key, self.sender.clone()));
        self.session_key = Some(key);
        let mut agreed = self.params.notifications.clone();
        agreed.task_ids = None;
        let _ = self.sender.send(Some(Notice::Acknowledged(agreed)));
        Ok(())
    }

    /// The next change; `None` once the stream ended for good (the server ended it and did
    /// not take it back, or it could not be opened again).
    pub async fn next(&mut self) -> Option<Result<Notice, ClientError>> {
        if self.ended {
            return self.notices.try_recv().ok().flatten().map(Ok);
        }
        let Some(request) = self.request.as_mut() else {
            // A session's listener: changes until the connection ends.
            return match self.notices.recv().await {
                Some(Some(notice)) => Some(Ok(notice)),
                _ => None,
            };
        };
        tokio::select! {
            biased;
            notice = self.notices.recv() => match notice {
                Some(Some(notice)) => {
                    // It works again: a later drop gets the full number of attempts.
                    self.relistened = 0;
                    Some(Ok(notice))
                }
                // The server ended the stream.
                _ => {
                    self.ended = true;
                    self.request = None;
                    None
                }
            },
            ended = request => {
                self.request = None;
                // A server ends its streams gracefully when it goes away or loses what feeds
                // them: listen again, as after a dropped connection.
                let relisten = match &ended {
                    Ok(_) => true,
                    Err(error) => error.is_transport(),
                };
                if relisten && self.relistened < MAX_RELISTENS {
                    self.relistened += 1;
                    tokio::time::sleep(Duration::from_millis(50 << self.relistened)).await;
                    self.client.inner.cache.clear();
                    self.start();
                    return Some(Ok(Notice::Relistened));
                }
                self.ended = true;
                match ended {
                    Ok(_) => self.notices.try_recv().ok().flatten().map(Ok),
                    Err(error) => Some(Err(error)),
                }
            }
        }
    }

    /// The filter this stream asked for (what the server agreed to is its first notice).
    pub fn filter(&self) -> &SubscriptionFilter {
        &self.params.notifications
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let listeners = &self.client.inner.listeners;
        if let Some(id) = self.current.lock().unwrap_or_else(PoisonError::into_inner).take() {
            listeners.by_id().remove(&id);
        }
        if let Some(key) = self.session_key {
            listeners.session().retain(|(k, _)| *k != key);
        }
    }
}
