//! `subscriptions/listen`: acknowledge the accepted part of the filter, then deliver the
//! matching change events, each tagged with the listen request's id, until the client goes
//! away, the server shuts down, or the listener falls too far behind (then the stream ends
//! with a result, and the client listens again).

use tokio::sync::broadcast::error::RecvError;

use super::Dispatch;
use crate::changes::{ChangeEvent, Signal};
use crate::context::RequestContext;
use crate::error::Error;
use crate::jsonrpc::{RequestId, encode_notification};
use crate::method::Method;
use crate::model::{
    NotificationMeta, ResourceUpdatedNotificationParams, ResultMeta, SubscriptionEventParams, SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenResult, TASKS_EXTENSION, TaskNotificationParams,
};
use crate::registry::Registry;
use crate::uri::covers;

/// The part of `filter` this server can honour: kinds it offers, and URIs of resources it has
/// that this caller may follow.
fn accept(registry: &Registry, filter: &SubscriptionFilter, context: &RequestContext) -> SubscriptionFilter {
    let wanted = |flag: Option<bool>, offered: bool| (flag == Some(true) && offered).then_some(true);
    let uris: Vec<String> = filter
        .resource_subscriptions
        .iter()
        .flatten()
        .filter(|uri| {
            crate::uri::normalize(uri).is_some_and(|normalized| {
                registry.resources.serves(&normalized) && (registry.subscriptions)(context, &normalized)
            })
        })
        .cloned()
        .collect();
    SubscriptionFilter {
        tools_list_changed: wanted(filter.tools_list_changed, registry.capabilities.tools.is_some()),
        prompts_list_changed: wanted(filter.prompts_list_changed, registry.capabilities.prompts.is_some()),
        resources_list_changed: wanted(filter.resources_list_changed, registry.capabilities.resources.is_some()),
        resource_subscriptions: (!uris.is_empty()).then_some(uris),
        task_ids: None,
    }
}

/// Serves one listen stream to its end; the result closes it.
pub(crate) async fn listen(
    dispatch: &Dispatch,
    id: &RequestId,
    filter: SubscriptionFilter,
    context: RequestContext,
) -> Result<SubscriptionsListenResult, Error> {
    let registry = &dispatch.registry;
    let Some(notifier) = context.notifier().cloned() else {
        tracing::error!("a listen stream reached a transport without a notification stream");
        return Err(Error::internal());
    };
    // Following a resource is reading it: a subscription needs the resource's scopes.
    for uri in filter.resource_subscriptions.iter().flatten() {
        if let Some(found) = crate::uri::normalize(uri).and_then(|uri| registry.resources.find(&uri).map(|f| f.route)) {
            context.principal().require_scopes(&found.scopes)?;
        }
    }
    let mut accepted = accept(registry, &filter, &context);
    // Tasks: only the caller's own, and only with the extension declared on this request. A
    // server without tasks honours none, like any other kind it does not offer.
    if let Some(ids) = filter.task_ids.as_ref().filter(|ids| !ids.is_empty() && registry.runs_tasks()) {
        if !context.client_capabilities().supports_extension(TASKS_EXTENSION) {
            return Err(super::tasks::required());
        }
        let mut visible = Vec::new();
        for task_id in ids {
            if dispatch.tasks.visible(&context, task_id).await.is_some() && !visible.contains(task_id) {
                visible.push(task_id.clone());
            }
        }
        accepted.task_ids = (!visible.is_empty()).then_some(visible);
    }
    let subscribed: Vec<String> = accepted
        .resource_subscriptions
        .iter()
        .flatten()
        .map(|u| crate::uri::normalize(u).unwrap_or_else(|| u.clone()))
        .collect();
    let tagged = || NotificationMeta { subscription_id: Some(id.clone()), ..Default::default() };
    // Subscribe before acknowledging, so no event after the acknowledgement is missed.
    let mut events = context.changes().subscribe();
    let ack = SubscriptionsAcknowledgedNotificationParams { notifications: accepted.clone(), meta: tagged() };
    if !notifier.send(encode_notification(Method::NotificationsSubscriptionsAcknowledged, &ack)).await {
        return Err(Error::internal());
    }
    let _open = crate::telemetry::ListenStream::open();
    loop {
        let event = tokio::select! {
            biased;
            () = context.cancellation().cancelled() => return Err(Error::internal()),
            () = context.shutdown().cancelled() => break,
            event = events.recv() => event,
        };
        let event = match event {
            Ok(Signal::Event(event, _)) => Ok(event),
            Ok(Signal::Resync) => {
                tracing::debug!(%id, "events may have been missed; ending the stream so its client re-reads");
                break;
            }
            Err(e) => Err(e),
        };
        let message = match event {
            Ok(ChangeEvent::ToolsListChanged) if accepted.tools_list_changed == Some(true) => {
                encode_notification(Method::NotificationsToolsListChanged, &SubscriptionEventParams { meta: tagged() })
            }
            Ok(ChangeEvent::PromptsListChanged) if accepted.prompts_list_changed == Some(true) => encode_notification(
                Method::NotificationsPromptsListChanged,
                &SubscriptionEventParams { meta: tagged() },
            ),
            Ok(ChangeEvent::ResourcesListChanged) if accepted.resources_list_changed == Some(true) => {
                encode_notification(
                    Method::NotificationsResourcesListChanged,
                    &SubscriptionEventParams { meta: tagged() },
                )
            }
            Ok(ChangeEvent::ResourceUpdated(uri)) if subscribed.iter().any(|s| covers(s, &uri)) => encode_notification(
                Method::NotificationsResourcesUpdated,
                &ResourceUpdatedNotificationParams { uri: uri.to_string(), meta: tagged() },
            ),
            Ok(ChangeEvent::TaskUpdated(task_id)) if accepted.task_ids.iter().flatten().any(|t| **t == *task_id) => {
                // The task as it is now (a later change may have overtaken this event).
                let Some(task) = dispatch.tasks.visible(&context, &task_id).await else { continue };
                encode_notification(Method::NotificationsTasks, &TaskNotificationParams::new(task, tagged()))
            }
            Ok(_) => continue,
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!(%id, missed, "listener fell behind; ending its stream so it re-reads");
                break;
            }
            Err(RecvError::Closed) => break,
        };
        if !notifier.send(message).await {
            // The stream is gone: nobody to answer.
            return Err(Error::internal());
        }
    }
    Ok(SubscriptionsListenResult {
        meta: ResultMeta { subscription_id: Some(id.clone()), ..Default::default() },
        ..Default::default()
    })
}
