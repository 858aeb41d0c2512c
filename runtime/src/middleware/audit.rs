//! An audit log: one record per request, saying who called what and how it ended, and never
//! what was sent (arguments, answers and state stay out of it).

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::context::Principal;
use crate::dispatch::{BoxError, McpRequest, McpResponse, Reply};
use crate::future::BoxFuture;
use crate::model::RequestId;

/// One audited request.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AuditRecord {
    /// Who called, as the transport authenticated them.
    pub principal: Principal,
    /// The method.
    pub method: String,
    /// What it named: the tool, the prompt, or the resource's URI.
    pub target: Option<String>,
    /// The request's id.
    pub request_id: RequestId,
    /// How it ended.
    pub outcome: AuditOutcome,
    /// How long it took.
    pub duration: Duration,
}

/// How an audited request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditOutcome {
    /// A complete result.
    Completed,
    /// A tool answered with its own failure (`isError`).
    ToolError,
    /// It asked the client for input.
    InputRequired,
    /// It went on as a task.
    Task,
    /// A JSON-RPC error, with its code.
    Error(i32),
    /// The client cancelled it or went away before it was answered.
    Cancelled,
}

impl AuditOutcome {
    fn of(reply: &Reply) -> Self {
        match reply {
            Reply::Error(error) => AuditOutcome::Error(error.code().code()),
            Reply::InputRequired(_) => AuditOutcome::InputRequired,
            Reply::Task(_) => AuditOutcome::Task,
            _ if reply.is_tool_error() => AuditOutcome::ToolError,
            _ => AuditOutcome::Completed,
        }
    }
}

type AuditSink = Arc<dyn Fn(&AuditRecord) + Send + Sync>;

/// Hands an [`AuditRecord`] of every request to a sink when it ends: put it outermost to see
/// every request, refused ones included.
#[derive(Clone)]
pub struct AuditLayer {
    sink: AuditSink,
}

impl std::fmt::Debug for AuditLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLayer").finish_non_exhaustive()
    }
}

impl AuditLayer {
    /// Records go to `sink` (a file, a queue, a database), called once per request.
    pub fn new(sink: impl Fn(&AuditRecord) + Send + Sync + 'static) -> Self {
        AuditLayer { sink: Arc::new(sink) }
    }

    /// Records become `tracing` events at level INFO with target `mcp_rounds::audit`.
    pub fn tracing() -> Self {
        AuditLayer::new(|record| {
            tracing::info!(
                target: "mcp_rounds::audit",
                principal = record.principal.name().unwrap_or("anonymous"),
                method = %record.method,
                target_name = record.target.as_deref().unwrap_or(""),
                request_id = %record.request_id,
                outcome = ?record.outcome,
                duration_ms = record.duration.as_secs_f64() * 1000.0,
                "request",
            );
        })
    }
}

impl<S> tower::Layer<S> for AuditLayer {
    type Service = Audit<S>;

    fn layer(&self, inner: S) -> Audit<S> {
        Audit { inner, sink: self.sink.clone() }
    }
}

/// The service of [`AuditLayer`].
#[derive(Clone)]
pub struct Audit<S> {
    inner: S,
    sink: AuditSink,
}

impl<S> std::fmt::Debug for Audit<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Audit").finish_non_exhaustive()
    }
}

/// Writes the record when the request ends, however it ends: dropped before its answer, it is
/// recorded as cancelled.
struct Pending {
    record: Option<AuditRecord>,
    started: Instant,
    sink: AuditSink,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(mut record) = self.record.take() {
            record.duration = self.started.elapsed();
            (self.sink)(&record);
        }
    }
}

impl<S> tower::Service<McpRequest> for Audit<S>
where
    S: tower::Service<McpRequest, Response = McpResponse>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let record = AuditRecord {
            principal: request.principal().clone(),
            method: request.method().to_owned(),
            target: request.target().map(str::to_owned),
            request_id: request.id().clone(),
            outcome: AuditOutcome::Cancelled,
            duration: Duration::ZERO,
        };
        let mut pending = Pending { record: Some(record), started: Instant::now(), sink: self.sink.clone() };
        let answering = self.inner.call(request);
        Box::pin(async move {
            let answered = answering.await.map_err(Into::into);
            if let Some(record) = &mut pending.record {
                record.outcome = match &answered {
                    Ok(response) => AuditOutcome::of(response.reply()),
                    // What the server answers a failed layer with.
                    Err(error) => AuditOutcome::Error(
                        error
                            .downcast_ref::<crate::Error>()
                            .map_or(crate::ErrorCode::InternalError, |e| e.code())
                            .code(),
                    ),
                };
            }
            drop(pending);
            answered
        })
    }
}
