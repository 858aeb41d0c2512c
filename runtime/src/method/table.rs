//! The table: one entry per method. Nothing else in the crate spells a method's name.

use super::Capability::{Completions, Prompts, Resources, Skills, Tasks, Tools};
use super::Direction::{ClientNotification, Notification, ServerNotification};
use super::Facts;
use super::Revisions as R;
use super::Subject::{Prompt, Resource, Task, Tool};
use crate::model::{
    CallToolRequestParams, CallToolResult, CancelledNotificationParams, CompleteRequestParams, CompleteResult,
    CreateMessageRequestParams, CreateMessageResult, DetailedTask, DiscoverResult, ElicitRequestParams, ElicitResult,
    ElicitationCompleteNotificationParams, EmptyParams, EmptyResult, GetPromptRequestParams, GetPromptResult,
    GetSkillParams, GetSkillResult, InitializeRequestParams, InitializeResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListRootsRequestParams, ListRootsResult, ListSkillsResult,
    ListToolsResult, LoggingMessageNotificationParams, Outcome, PaginatedRequestParams, ProgressNotificationParams,
    ReadResourceDirectoryParams, ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResult,
    ResourceUpdatedNotificationParams, SetLevelRequestParams, SubscribeRequestParams, SubscriptionEventParams,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams, SubscriptionsListenResult, TaskAck,
    TaskIdParams, TaskNotificationParams, UpdateTaskParams,
};

/// Declares the methods: the [`Method`] enum with its names and facts, and a marker type per
/// method in [`typed`] that carries its parameters and result.
macro_rules! methods {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal, $params:ty => $result:ty, $facts:expr;
    )*) => {
        /// A method of the protocol, of either revision or of an extension the framework
        /// implements.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Method {
            $($(#[$doc])* $variant,)*
        }

        impl Method {
            /// Every method, in the table's order.
            pub const ALL: &'static [Method] = &[$(Method::$variant),*];

            /// Its name on the wire, e.g. `tools/call`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Method::$variant => $name,)*
                }
            }

            /// The method named `name`, if the table has it.
            #[inline]
            pub fn from_name(name: &str) -> Option<Method> {
                // A match on the text compiles to a switch on its length, then one comparison.
                match name {
                    $($name => Some(Method::$variant),)*
                    _ => None,
                }
            }

            pub(super) const fn facts(self) -> Facts {
                match self {
                    $(Method::$variant => $facts,)*
                }
            }
        }

        /// One marker type per method, carrying its parameters and result as [`Typed`]
        /// (`typed::ToolsCall`: [`CallToolRequestParams`] in, `Outcome<CallToolResult>` out).
        ///
        /// [`Typed`]: super::Typed
        pub mod typed {
            #[allow(unused_imports)] // each type is named only through the macro's arguments
            use super::*;

            $(
                $(#[$doc])*
                #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
                pub struct $variant;

                impl super::super::Typed for $variant {
                    const METHOD: Method = Method::$variant;
                    type Params = $params;
                    type Result = $result;
                }
            )*
        }
    };
}

methods! {
    /// `server/discover`: the versions, capabilities and instructions of a server.
    ServerDiscover = "server/discover", EmptyParams => DiscoverResult, Facts::request(R::CURRENT);
    /// `initialize`: opens a 2025-11-25 session.
    Initialize = "initialize", InitializeRequestParams => InitializeResult, Facts::request(R::LEGACY);
    /// `ping`.
    Ping = "ping", EmptyParams => EmptyResult, Facts::request(R::LEGACY);
    /// `tools/list`.
    ToolsList = "tools/list", PaginatedRequestParams => ListToolsResult, Facts::request(R::BOTH).offered_by(Tools);
    /// `tools/call`.
    ToolsCall = "tools/call", CallToolRequestParams => Outcome<CallToolResult>,
        Facts::request(R::BOTH).rounds().task().names(Tool).offered_by(Tools);
    /// `prompts/list`.
    PromptsList = "prompts/list", PaginatedRequestParams => ListPromptsResult,
        Facts::request(R::BOTH).offered_by(Prompts);
    /// `prompts/get`.
    PromptsGet = "prompts/get", GetPromptRequestParams => Outcome<GetPromptResult>,
        Facts::request(R::BOTH).rounds().names(Prompt).offered_by(Prompts);
    /// `resources/list`.
    ResourcesList = "resources/list", PaginatedRequestParams => ListResourcesResult,
        Facts::request(R::BOTH).offered_by(Resources);
    /// `resources/templates/list`.
    ResourcesTemplatesList = "resources/templates/list", PaginatedRequestParams => ListResourceTemplatesResult,
        Facts::request(R::BOTH).offered_by(Resources);
    /// `resources/read`.
    ResourcesRead = "resources/read", ReadResourceRequestParams => Outcome<ReadResourceResult>,
        Facts::request(R::BOTH).rounds().names(Resource).offered_by(Resources);
    /// `resources/subscribe`: follow a resource for the rest of a 2025-11-25 session.
    ResourcesSubscribe = "resources/subscribe", SubscribeRequestParams => EmptyResult,
        Facts::request(R::LEGACY).offered_by(Resources);
    /// `resources/unsubscribe`.
    ResourcesUnsubscribe = "resources/unsubscribe", SubscribeRequestParams => EmptyResult,
        Facts::request(R::LEGACY).offered_by(Resources);
    /// `logging/setLevel`: the level of a 2025-11-25 session's log messages.
    LoggingSetLevel = "logging/setLevel", SetLevelRequestParams => EmptyResult, Facts::request(R::LEGACY);
    /// `completion/complete`.
    CompletionComplete = "completion/complete", CompleteRequestParams => CompleteResult,
        Facts::request(R::BOTH).offered_by(Completions);
    /// `subscriptions/listen`: a stream of change events.
    SubscriptionsListen = "subscriptions/listen", SubscriptionsListenRequestParams => SubscriptionsListenResult,
        Facts::request(R::CURRENT);
    /// `tasks/get` (the tasks extension).
    TasksGet = "tasks/get", TaskIdParams => DetailedTask, Facts::request(R::BOTH).names(Task).offered_by(Tasks);
    /// `tasks/update` (the tasks extension): answers a task's rounds.
    TasksUpdate = "tasks/update", UpdateTaskParams => TaskAck, Facts::request(R::CURRENT).names(Task).offered_by(Tasks);
    /// `tasks/cancel` (the tasks extension).
    TasksCancel = "tasks/cancel", TaskIdParams => TaskAck, Facts::request(R::BOTH).names(Task).offered_by(Tasks);
    /// `tasks/result` of 2025-11-25's tasks (untyped: this framework does not serve it).
    TasksResult = "tasks/result", JsonObject => JsonObject, Facts::request(R::LEGACY);
    /// `tasks/list` of 2025-11-25's tasks (untyped: this framework does not serve it).
    TasksList = "tasks/list", JsonObject => JsonObject, Facts::request(R::LEGACY);
    /// `skills/list` (the skills extension).
    SkillsList = "skills/list", PaginatedRequestParams => ListSkillsResult, Facts::request(R::BOTH).offered_by(Skills);
    /// `skills/get` (the skills extension).
    SkillsGet = "skills/get", GetSkillParams => GetSkillResult, Facts::request(R::BOTH).offered_by(Skills);
    /// `resources/directory/read` (the skills extension).
    ResourcesDirectoryRead = "resources/directory/read", ReadResourceDirectoryParams => ReadResourceDirectoryResult,
        Facts::request(R::BOTH).offered_by(Skills);

    /// `elicitation/create`: a form or a URL for the user.
    ElicitationCreate = "elicitation/create", ElicitRequestParams => ElicitResult, Facts::input_request();
    /// `sampling/createMessage`: a completion from the client's model.
    SamplingCreateMessage = "sampling/createMessage", CreateMessageRequestParams => CreateMessageResult,
        Facts::input_request();
    /// `roots/list`: the client's roots.
    RootsList = "roots/list", ListRootsRequestParams => ListRootsResult, Facts::input_request();

    /// `notifications/cancelled`: stop work on a request (stdio), or a listen stream ended.
    NotificationsCancelled = "notifications/cancelled", CancelledNotificationParams => (),
        Facts::notification(Notification, R::BOTH);
    /// `notifications/progress`.
    NotificationsProgress = "notifications/progress", ProgressNotificationParams => (),
        Facts::notification(ServerNotification, R::BOTH);
    /// `notifications/message`: a log message.
    NotificationsMessage = "notifications/message", LoggingMessageNotificationParams => (),
        Facts::notification(ServerNotification, R::BOTH);
    /// `notifications/initialized`: a 2025-11-25 client's handshake is done.
    NotificationsInitialized = "notifications/initialized", EmptyParams => (),
        Facts::notification(ClientNotification, R::LEGACY);
    /// `notifications/roots/list_changed`: a 2025-11-25 client's roots changed.
    NotificationsRootsListChanged = "notifications/roots/list_changed", EmptyParams => (),
        Facts::notification(ClientNotification, R::LEGACY);
    /// `notifications/tools/list_changed`.
    NotificationsToolsListChanged = "notifications/tools/list_changed", SubscriptionEventParams => (),
        Facts::notification(ServerNotification, R::BOTH);
    /// `notifications/prompts/list_changed`.
    NotificationsPromptsListChanged = "notifications/prompts/list_changed", SubscriptionEventParams => (),
        Facts::notification(ServerNotification, R::BOTH);
    /// `notifications/resources/list_changed`.
    NotificationsResourcesListChanged = "notifications/resources/list_changed", SubscriptionEventParams => (),
        Facts::notification(ServerNotification, R::BOTH);
    /// `notifications/resources/updated`.
    NotificationsResourcesUpdated = "notifications/resources/updated", ResourceUpdatedNotificationParams => (),
        Facts::notification(ServerNotification, R::BOTH);
    /// `notifications/subscriptions/acknowledged`: what a listen stream will deliver.
    NotificationsSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged",
        SubscriptionsAcknowledgedNotificationParams => (), Facts::notification(ServerNotification, R::CURRENT);
    /// `notifications/tasks` (the tasks extension): a task's new state on a listen stream.
    NotificationsTasks = "notifications/tasks", TaskNotificationParams => (),
        Facts::notification(ServerNotification, R::CURRENT).offered_by(Tasks);
    /// `notifications/tasks/status` of 2025-11-25's tasks (untyped: this framework does not
    /// send it).
    NotificationsTasksStatus = "notifications/tasks/status", JsonObject => (),
        Facts::notification(ServerNotification, R::LEGACY);
    /// `notifications/elicitation/complete`: a URL-mode elicitation finished (2025-11-25).
    NotificationsElicitationComplete = "notifications/elicitation/complete", ElicitationCompleteNotificationParams => (),
        Facts::notification(ServerNotification, R::LEGACY);
}
