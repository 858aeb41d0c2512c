//! A deadline for every call: past it, the handler is dropped and the call answered with the
//! error the revision gives for it, while the server goes on answering everything else.

use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::json;

use crate::dispatch::{BoxError, McpRequest, McpResponse, Reply};
use crate::error::{Error, ErrorCode};
use crate::future::BoxFuture;
use crate::method::Method;
use crate::model::CallToolResult;

/// Ends calls that run longer than a deadline.
///
/// A `tools/call` past the deadline is answered with a tool error (`isError`), which the model
/// reads and can act on (ask for less, try later): the revision's way of reporting that a tool
/// failed. Any other method gets -32603 with `data.timeoutMs`. The handler's future is
/// dropped, which ends its work and rolls back a single-use claim it held.
/// `subscriptions/listen` streams, which are meant to stay open, are not timed.
#[derive(Clone, Copy, Debug)]
pub struct TimeoutLayer {
    limit: Duration,
}

impl TimeoutLayer {
    /// Calls end after `limit`.
    pub fn new(limit: Duration) -> Self {
        TimeoutLayer { limit }
    }
}

impl<S> tower::Layer<S> for TimeoutLayer {
    type Service = Timeout<S>;

    fn layer(&self, inner: S) -> Timeout<S> {
        Timeout { inner, limit: self.limit }
    }
}

/// The service of [`TimeoutLayer`].
#[derive(Clone, Debug)]
pub struct Timeout<S> {
    inner: S,
    limit: Duration,
}

impl<S> tower::Service<McpRequest> for Timeout<S>
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
        let id = request.id().clone();
        let tool = request.known_method() == Some(Method::ToolsCall);
        // A listen stream lasts as long as its client listens.
        let timed = request.known_method() != Some(Method::SubscriptionsListen);
        let limit = self.limit;
        let answering = self.inner.call(request);
        Box::pin(async move {
            if !timed {
                return answering.await.map_err(Into::into);
            }
            match tokio::time::timeout(limit, answering).await {
                Ok(answered) => answered.map_err(Into::into),
                Err(_) => {
                    tracing::warn!(%id, limit = %humantime::format_duration(limit), "call timed out");
                    Ok(McpResponse::new(id, timed_out(tool, limit)))
                }
            }
        })
    }
}

/// What a call that ran past `limit` is answered with.
fn timed_out(tool: bool, limit: Duration) -> Reply {
    let within = humantime::format_duration(limit);
    if tool {
        return CallToolResult::error(format!("The tool did not finish within {within}; it was stopped")).into();
    }
    let millis = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
    Reply::Error(
        Error::new(ErrorCode::InternalError, format!("The request did not finish within {within}"))
            .with_data(json!({ "timeoutMs": millis })),
    )
}
