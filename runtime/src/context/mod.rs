//! What a handler knows about the request it serves: who is calling, what the client declared,
//! and whether the request is still wanted.

mod notifier;
mod principal;
mod shared;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;

#[cfg(feature = "http")]
pub(crate) use notifier::Notes;
pub use notifier::Notifier;
pub use principal::{Principal, is_scope_token};
pub(crate) use shared::{RoundsConfig, Shared, StateMap};

use crate::changes::Changes;
use crate::jsonrpc::encode_notification;
use crate::method::Method;
use crate::model::{
    ClientCapabilities, LoggingLevel, LoggingMessageNotificationParams, NotificationMeta, ProgressNotificationParams,
    RequestId, RequestMeta,
};
use crate::telemetry::Trace;

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
    // f64 bits of the last progress sent: progress only ever increases. Only a request whose
    // client asked for progress has one (most do not: nothing is allocated for them).
    progress: Option<Arc<AtomicU64>>,
    // Set when this call may still become a task: `TaskScope::detach` flips it.
    task_detach: Option<Arc<AtomicBool>>,
    // What the server's layers attached to the request; most requests carry none, and then
    // nothing is allocated for them.
    extensions: Option<Arc<http::Extensions>>,
    // The request's server span: the round machinery records on it.
    trace: Trace,
}

/// A token nobody cancels: the shutdown of a request that no listen stream could outlive,
/// shared rather than made anew for each request.
fn never() -> CancellationToken {
    static NEVER: std::sync::OnceLock<CancellationToken> = std::sync::OnceLock::new();
    NEVER.get_or_init(CancellationToken::new).clone()
}

impl RequestContext {
    pub(crate) fn new(
        id: RequestId,
        meta: impl Into<Arc<RequestMeta>>,
        principal: Principal,
        cancellation: CancellationToken,
        shared: Arc<Shared>,
    ) -> Self {
        let meta = meta.into();
        let progress = meta.progress_token.is_some().then(|| Arc::new(AtomicU64::new(f64::NEG_INFINITY.to_bits())));
        RequestContext {
            id,
            meta,
            principal,
            cancellation,
            shared,
            notifier: None,
            shutdown: never(),
            progress,
            task_detach: None,
            extensions: None,
            trace: Trace::default(),
        }
    }

    /// The same request, observed in `trace` (its server span).
    pub(crate) fn with_trace(mut self, trace: Trace) -> Self {
        self.trace = trace;
        self
    }

    /// The request's server span (disabled when nobody observes the request).
    pub(crate) fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The same request, cancelled by `token` instead (a task's own cancellation).
    pub(crate) fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// The same request with its notification stream gated (see [`Notifier::gated`]); the
    /// switch, when there is a stream.
    pub(crate) fn with_gated_stream(mut self) -> (Self, Option<Arc<AtomicBool>>) {
        let Some(notifier) = self.notifier.take() else { return (self, None) };
        let (gated, open) = notifier.gated();
        self.notifier = Some(gated);
        (self, Some(open))
    }

    /// Marks the call as one that may still become a task.
    pub(crate) fn with_task_detach(mut self, flag: Option<Arc<AtomicBool>>) -> Self {
        self.task_detach = flag;
        self
    }

    pub(crate) fn task_detach(&self) -> Option<Arc<AtomicBool>> {
        self.task_detach.clone()
    }

    /// The same request, with what the layers attached to it.
    pub(crate) fn with_extensions(mut self, extensions: http::Extensions) -> Self {
        self.extensions = (!extensions.is_empty()).then(|| Arc::new(extensions));
        self
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
        let (Some(token), Some(notifier), Some(sent)) = (&self.meta.progress_token, &self.notifier, &self.progress)
        else {
            return;
        };
        let last = f64::from_bits(sent.load(Ordering::Relaxed));
        if progress.is_nan() || progress <= last {
            return;
        }
        sent.store(progress.to_bits(), Ordering::Relaxed);
        let params = ProgressNotificationParams {
            progress_token: token.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
            meta: NotificationMeta::default(),
        };
        notifier.try_send(encode_notification(Method::NotificationsProgress, &params));
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
        notifier.try_send(encode_notification(Method::NotificationsMessage, &params));
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

    /// Whether this request's client renders MCP Apps views (it declares the extension with
    /// their MIME type): a tool can then keep its text short and leave the detail to the view.
    /// A 2025-11-25 client declares it once, in `initialize`.
    pub fn renders_apps(&self) -> bool {
        self.meta.client_capabilities.renders_apps()
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

    /// What the server's layers attached to the request (see
    /// [`McpRequest::extensions_mut`](crate::dispatch::McpRequest::extensions_mut)).
    pub fn extensions(&self) -> &http::Extensions {
        static NONE: std::sync::LazyLock<http::Extensions> = std::sync::LazyLock::new(http::Extensions::new);
        self.extensions.as_deref().unwrap_or(&NONE)
    }

    /// Cancelled when the client cancels the request or goes away; long work should stop then.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }
}
