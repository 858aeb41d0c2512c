//! Reading an HTTP answer within the client's limits, whatever `reqwest::Client` sent the
//! request (the crate's own, or the application's): the body chunk by chunk, never past its
//! size limit, never waiting through a longer silence than allowed; and the answer refused
//! when it comes from elsewhere than where the request went.

use std::future::Future;
use std::time::Duration;

use super::limits::Limit;
use super::transport::TransportError;

/// `future`, failing with [`TransportError::TimedOut`] after `idle` if it is given.
pub(crate) async fn within<T>(
    idle: Option<Duration>,
    waiting_for: &str,
    future: impl Future<Output = T>,
) -> Result<T, TransportError> {
    match idle {
        None => Ok(future.await),
        Some(after) => tokio::time::timeout(after, future)
            .await
            .map_err(|_| TransportError::TimedOut { waiting_for: waiting_for.to_owned(), after }),
    }
}

/// The next chunk of `response`'s body (`None` at its end), within `idle`.
pub(crate) async fn next_chunk(
    response: &mut reqwest::Response,
    idle: Option<Duration>,
) -> Result<Option<impl AsRef<[u8]>>, TransportError> {
    within(idle, "more of the answer", response.chunk())
        .await?
        .map_err(|e| TransportError::Io(format!("cannot read the answer: {}", causes(&e))))
}

/// The whole body of `response`, refused past `max` bytes (as soon as its declared length
/// says so, else once that much has come), with at most `idle` between two chunks.
pub(crate) async fn body(
    response: &mut reqwest::Response,
    max: usize,
    idle: Option<Duration>,
) -> Result<Vec<u8>, TransportError> {
    let over = || TransportError::OverLimit(Limit::MessageSize(max));
    if response.content_length().is_some_and(|declared| declared > max as u64) {
        return Err(over());
    }
    let mut body = Vec::new();
    while let Some(chunk) = next_chunk(response, idle).await? {
        let chunk = chunk.as_ref();
        if body.len() + chunk.len() > max {
            return Err(over());
        }
        body.extend_from_slice(chunk);
    }
    Ok(body)
}

/// Whether `response` answers the request that was sent to `sent`, not one a redirect led
/// to (an application's own client may follow redirects the crate's never would).
pub(crate) fn same_origin(sent: &reqwest::Url, response: &reqwest::Response) -> bool {
    response.url().origin() == sent.origin()
}

/// An error and its causes, on one line: reqwest's own text rarely says what failed.
pub(crate) fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}
