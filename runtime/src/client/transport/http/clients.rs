//! The HTTP clients Streamable HTTP builds for itself: TLS by rustls with ring over the
//! system's root certificates, a connect timeout, and redirects followed only within the
//! server's origin (MCP requests) or not at all (OAuth requests, which carry secrets and whose
//! documents must come from where they were asked for).

use std::sync::Arc;
use std::time::Duration;

use reqwest::redirect::Policy;

use crate::client::transport::TransportError;

/// Redirects an MCP request follows at most, each within the server's origin.
const MAX_REDIRECTS: usize = 5;

/// The crate's own clients: one for MCP requests, one for OAuth requests.
pub(super) struct Clients {
    pub(super) mcp: reqwest::Client,
    pub(super) oauth: reqwest::Client,
}

/// Builds both clients, trusting the system's root certificates.
pub(super) fn build(connect_timeout: Duration) -> Result<Clients, TransportError> {
    let mut roots = rustls::RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        tracing::debug!("no system root certificates: https:// servers will not verify");
    }
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| TransportError::Connect(format!("cannot configure TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let client = |redirects: Policy| {
        reqwest::Client::builder()
            .tls_backend_preconfigured(tls.clone())
            .connect_timeout(connect_timeout)
            .redirect(redirects)
            .build()
            .map_err(|e| TransportError::Connect(format!("cannot build the HTTP client: {e}")))
    };
    let same_origin = Policy::custom(|attempt| {
        let first = attempt.previous().first().map(reqwest::Url::origin);
        if attempt.previous().len() <= MAX_REDIRECTS && first.as_ref() == Some(&attempt.url().origin()) {
            attempt.follow()
        } else {
            // The redirect comes back as the answer, which the transport refuses by name.
            attempt.stop()
        }
    });
    Ok(Clients { mcp: client(same_origin)?, oauth: client(Policy::none())? })
}
