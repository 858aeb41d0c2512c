//! Boxed futures and panic capture: the two future helpers every layer shares.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A boxed, sendable future: what the framework's object-safe traits return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// `Box::pin` with the type the generated code names.
pub fn boxed<'a, T>(future: impl Future<Output = T> + Send + 'a) -> BoxFuture<'a, T> {
    Box::pin(future)
}

/// A future that is usually ready at once: then it is only its value, and the future it
/// stands for is never made; when it must wait, that future is boxed. A caller that awaits one
/// holds a few words across the await rather than the largest future it might have waited for
/// (generated code awaits these on every call).
#[doc(hidden)]
pub enum Quick<'a, T> {
    /// Ready with its value.
    Ready(std::future::Ready<T>),
    /// Waiting on boxed work.
    Waiting(BoxFuture<'a, T>),
}

impl<'a, T> Quick<'a, T> {
    pub(crate) fn ready(value: T) -> Self {
        Quick::Ready(std::future::ready(value))
    }

    pub(crate) fn waiting(work: impl Future<Output = T> + Send + 'a) -> Self {
        Quick::Waiting(Box::pin(work))
    }
}

impl<T> Future for Quick<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match self.get_mut() {
            Quick::Ready(value) => Pin::new(value).poll(cx),
            Quick::Waiting(work) => work.as_mut().poll(cx),
        }
    }
}

/// Turns a panic while polling `F` into `Err(())`, so that one request's panic costs only that
/// request: the client gets -32603 and every other request carries on.
pub(crate) struct CatchPanic<F: ?Sized>(pub(crate) Pin<Box<F>>);

impl<F: Future + ?Sized> Future for CatchPanic<F> {
    type Output = Result<F::Output, ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                tracing::error!(panic = %message, "handler panicked");
                Poll::Ready(Err(()))
            }
        }
    }
}
