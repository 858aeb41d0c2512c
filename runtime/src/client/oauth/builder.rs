//! [`LoginBuilder`]: who the client is to authorization servers, which credentials it has
//! where, where it keeps its login, and how far it trusts what servers name.

use std::sync::{Arc, Mutex};

use super::credentials::{ClientCredentials, Issuer, Preregistered};
use super::login::{Held, Login, Logins};
use super::registration::Registered;
use super::store::TokenStore;
use super::{Authorizer, NoPerson};

/// Builds a [`Login`].
#[must_use]
pub struct LoginBuilder {
    shared: Logins,
}

impl std::fmt::Debug for LoginBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginBuilder")
            .field("redirect_uri", &self.shared.redirect_uri)
            .field("machine", &self.shared.machine)
            .field("preregistered", &self.shared.preregistered)
            .field("allow_private", &self.shared.allow_private)
            .finish_non_exhaustive()
    }
}

impl Login {
    /// Logins that send the person to authorize through `authorizer`, redirected back to
    /// `redirect_uri` (for a native application, a loopback URL, RFC 8252).
    pub fn builder(redirect_uri: impl Into<String>, authorizer: impl Authorizer) -> LoginBuilder {
        LoginBuilder {
            shared: Logins {
                client_name: "mcp-rounds".to_owned(),
                redirect_uri: redirect_uri.into(),
                authorizer: Arc::new(authorizer),
                metadata_url: None,
                preregistered: Vec::new(),
                machine: None,
                allow_private: false,
                http: Mutex::new(None),
                store: None,
                flow: tokio::sync::Mutex::new(()),
                state: Mutex::new(Held::default()),
            },
        }
    }

    /// Logins of a machine by the client credentials grant: no person, no redirect. The
    /// credentials go only to their issuer's token endpoint.
    ///
    /// ```
    /// use mcp_rounds::client::oauth::{ClientCredentials, Login};
    ///
    /// let secret = std::env::var("MCP_CLIENT_SECRET").unwrap_or_default();
    /// let login = Login::client_credentials(ClientCredentials::secret("https://auth.example.com", "my-agent", secret))
    ///     .build();
    /// # drop(login);
    /// ```
    pub fn client_credentials(credentials: ClientCredentials) -> LoginBuilder {
        let mut builder = Login::builder("http://127.0.0.1/unused", NoPerson);
        builder.shared.machine = Some(credentials);
        builder
    }
}

impl LoginBuilder {
    /// The name a dynamic registration gives the client (default `mcp-rounds`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.shared.client_name = name.into();
        self
    }

    /// The HTTPS URL where the application hosts its client ID metadata document: its
    /// `client_id` wherever the authorization server takes one.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.shared.metadata_url = Some(url.into());
        self
    }

    /// Credentials registered beforehand at `issuer`; a secret is sent, as that server
    /// advertises, to its token endpoint alone. A server naming another issuer gets another
    /// registration (a client ID metadata document, or a dynamic one), never these.
    pub fn preregistered(
        mut self,
        issuer: impl Into<Issuer>,
        client_id: impl Into<String>,
        secret: Option<String>,
    ) -> Self {
        let client = Registered { client_id: client_id.into(), secret, method: String::new(), key: None };
        self.shared.preregistered.push(Preregistered { issuer: issuer.into(), client });
        self
    }

    /// Lets a server that is not on this machine send the client to addresses on this
    /// machine or on a private or link-local network (its authorization server, its
    /// metadata). Off by default: a server on the internet could otherwise make the client
    /// fetch from the network it runs in.
    pub fn allow_private_addresses(mut self) -> Self {
        self.shared.allow_private = true;
        self
    }

    /// Keeps the login in `store` (and starts from what it holds): a later run uses, and
    /// refreshes, the token this one got.
    pub fn store(mut self, store: impl TokenStore) -> Self {
        self.shared.store = Some(Box::new(store));
        self
    }

    /// The logins.
    pub fn build(self) -> Login {
        Login { inner: Arc::new(self.shared) }
    }
}
