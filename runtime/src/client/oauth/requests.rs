//! Every request of a login (metadata, registration, tokens): answered within a timeout, its
//! body read within a bound, and no redirect followed, whatever HTTP client sends it, since
//! metadata must come from where it was asked for and a secret must go nowhere else.

use std::time::Duration;

use reqwest::{StatusCode, Url};

use crate::client::reading::{body, causes, within};
use crate::client::transport::TransportError;

/// How long one request of a login may take, answer included.
pub const OAUTH_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest answer a login reads: metadata, a registration, tokens.
pub const MAX_OAUTH_ANSWER: usize = 1024 * 1024;

/// An answer of an authorization server.
pub(crate) struct Fetched {
    pub(crate) status: StatusCode,
    pub(crate) body: Vec<u8>,
}

impl Fetched {
    /// The body as text (lossily), for a message or a form-encoded parse.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `request` (to `url`) and reads its answer within [`OAUTH_TIMEOUT`] and
/// [`MAX_OAUTH_ANSWER`]. A redirect comes back as it is (its status), never followed; an
/// answer a redirect-following client fetched from anywhere else is refused.
pub(crate) async fn send(request: reqwest::RequestBuilder, url: &Url) -> Result<Fetched, String> {
    let exchange = async {
        let mut response = request.send().await.map_err(|e| format!("cannot reach {url}: {}", causes(&e)))?;
        if response.url() != url {
            return Err(format!("{url} redirected to {}, which a login does not follow", response.url()));
        }
        let status = response.status();
        let body = body(&mut response, MAX_OAUTH_ANSWER, None).await.map_err(|e| match e {
            TransportError::OverLimit(limit) => format!("{url} sent {limit}"),
            other => format!("cannot read {url}: {other}"),
        })?;
        Ok(Fetched { status, body })
    };
    within(Some(OAUTH_TIMEOUT), "answer", exchange)
        .await
        .map_err(|_| format!("{url}: no answer within {OAUTH_TIMEOUT:?}"))?
}
