//! The client's event task: what the server sends besides answers. Changes go to the listen
//! streams and clear what the cache kept of what changed; progress goes to the call that asked
//! for it, or to the handler, as do log messages; a 2025-11-25 server's own requests are
//! answered by the handler, each as it comes, concurrently.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::ToolHeaders;
use super::cache::Cache;
use super::handler::{Asking, DynHandler};
use super::listen::{Listeners, Notice};
use super::message::Stamp;
use super::rounds::{Unanswerable, respond};
use super::transport::{ClientTransport, Event, EventQueue, Outbound, OutboundKind};
use crate::error::Error;
use crate::jsonrpc::{self, RequestId};
use crate::method::Method;
use crate::model::{
    CancelledNotificationParams, EmptyResult, InputRequest, NotificationMeta, ProgressNotificationParams,
    ProgressToken, ResourceUpdatedNotificationParams, SubscriptionsAcknowledgedNotificationParams,
    TaskNotificationParams,
};

/// Where the progress of each call that asked for it goes, by token.
pub(crate) type ProgressRoutes = Mutex<HashMap<ProgressToken, Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>>>;

/// What the event task needs: where answers go, who answers, and whom changes concern.
pub(crate) struct Events {
    pub(crate) transport: Arc<dyn ClientTransport>,
    pub(crate) handler: Arc<dyn DynHandler>,
    pub(crate) stamp: Stamp,
    pub(crate) cache: Arc<Cache>,
    pub(crate) listeners: Arc<Listeners>,
    pub(crate) progress: Arc<ProgressRoutes>,
    pub(crate) tool_headers: Arc<Mutex<Option<ToolHeaders>>>,
    /// How many requests of each method a 2025-11-25 server has sent.
    pub(crate) asked: Mutex<HashMap<String, usize>>,
    /// A permit for each of a 2025-11-25 server's requests the handler may answer at once.
    pub(crate) answering: Arc<tokio::sync::Semaphore>,
    /// How many permits there are.
    pub(crate) max_server_requests: usize,
}

#[derive(Deserialize)]
struct Scoped {
    #[serde(rename = "_meta", default)]
    meta: NotificationMeta,
}

impl Events {
    /// Runs until the connection ends.
    pub(crate) fn spawn(self, mut events: EventQueue) -> tokio::task::AbortHandle {
        let this = Arc::new(self);
        events.consume();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                match event {
                    Event::Notification { method, params } => this.notified(&method, params.as_deref()),
                    Event::Request { id, method, params } => match this.answering.clone().try_acquire_owned() {
                        Ok(permit) => {
                            let this = this.clone();
                            tokio::spawn(async move {
                                this.answer(id, &method, params).await;
                                drop(permit);
                            });
                        }
                        // Refused in turn, here: a flood of requests slows its own refusals
                        // down rather than spawning without end.
                        Err(_) => this.refuse(id, &method).await,
                    },
                    Event::Closed(error) => {
                        tracing::debug!(%error, "the connection to the server ended");
                        break;
                    }
                }
                events.handled();
            }
        })
        .abort_handle()
    }

    fn notified(&self, method: &str, params: Option<&RawValue>) {
        let params = params.map_or("{}", RawValue::get);
        let Some(method) = Method::from_name(method) else {
            return tracing::trace!(method, "a notification the client does not know");
        };
        let read =
            |what: &'static str| move |error: serde_json::Error| tracing::debug!(%error, "a {what} that does not read");
        match method {
            Method::NotificationsProgress => {
                let Ok(progress) = serde_json::from_str::<ProgressNotificationParams>(params).map_err(read("progress"))
                else {
                    return;
                };
                let route =
                    self.progress.lock().unwrap_or_else(PoisonError::into_inner).get(&progress.progress_token).cloned();
                match route {
                    Some(route) => route(progress),
                    None => self.handler.progress(progress),
                }
            }
            Method::NotificationsMessage => {
                if let Ok(message) = serde_json::from_str(params).map_err(read("log message")) {
                    self.handler.log(message);
                }
            }
            Method::NotificationsCancelled => {
                // On stdio, the server ends a listen stream this way.
                if let Ok(cancelled) = serde_json::from_str::<CancelledNotificationParams>(params) {
                    self.listeners.end(&cancelled.request_id);
                }
            }
            _ => {
                let Some(notice) = notice(method, params) else { return };
                self.forget(&notice);
                let scope = serde_json::from_str::<Scoped>(params).ok().and_then(|s| s.meta.subscription_id);
                self.listeners.deliver(scope.as_ref(), notice);
            }
        }
    }

    /// Clears what the cache kept of what changed.
    fn forget(&self, notice: &Notice) {
        match notice {
            Notice::ToolsListChanged => {
                self.cache.forget(Method::ToolsList);
                *self.tool_headers.lock().unwrap_or_else(PoisonError::into_inner) = None;
            }
            Notice::PromptsListChanged => self.cache.forget(Method::PromptsList),
            Notice::ResourcesListChanged => {
                self.cache.forget(Method::ResourcesList);
                self.cache.forget(Method::ResourcesTemplatesList);
            }
            Notice::ResourceUpdated { uri } => self.cache.forget_resource(uri),
            _ => {}
        }
    }

    /// Answers a 2025-11-25 server's request.
    async fn answer(&self, id: RequestId, method: &str, params: Option<Box<RawValue>>) {
        let body = match self.respond(method, params).await {
            Ok(body) => jsonrpc::encode_result(&id, &*body),
            Err(error) => jsonrpc::encode_error(Some(&id), &error),
        };
        self.send_answer(id, method, body).await;
    }

    async fn send_answer(&self, id: RequestId, method: &str, body: Vec<u8>) {
        let mut outbound = Outbound::new(body, OutboundKind::Response);
        outbound.headers = self.stamp.headers(method, None, Vec::new());
        if let Err(error) = self.transport.send(outbound).await {
            tracing::debug!(%error, %id, method, "cannot answer the server's request");
        }
    }

    /// Refuses a 2025-11-25 server's request while too many others wait for the handler.
    async fn refuse(&self, id: RequestId, method: &str) {
        let waiting = self.max_server_requests;
        tracing::debug!(%id, method, waiting, "a server request refused: too many wait for an answer");
        let error = Error::new(
            crate::error::ErrorCode::InternalError,
            format!("the client is already answering {waiting} of this server's requests: try again later"),
        );
        let body = jsonrpc::encode_error(Some(&id), &error);
        self.send_answer(id, method, body).await;
    }

    async fn respond(&self, method: &str, params: Option<Box<RawValue>>) -> Result<Box<RawValue>, Error> {
        match Method::from_name(method) {
            Some(Method::Ping) => to_raw(&EmptyResult::default()),
            Some(Method::ElicitationCreate | Method::SamplingCreateMessage | Method::RootsList) => {
                let params = params.as_deref().map_or("{}", RawValue::get);
                let embedded = format!(r#"{{"method":{},"params":{params}}}"#, serde_json::Value::from(method));
                let request: InputRequest = serde_json::from_str(&embedded)
                    .map_err(|e| Error::invalid_params(format!("the {method} params do not read: {e}")))?;
                let asking = Asking::new(format!("{method}#{}", self.count(method)), 1);
                match respond(&*self.handler, request, &asking).await {
                    Ok(response) => to_raw(&response),
                    Err(Unanswerable::Handler(error)) => Err(error),
                    Err(Unanswerable::Invalid(violation)) => Err(Error::internal_from(&violation)),
                }
            }
            _ => Err(Error::method_not_found(method)),
        }
    }
}

impl Events {
    /// How many requests of `method` the session has sent, this one included.
    fn count(&self, method: &str) -> usize {
        let mut counts = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        let count = counts.entry(method.to_owned()).or_insert(0);
        *count += 1;
        *count
    }
}

/// The change a notification announces.
fn notice(method: Method, params: &str) -> Option<Notice> {
    Some(match method {
        Method::NotificationsToolsListChanged => Notice::ToolsListChanged,
        Method::NotificationsPromptsListChanged => Notice::PromptsListChanged,
        Method::NotificationsResourcesListChanged => Notice::ResourcesListChanged,
        Method::NotificationsResourcesUpdated => {
            let updated: ResourceUpdatedNotificationParams = serde_json::from_str(params).ok()?;
            Notice::ResourceUpdated { uri: updated.uri }
        }
        Method::NotificationsSubscriptionsAcknowledged => {
            let acknowledged: SubscriptionsAcknowledgedNotificationParams = serde_json::from_str(params).ok()?;
            Notice::Acknowledged(acknowledged.notifications)
        }
        Method::NotificationsTasks => {
            Notice::Task(Box::new(serde_json::from_str::<TaskNotificationParams>(params).ok()?))
        }
        _ => return None,
    })
}

fn to_raw<T: serde::Serialize>(value: &T) -> Result<Box<RawValue>, Error> {
    serde_json::value::to_raw_value(value).map_err(|e| Error::internal_from(&e))
}
