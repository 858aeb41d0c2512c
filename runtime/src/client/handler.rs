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
/// Each request comes with [`Asking`]: the key its answer goes under and the round, for a
/// handler that answers from a script or shows the user where a call is.
///
/// ```
/// use mcp_rounds::client::{Asking, ClientHandler};
/// use mcp_rounds::model::{ElicitRequestParams, ElicitResult};
///
/// struct AlwaysYes;
///
/// impl ClientHandler for AlwaysYes {
///     async fn elicit(&self, request: ElicitRequestParams, asking: &Asking) -> Result<ElicitResult, mcp_rounds::Error> {
///         let _ = (request, asking);
///         Ok(ElicitResult::accept(Some(serde_json::Map::new())))
///     }
/// }
/// ```
pub trait ClientHandler: Send + Sync + 'static {
    /// `elicitation/create`: a form to fill in, or a URL to open.
    fn elicit(
        &self,
        request: ElicitRequestParams,
        asking: &Asking,
    ) -> impl Future<Output = Result<ElicitResult, Error>> + Send {
        let _ = (request, asking);
        async { Err(Error::method_not_found(Method::ElicitationCreate.name())) }
    }

    /// `sampling/createMessage`: a completion from the client's model.
    fn create_message(
        &self,
        request: CreateMessageRequestParams,
        asking: &Asking,
    ) -> impl Future<Output = Result<CreateMessageResult, Error>> + Send {
        let _ = (request, asking);
        async { Err(Error::method_not_found(Method::SamplingCreateMessage.name())) }
    }

    /// `roots/list`: the client's roots.
    fn list_roots(&self, asking: &Asking) -> impl Future<Output = Result<ListRootsResult, Error>> + Send {
        let _ = asking;
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

/// What the server is asking for, besides the request itself.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Asking {
    /// The key the answer goes under: the server's key in an `input_required` round; for a
    /// 2025-11-25 server's own request, `<method>#<n>`, the n-th request of that method the
    /// session has sent (from 1).
    pub key: String,
    /// Which round of the call asks it: 1 for the first `input_required` (a 2025-11-25
    /// server's requests: 1).
    pub round: usize,
}

impl Asking {
    /// The request under `key`, in `round`.
    pub fn new(key: impl Into<String>, round: usize) -> Self {
        Asking { key: key.into(), round }
    }
}

/// Answers nothing: every request refused, every notification ignored.
impl ClientHandler for () {}

/// A handler shared with the rest of the application (its state read elsewhere).
impl<H: ClientHandler> ClientHandler for std::sync::Arc<H> {
    fn elicit(
        &self,
        request: ElicitRequestParams,
        asking: &Asking,
    ) -> impl Future<Output = Result<ElicitResult, Error>> + Send {
        (**self).elicit(request, asking)
    }

    fn create_message(
        &self,
        request: CreateMessageRequestParams,
        asking: &Asking,
    ) -> impl Future<Output = Result<CreateMessageResult, Error>> + Send {
        (**self).create_message(request, asking)
    }

    fn list_roots(&self, asking: &Asking) -> impl Future<Output = Result<ListRootsResult, Error>> + Send {
        (**self).list_roots(asking)
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
    fn elicit<'a>(
        &'a self,
        request: ElicitRequestParams,
        asking: &'a Asking,
    ) -> BoxFuture<'a, Result<ElicitResult, Error>>;
    fn create_message<'a>(
        &'a self,
        request: CreateMessageRequestParams,
        asking: &'a Asking,
    ) -> BoxFuture<'a, Result<CreateMessageResult, Error>>;
    fn list_roots<'a>(&'a self, asking: &'a Asking) -> BoxFuture<'a, Result<ListRootsResult, Error>>;
    fn progress(&self, progress: ProgressNotificationParams);
    fn log(&self, message: LoggingMessageNotificationParams);
    fn task(&self, task: &Task);
}

impl<H: ClientHandler> DynHandler for H {
    fn elicit<'a>(
        &'a self,
        request: ElicitRequestParams,
        asking: &'a Asking,
    ) -> BoxFuture<'a, Result<ElicitResult, Error>> {
        Box::pin(ClientHandler::elicit(self, request, asking))
    }

    fn create_message<'a>(
        &'a self,
        request: CreateMessageRequestParams,
        asking: &'a Asking,
    ) -> BoxFuture<'a, Result<CreateMessageResult, Error>> {
        Box::pin(ClientHandler::create_message(self, request, asking))
    }

    fn list_roots<'a>(&'a self, asking: &'a Asking) -> BoxFuture<'a, Result<ListRootsResult, Error>> {
        Box::pin(ClientHandler::list_roots(self, asking))
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
