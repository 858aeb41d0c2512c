//! A client's own credentials, and the one authorization server they belong to: a secret, a
//! private key or an assertion is sent to that issuer's token endpoint and nowhere else,
//! whichever issuer a server names.

use super::registration::Registered;

/// The authorization server a client's credentials belong to.
///
/// Credentials are sent only to the token endpoint of the issuer they are for: when a server
/// names another one, the login is refused, saying so. [`Issuer::trust_server_named`] lifts
/// that, for a server you control.
///
/// ```
/// use mcp_rounds::client::oauth::{ClientCredentials, Issuer};
///
/// let machine = ClientCredentials::secret("https://auth.example.com", "my-agent", "s3cret");
/// assert!(machine.issuer().allows("https://auth.example.com"));
/// assert!(!machine.issuer().allows("https://evil.example"));
/// assert!(Issuer::trust_server_named().allows("https://evil.example"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issuer(Option<String>);

impl Issuer {
    /// The authorization server whose issuer identifier is exactly `issuer` (RFC 8414: compared
    /// as strings, as its metadata gives it).
    pub fn named(issuer: impl Into<String>) -> Issuer {
        Issuer(Some(issuer.into()))
    }

    /// Whichever authorization server the MCP server names.
    ///
    /// **Unsafe against servers you do not control**: any server could name an authorization
    /// server of its own and receive the credentials. For a test suite that gives credentials
    /// but no issuer, or your own server behind your own authorization server.
    pub fn trust_server_named() -> Issuer {
        Issuer(None)
    }

    /// Whether credentials for this issuer may go to the authorization server `issuer`.
    pub fn allows(&self, issuer: &str) -> bool {
        self.0.as_deref().is_none_or(|named| named == issuer)
    }

    /// The issuer named, unless any the server names is trusted.
    pub fn as_named(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl From<&str> for Issuer {
    fn from(issuer: &str) -> Issuer {
        Issuer::named(issuer)
    }
}

impl From<String> for Issuer {
    fn from(issuer: String) -> Issuer {
        Issuer::named(issuer)
    }
}

/// What the application registered beforehand, for one issuer (or, if it says so, any).
#[derive(Clone, Debug)]
pub(crate) struct Preregistered {
    pub(crate) issuer: Issuer,
    pub(crate) client: Registered,
}

/// The grant a machine uses: the client's own credentials at one authorization server.
#[derive(Clone)]
pub struct ClientCredentials {
    pub(super) issuer: Issuer,
    pub(super) client: Registered,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client.client_id)
            .finish_non_exhaustive()
    }
}

impl ClientCredentials {
    /// A client ID and secret at `issuer` (sent as it advertises: Basic first, else in the
    /// body).
    pub fn secret(issuer: impl Into<Issuer>, client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        let client =
            Registered { client_id: client_id.into(), secret: Some(secret.into()), method: String::new(), key: None };
        ClientCredentials { issuer: issuer.into(), client }
    }

    /// A client ID at `issuer` and a private key (PEM) that signs a client assertion
    /// (`private_key_jwt`, RFC 7523) with `algorithm`.
    pub fn private_key_jwt(
        issuer: impl Into<Issuer>,
        client_id: impl Into<String>,
        pem: impl Into<String>,
        algorithm: jsonwebtoken::Algorithm,
    ) -> Self {
        let client = Registered {
            client_id: client_id.into(),
            secret: None,
            method: "private_key_jwt".to_owned(),
            key: Some((pem.into(), algorithm)),
        };
        ClientCredentials { issuer: issuer.into(), client }
    }

    /// The authorization server they belong to.
    pub fn issuer(&self) -> &Issuer {
        &self.issuer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_secret_or_key_appears_in_a_debug_string() {
        let secret = ClientCredentials::secret("https://as", "id", "the-secret-value");
        let key = ClientCredentials::private_key_jwt(
            "https://as",
            "id",
            "-----BEGIN PRIVATE KEY-----the-key-value",
            jsonwebtoken::Algorithm::ES256,
        );
        for shown in
            [format!("{secret:?}"), format!("{key:?}"), format!("{:?}", secret.client), format!("{:?}", key.client)]
        {
            assert!(!shown.contains("the-secret-value") && !shown.contains("the-key-value"), "{shown}");
            assert!(shown.contains("id"), "{shown}");
        }
    }
}
