//! Accepting connections and serving each with HTTP/1.1.
//!
//! `axum::serve` first reads a connection's opening bytes to tell HTTP/1.1 from HTTP/2, then
//! hands them to hyper, whose first read thus ends mid-head; its read buffer then doubles to
//! 16 KiB, and keeps that size for as long as the connection lives. It also rebuilds the
//! router's route table for every connection. A listen stream is one connection held open
//! and idle, so both were paid per stream, more than everything the stream itself holds. This
//! endpoint speaks HTTP/1.1 only, so it asks hyper for just that, and shares one router.

use std::future::Future;
use std::io;
use std::pin::pin;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long a stopping endpoint keeps answering on its open connections (see
/// [`Http::drain`](super::Http::drain)).
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(1);

/// Serves `router` on every connection `listener` accepts until `shutdown` completes; then
/// stops accepting, keeps answering on the open connections for `drain` (a request a proxy sent
/// on a kept-alive connection just as the shutdown began is answered, not cut: closing an idle
/// connection races a request already on its way), lets each finish what it is answering, and
/// returns once all have closed.
pub(super) async fn serve(listener: TcpListener, router: Router, shutdown: impl Future<Output = ()>, drain: Duration) {
    let closing = CancellationToken::new();
    let connections = TaskTracker::new();
    let builder = http1::Builder::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    refused(e).await;
                    continue;
                }
            },
        };
        let connection = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(router.clone()));
        let closing = closing.clone();
        connections.spawn(async move {
            let mut connection = pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                () = closing.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(e) = served {
                tracing::trace!(error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    connections.close();
    tokio::select! {
        () = tokio::time::sleep(drain) => {}
        () = connections.wait() => {}
    }
    closing.cancel();
    connections.wait().await;
}

/// A connection the client gave up on before it was accepted costs nothing; anything else
/// (running out of file descriptors, typically) is logged, and accepting pauses a moment
/// rather than spin while nothing can be accepted.
async fn refused(e: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(e.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset) {
        return;
    }
    tracing::error!(error = %e, "cannot accept a connection");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
