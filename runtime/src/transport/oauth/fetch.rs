//! The resource server's own HTTP(S) client, for its authorization server: metadata, keys and
//! introspection. Bounded in time and size, and it follows no redirects (a redirect could send
//! a key fetch to whoever can plant one).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use base64::Engine as _;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::{Request, StatusCode, header};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::de::DeserializeOwned;

/// The largest document read from the authorization server.
const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// `application/x-www-form-urlencoded` leaves these as they are.
const FORM: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'*');

/// Why a fetch failed, in words fit for a log line or a start-up error.
pub(super) type FetchError = String;

/// A client for the authorization server's endpoints.
#[derive(Clone)]
pub(super) struct Fetcher {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    timeout: Duration,
}

impl Fetcher {
    /// A client trusting the system's root certificates, giving up on a request after
    /// `timeout`.
    pub(super) fn new(timeout: Duration) -> Result<Self, FetchError> {
        let mut roots = rustls::RootCertStore::empty();
        let found = rustls_native_certs::load_native_certs();
        for error in &found.errors {
            tracing::warn!(%error, "cannot load a system root certificate");
        }
        let (added, _) = roots.add_parsable_certificates(found.certs);
        if added == 0 {
            tracing::warn!("no system root certificates: https:// fetches from the authorization server will fail");
        }
        let tls = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("cannot configure TLS: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let connector =
            hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http().enable_http1().build();
        Ok(Fetcher { client: Client::builder(TokioExecutor::new()).build(connector), timeout })
    }

    /// GETs `url` and reads its JSON.
    pub(super) async fn get_json<T: DeserializeOwned>(&self, url: &str) -> Result<T, FetchError> {
        let request = Request::get(url)
            .header(header::ACCEPT, "application/json")
            .body(Full::default())
            .map_err(|e| format!("{url}: {e}"))?;
        self.json(url, request).await
    }

    /// POSTs `form` to `url`, authenticating as `client` with HTTP Basic (RFC 6749 §2.3.1),
    /// and reads its JSON.
    pub(super) async fn post_form<T: DeserializeOwned>(
        &self,
        url: &str,
        form: &[(&str, &str)],
        client: (&str, &str),
    ) -> Result<T, FetchError> {
        let body = form
            .iter()
            .map(|(key, value)| format!("{}={}", utf8_percent_encode(key, FORM), utf8_percent_encode(value, FORM)))
            .collect::<Vec<_>>()
            .join("&");
        let (id, secret) = client;
        let credentials = format!("{}:{}", utf8_percent_encode(id, FORM), utf8_percent_encode(secret, FORM));
        let basic = base64::engine::general_purpose::STANDARD.encode(credentials);
        let request = Request::post(url)
            .header(header::ACCEPT, "application/json")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::AUTHORIZATION, format!("Basic {basic}"))
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| format!("{url}: {e}"))?;
        self.json(url, request).await
    }

    async fn json<T: DeserializeOwned>(&self, url: &str, request: Request<Full<Bytes>>) -> Result<T, FetchError> {
        let exchange = async {
            let response = self.client.request(request).await.map_err(|e| format!("{url}: {}", error_chain(&e)))?;
            let status = response.status();
            if status != StatusCode::OK {
                return Err(format!("{url}: HTTP {status}"));
            }
            let body = Limited::new(response.into_body(), MAX_DOCUMENT_BYTES)
                .collect()
                .await
                .map_err(|e| format!("{url}: {e}"))?
                .to_bytes();
            serde_json::from_slice(&body).map_err(|e| format!("{url}: not the JSON expected ({e})"))
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(format!("{url}: no answer within {} s", self.timeout.as_secs_f32())),
        }
    }
}

/// An error with its causes, which is where hyper keeps what actually went wrong.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
