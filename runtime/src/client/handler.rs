//! What a client answers when a server asks: one trait for both revisions, whether the
//! request came embedded in an `input_required` result or, in a 2025-11-25 session, as a
//! request of the server's own.

use std::future::Future;

use crate::error::Error;
use crate::future::BoxFuture;
use crate::method::Method;
use crate::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ListRootsResult,
    LoggingMessageNotificationParams, ProgressNotificationParams, Task,
};

/// Answers what a server asks of the client: forms and URLs (elicitation), model completions
/// (sampling) and the roots. Every method has a default, which refuses (or, for
/// notifications, ignores); implement those the client declares capabilities for.
///
/// A form's answer has its schema's defaults filled in and is checked against the schema
/// before it is sent (with the validator the server uses), so an `accept` may leave out the
/// fields that have defaults.
///
/// ```
/// use mcp_rounds::client::ClientHandler;
/// use mcp_rounds::model::{ElicitRequestParams, ElicitResult};
///
/// struct AlwaysYes;
///
/// impl ClientHandler for AlwaysYes {
///     async fn elicit(&self, request: ElicitRequestParams) -> Result<ElicitResult, mcp_rounds::Error> {
///         let _ = request;
///         Ok(ElicitResult::accept(Some(serde_json::Map::new())))
///     }
/// }
/// ```
pub trait ClientHandler: Send + Sync + 'static {
    /// `elicitation/create`: a form to fill in, or a URL to open.
    fn elicit(&self, request: ElicitRequestParams) -> impl Future<Output = Result<ElicitResult, Error>> + Send {
        let _ = request;
        async { Err(Error::method_not_found(Method::ElicitationCreate.name())) }
    }

    /// `sampling/createMessage`: a completion from the client's model.
    fn create_message(
        &self,
        request: CreateMessageRequestParams,
    ) -> impl Future<Output = Result<CreateMessageResult, Error>> + Send {
        let _ = request;
        async { Err(Error::method_not_found(Method::SamplingCreateMessage.name())) }
    }

    /// `roots/list`: the client's roots.
    fn list_roots(&self) -> impl Future<Output = Result<ListRootsResult, Error>> + Send {
        async { Err(Error::method_not_found(Method::RootsList.name())) }
    }

    /// `notifications/progress` for a request that asked for progress.
    fn progress(&self, progress: ProgressNotificationParams) {
        let _ = progress;
    }

    /// `notifications/message`: a log message.
    fn log(&self, message: LoggingMessageNotificationParams) {
        let _ = message;
    }

    /// A task the server made of a call (the tasks extension), each time the client learns
    /// its state: working, waiting for input, or ended.
    fn task(&self, task: &Task) {
        let _ = task;
    }
}

/// Answers nothing: every request refused, every notification ignored.
impl ClientHandler for () {}

/// A handler shared with the rest of the application (its state read elsewhere).
impl<H: ClientHandler> ClientHandler for std::sync::Arc<H> {
    fn elicit(&self, request: ElicitRequestParams) -> impl Future<Output = Result<ElicitResult, Error>> + Send {
        (**self).elicit(request)
    }

    fn create_message(
        &self,
        request: CreateMessageRequestParams,
    ) -> impl Future<Output = Result<CreateMessageResult, Error>> + Send {
        (**self).create_message(request)
    }

    fn list_roots(&self) -> impl Future<Output = Result<ListRootsResult, Error>> + Send {
        (**self).list_roots()
    }

    fn progress(&self, progress: ProgressNotificationParams) {
        (**self).progress(progress);
    }

    fn log(&self, message: LoggingMessageNotificationParams) {
        (**self).log(message);
    }

    fn task(&self, task: &Task) {
        (**self).task(task);
    }
}

/// [`ClientHandler`] with boxed futures, so that the client can hold any handler.
pub(crate) trait DynHandler: Send + Sync + 'static {
    fn elicit(&self, request: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, Error>>;
    fn create_message(&self, request: CreateMessageRequestParams) -> BoxFuture<'_, Result<CreateMessageResult, Error>>;
    fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult, Error>>;
    fn progress(&self, progress: ProgressNotificationParams);
    fn log(&self, message: LoggingMessageNotificationParams);
    fn task(&self, task: &Task);
}

impl<H: ClientHandler> DynHandler for H {
    fn elicit(&self, request: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, Error>> {
        Box::pin(ClientHandler::elicit(self, request))
    }

    fn create_message(&self, request: CreateMessageRequestParams) -> BoxFuture<'_, Result<CreateMessageResult, Error>> {
        Box::pin(ClientHandler::create_message(self, request))
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult, Error>> {
        Box::pin(ClientHandler::list_roots(self))
    }

    fn progress(&self, progress: ProgressNotificationParams) {
        ClientHandler::progress(self, progress);
    }

    fn log(&self, message: LoggingMessageNotificationParams) {
        ClientHandler::log(self, message);
    }

    fn task(&self, task: &Task) {
        ClientHandler::task(self, task);
    }
}
