//! `subscriptions/listen`: one long-lived request whose response is a stream of change events.

use serde::{Deserialize, Serialize};

use super::{Complete, NotificationMeta, ResultMeta};

/// What a listener wants to hear about. Every field is opt-in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (the tasks extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// The parameters of `subscriptions/listen` (besides `_meta`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscriptionsListenRequestParams {
    /// The filter.
    pub notifications: SubscriptionFilter,
}

/// The first message of a listen stream: what the server agreed to deliver.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The accepted subset of the filter.
    pub notifications: SubscriptionFilter,
    /// Carries the subscription id.
    #[serde(rename = "_meta", default)]
    pub meta: NotificationMeta,
}

/// A change event without further parameters (the list-changed events).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscriptionEventParams {
    /// Carries the subscription id.
    #[serde(rename = "_meta", default)]
    pub meta: NotificationMeta,
}

/// `notifications/resources/updated`: read the resource again.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceUpdatedNotificationParams {
    /// The resource that changed.
    pub uri: String,
    /// Carries the subscription id.
    #[serde(rename = "_meta", default)]
    pub meta: NotificationMeta,
}

/// The result that ends a listen stream gracefully.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// Carries the subscription id (required) and serverInfo.
    #[serde(rename = "_meta")]
    pub meta: ResultMeta,
}
