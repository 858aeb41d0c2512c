//! A message's exchange with the token of the client's logins: the current token sent, and a
//! refusal (401, or 403 `insufficient_scope`) answered by a new authorization and one more try,
//! a bounded number of times.

use super::HttpState;
use crate::client::reading::within;
use crate::client::transport::{Outbound, TransportError};

impl HttpState {
    /// The token to send now, if the client logs in.
    pub(super) async fn current_token(&self) -> Option<String> {
        #[cfg(feature = "oauth")]
        if let Some(login) = self.login.get() {
            return login.token(self.url()).await.ok().flatten();
        }
        None
    }

    /// Sends `outbound` and returns the server's response (whatever its status), its headers
    /// within the message's idle timeout.
    #[cfg(not(feature = "oauth"))]
    pub(super) async fn exchange(&self, outbound: Outbound) -> Result<reqwest::Response, TransportError> {
        self.send_once(&outbound, None).await
    }

    /// One POST of `outbound` with `token`, waiting for the answer's headers no longer than
    /// its idle timeout.
    async fn send_once(&self, outbound: &Outbound, token: Option<&str>) -> Result<reqwest::Response, TransportError> {
        let request = self.post(&outbound.headers, outbound.body.clone(), token);
        within(outbound.idle_timeout, "answer", request.send()).await?.map_err(|e| self.connect_error(&e))
    }

    /// Sends `outbound` with the current token; when the server refuses it, logs in again and
    /// sends it once more, at most [`MAX_AUTHORIZATIONS_PER_REQUEST`] times.
    ///
    /// [`MAX_AUTHORIZATIONS_PER_REQUEST`]: crate::client::oauth::MAX_AUTHORIZATIONS_PER_REQUEST
    #[cfg(feature = "oauth")]
    pub(super) async fn exchange(&self, outbound: Outbound) -> Result<reqwest::Response, TransportError> {
        use crate::client::oauth::MAX_AUTHORIZATIONS_PER_REQUEST;
        let Some(login) = self.login.get() else {
            return self.send_once(&outbound, None).await;
        };
        let refused = |e: crate::client::oauth::LoginError| TransportError::Unauthorized(e.to_string());
        let mut authorizations = 0;
        loop {
            let token = login.token(self.url()).await.map_err(refused)?;
            let response = self.send_once(&outbound, token.as_deref()).await?;
            if !matches!(response.status().as_u16(), 401 | 403) {
                return Ok(response);
            }
            let challenges: Vec<String> = response
                .headers()
                .get_all(reqwest::header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(|v| v.to_str().ok().map(str::to_owned))
                .collect();
            let wants_login = match response.status().as_u16() {
                401 => true,
                403 => crate::client::oauth::asks_for_scope(challenges.iter().map(String::as_str)),
                _ => false,
            };
            if !wants_login || authorizations == MAX_AUTHORIZATIONS_PER_REQUEST {
                return Ok(response);
            }
            authorizations += 1;
            login
                .refused(self.url(), token.as_deref(), challenges.iter().map(String::as_str))
                .await
                .map_err(refused)?;
        }
    }
}
