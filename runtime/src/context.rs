//! What a handler knows about the request it serves: who is calling, what the client declared,
//! and whether the request is still wanted.

use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::changes::Changes;
use crate::extract::StateMap;
use crate::jsonrpc::{RequestId, encode_notification};
use crate::model::notifications::{MESSAGE, PROGRESS};
use crate::model::{
    ClientCapabilities, LoggingLevel, LoggingMessageNotificationParams, NotificationMeta, ProgressNotificationParams,
    RequestMeta,
};
use crate::rounds::RoundsConfig;

/// Who is calling, as established by the transport (a bearer token over HTTP, configuration
/// over stdio). Never taken from anything the client says about itself.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Principal(Option<Arc<str>>);

impl Principal {
    /// A named, authenticated principal.
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        Principal(Some(name.into()))
    }

    /// Nobody in particular: the transport authenticated no one.
    pub fn anonymous() -> Self {
        Principal(None)
    }

    /// The name, if authenticated.
    pub fn name(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// True for [`Principal::anonymous`].
    pub fn is_anonymous(&self) -> bool {
        self.0.is_none()
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(name) => write!(f, "Principal({name:?})"),
            None => f.write_str("Principal(anonymous)"),
        }
    }
}

impl Default for Principal {
    fn default() -> Self {
        Principal::anonymous()
    }
}

/// Where a request's notifications go (progress, log messages, listen events): the
/// transport's stream for that request.
#[derive(Clone, Debug)]
pub struct Notifier {
    sender: tokio::sync::mpsc::Sender<Vec<u8>>,
    // Closed when the request this stream belonged to was answered and its work went on (a
    // task): the client heard its answer, so nothing more is sent for that request.
    open: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl Notifier {
    /// Notifications are written to `sender`, one encoded JSON-RPC message each.
    pub fn new(sender: tokio::sync::mpsc::Sender<Vec<u8>>) -> Self {
        Notifier { sender, open: None }
    }

    /// The same stream, and the switch that stops this copy (and its clones) sending.
    pub(crate) fn gated(&self) -> (Notifier, Arc<std::sync::atomic::AtomicBool>) {
        let open = Arc::new(std::sync::atomic::AtomicBool::new(true));
        (Notifier { sender: self.sender.clone(), open: Some(open.clone()) }, open)
    }

    fn is_open(&self) -> bool {
        self.open.as_ref().is_none_or(|open| open.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Sends now if there is room; progress and logs are dropped rather than delay the work.
    pub(crate) fn try_send(&self, message: Vec<u8>) -> bool {
        self.is_open() && self.sender.try_send(message).is_ok()
    }

    /// Whether the stream is gone.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_closed(&self) -> bool {
        self.sender.is_closed() || !self.is_open()
    }

    /// Sends, waiting for room; `false` when the stream is gone.
    pub(crate) async fn send(&self, message: Vec<u8>) -> bool {
        self.is_open() && self.sender.send(message).await.is_ok()
    }
}

/// The request being served.
#[derive(Clone, Debug)]
pub struct RequestContext {
    id: RequestId,
    meta: Arc<RequestMeta>,
    principal: Principal,
    cancellation: CancellationToken,
    shared: Arc<Shared>,
    notifier: Option<Notifier>,
    shutdown: CancellationToken,
    // f64 bits of the last progress sent: progress only ever increases.
    progress: Arc<std::sync::atomic::AtomicU64>,
    // Set when this call may still become a task: `TaskScope::detach` flips it.
    task_detach: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// What every request of a server shares: registered state, the rounds configuration and
/// the change announcements.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub(crate) state: StateMap,
    pub(crate) rounds: RoundsConfig,
    pub(crate) changes: Changes,
    pub(crate) tasks: crate::tasks::TasksConfig,
}

impl RequestContext {
    pub(crate) fn new(
        id: RequestId,
        meta: RequestMeta,
        principal: Principal,
        cancellation: CancellationToken,
        shared: Arc<Shared>,
    ) -> Self {
        RequestContext {
            id,
            meta: Arc::new(meta),
            principal,
            cancellation,
            shared,
            notifier: None,
            shutdown: CancellationToken::new(),
            progress: Arc::new(std::sync::atomic::AtomicU64::new(f64::NEG_INFINITY.to_bits())),
            task_detach: None,
        }
    }

    /// The same request, cancelled by `token` instead (a task's own cancellation).
    pub(crate) fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// The same request with its notification stream gated (see [`Notifier::gated`]); the
    /// switch, when there is a stream.
    pub(crate) fn with_gated_stream(mut self) -> (Self, Option<Arc<std::sync::atomic::AtomicBool>>) {
        let Some(notifier) = self.notifier.take() else { return (self, None) };
        let (gated, open) = notifier.gated();
        self.notifier = Some(gated);
        (self, Some(open))
    }

    /// Marks the call as one that may still become a task.
    pub(crate) fn with_task_detach(mut self, flag: Option<Arc<std::sync::atomic::AtomicBool>>) -> Self {
        self.task_detach = flag;
        self
    }

    pub(crate) fn task_detach(&self) -> Option<Arc<std::sync::atomic::AtomicBool>> {
        self.task_detach.clone()
    }

    pub(crate) fn with_stream(mut self, notifier: Option<Notifier>, shutdown: CancellationToken) -> Self {
        self.notifier = notifier;
        self.shutdown = shutdown;
        self
    }

    /// A context for calling a handler directly in a unit test (no shared state).
    pub fn for_test(meta: RequestMeta, principal: Principal) -> Self {
        RequestContext::new(RequestId::number(0), meta, principal, CancellationToken::new(), Arc::default())
    }

    pub(crate) fn changes(&self) -> &Changes {
        &self.shared.changes
    }

    pub(crate) fn notifier(&self) -> Option<&Notifier> {
        self.notifier.as_ref()
    }

    /// Cancelled when the server shuts down: long-lived requests end gracefully.
    pub fn shutdown(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Reports progress, if the client asked for it with a `progressToken`. Values must
    /// increase; a value not above the last one sent is ignored. Never blocks: when the
    /// client reads slowly, progress is skipped rather than holding up the work.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let (Some(token), Some(notifier)) = (&self.meta.progress_token, &self.notifier) else { return };
        let last = f64::from_bits(self.progress.load(std::sync::atomic::Ordering::Relaxed));
        if progress.is_nan() || progress <= last {
            return;
        }
        self.progress.store(progress.to_bits(), std::sync::atomic::Ordering::Relaxed);
        let params = ProgressNotificationParams {
            progress_token: token.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
            meta: NotificationMeta::default(),
        };
        notifier.try_send(encode_notification(PROGRESS, &params));
    }

    /// Sends a log message, if the client opted in at this level or below for this request
    /// (deprecated feature). Keep secrets and user content out of log data.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: serde_json::Value) {
        let (Some(threshold), Some(notifier)) = (self.meta.log_level, &self.notifier) else { return };
        if level < threshold {
            return;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data,
            meta: NotificationMeta::default(),
        };
        notifier.try_send(encode_notification(MESSAGE, &params));
    }

    /// The JSON-RPC id of this request.
    pub fn request_id(&self) -> &RequestId {
        &self.id
    }

    /// The validated `_meta` of this request.
    pub fn meta(&self) -> &RequestMeta {
        &self.meta
    }

    /// What the client declared it can do, for this request only.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.meta.client_capabilities
    }

    /// Who is calling.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// Shared state of type `T`, if the server registered one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.shared.state.get::<T>()
    }

    pub(crate) fn rounds(&self) -> &RoundsConfig {
        &self.shared.rounds
    }

    /// Cancelled when the client cancels the request or goes away; long work should stop then.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }
}
