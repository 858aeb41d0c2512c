//! The rustls configuration of connections to PostgreSQL: ring as the provider, and the roots
//! the server's certificate must chain to (a CA file's, or the system's). rustls checks the
//! chain and the host name on every handshake; nothing here relaxes either.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};

use crate::replay::StoreError;

/// What PostgreSQL 17's direct TLS negotiation requires a client to offer; older servers ignore it.
const ALPN: &[u8] = b"postgresql";

/// A configuration that verifies the server against the CA certificates in `ca_file`, or the
/// system's roots without one.
pub(super) fn verifying(ca_file: Option<&Path>) -> Result<ClientConfig, StoreError> {
    let roots = match ca_file {
        Some(path) => roots_from_file(path)?,
        None => system_roots()?,
    };
    config(roots)
}

/// A configuration for settings whose `sslmode` is disable: tokio-postgres never starts TLS
/// then, so it trusts nothing.
pub(super) fn never_used() -> ClientConfig {
    config(RootCertStore::empty()).expect("ring supports the default protocol versions")
}

fn config(roots: RootCertStore) -> Result<ClientConfig, StoreError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| StoreError(format!("TLS to PostgreSQL cannot be set up: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![ALPN.to_vec()];
    Ok(config)
}

fn roots_from_file(path: &Path) -> Result<RootCertStore, StoreError> {
    let shown = path.display();
    let pem = std::fs::read(path).map_err(|e| StoreError(format!("cannot read the CA file {shown}: {e}")))?;
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| StoreError(format!("the CA file {shown} is not valid PEM: {e}")))?;
        roots
            .add(cert)
            .map_err(|e| StoreError(format!("the CA file {shown} holds a certificate rustls cannot use: {e}")))?;
    }
    if roots.is_empty() {
        return Err(StoreError(format!("the CA file {shown} holds no certificate (BEGIN CERTIFICATE)")));
    }
    Ok(roots)
}

fn system_roots() -> Result<RootCertStore, StoreError> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(found.certs);
    if roots.is_empty() {
        let why = found.errors.first().map(|e| format!(" ({e})")).unwrap_or_default();
        return Err(StoreError(format!(
            "TLS to PostgreSQL needs trusted roots, and this system has none{why}: name the CA's \
             certificate with sslrootcert=PATH in the URL"
        )));
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_without_a_certificate_is_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("mcp-rounds-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "no certificate here\n").unwrap();
        let err = verifying(Some(&empty)).unwrap_err().to_string();
        assert!(err.contains("holds no certificate") && err.contains("empty.pem"), "{err}");
        let garbled = dir.join("garbled.pem");
        std::fs::write(&garbled, "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n").unwrap();
        let err = verifying(Some(&garbled)).unwrap_err().to_string();
        assert!(err.contains("garbled.pem"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
