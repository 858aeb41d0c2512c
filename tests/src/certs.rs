//! Certificate authorities made by a test, and the server certificates they sign: what a
//! PostgreSQL cluster serving TLS presents, and what a client must trust to accept it.

use std::path::Path;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};

/// A CA of the test's own, trusted by nobody else.
pub struct Authority {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A server's certificate and private key, PEM-encoded.
pub struct ServerCertificate {
    /// The certificate.
    pub cert_pem: String,
    /// Its private key (PKCS#8).
    pub key_pem: String,
}

impl Authority {
    /// A new CA called `name`.
    pub fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("a CA key");
        Authority { issuer: CertifiedIssuer::self_signed(params, key).expect("a self-signed CA certificate") }
    }

    /// Its certificate, PEM-encoded: what a client trusts.
    pub fn cert_pem(&self) -> String {
        self.issuer.pem()
    }

    /// Writes its certificate to `path`.
    pub fn write_cert(&self, path: &Path) {
        std::fs::write(path, self.cert_pem()).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    /// A server certificate for the DNS names `names`, signed by this CA.
    pub fn issue(&self, names: &[&str]) -> ServerCertificate {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let mut params = CertificateParams::new(names.clone()).expect("server certificate parameters");
        params.distinguished_name.push(DnType::CommonName, names.first().map_or("server", String::as_str));
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().expect("a server key");
        let cert = params.signed_by(&key, &self.issuer).expect("a server certificate");
        ServerCertificate { cert_pem: cert.pem(), key_pem: key.serialize_pem() }
    }
}
