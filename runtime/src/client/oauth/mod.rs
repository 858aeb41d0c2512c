//! Logging in: OAuth 2.1 for a client whose server says `401` (features `oauth` and
//! `client-http`). Given to [`StreamableHttp::login`](crate::client::StreamableHttp::login), it
//! answers the server's challenge by itself: protected resource metadata, the authorization
//! server's metadata, the client's credentials there (registered beforehand, a client ID
//! metadata document, or dynamic registration), then a token by the authorization code grant
//! with PKCE (the person-facing step is an [`Authorizer`] the application supplies) or by the
//! client credentials grant. Tokens are kept per issuer and refreshed before they expire; a
//! `403 insufficient_scope` asks for the scope it names as well (a bounded number of times).
//!
//! ```no_run
//! use mcp_rounds::client::oauth::{Authorizer, Login, LoginError};
//! use mcp_rounds::client::{Client, StreamableHttp};
//! use mcp_rounds::future::BoxFuture;
//!
//! /// Shows the URL; the person pastes back where their browser was sent.
//! struct Paste;
//!
//! impl Authorizer for Paste {
//!     fn authorize<'a>(&'a self, url: &'a str, _redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
//!         Box::pin(async move {
//!             println!("Open {url}, then paste the address you were sent to:");
//!             let mut line = String::new();
//!             std::io::stdin().read_line(&mut line).map_err(|e| LoginError::Authorization(e.to_string()))?;
//!             Ok(line.trim().to_owned())
//!         })
//!     }
//! }
//!
//! # async fn run() -> Result<(), mcp_rounds::client::ClientError> {
//! let login = Login::builder("http://127.0.0.1:8976/callback", Paste)
//!     .client_metadata_url("https://agent.example.com/client-metadata.json")
//!     .build();
//! let client = Client::builder().connect(StreamableHttp::new("https://mcp.example.com/mcp").login(login)).await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use reqwest::Url;

use crate::future::BoxFuture;

mod challenge;
mod discovery;
mod flow;
mod registration;
mod store;

use self::challenge::Challenge;
use self::discovery::{ResourceMetadata, ServerMetadata};
use self::flow::Grant;
use self::registration::{Preregistered, Registered};
pub use self::store::{SavedLogin, TokenStore};

/// Times one request may be refused and answered with a new authorization (a step-up each).
pub const MAX_AUTHORIZATIONS_PER_REQUEST: usize = 3;

/// Whether a 403's challenges ask for more scope (`insufficient_scope`), rather than refusing.
pub(crate) fn asks_for_scope<'a>(challenges: impl IntoIterator<Item = &'a str>) -> bool {
    Challenge::read(challenges).is_some_and(|c| c.wants_scope())
}

/// The person-facing step of the authorization code grant: show the person `url` (open a
/// browser, print it), and return the URL the authorization server redirected them to
/// (`redirect_uri` with `code`, `state` and perhaps `iss`), e.g. as a loopback server received it.
pub trait Authorizer: Send + Sync + 'static {
    /// Has the person authorize at `url`; the redirect's full URL.
    fn authorize<'a>(&'a self, url: &'a str, redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>>;
}

/// Why no token could be had.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoginError {
    /// The metadata could not be found, or names another resource or issuer.
    #[error("discovery: {0}")]
    Discovery(String),
    /// No credentials for the authorization server, or the registration failed.
    #[error("registration: {0}")]
    Registration(String),
    /// The person-facing step failed, or its redirect does not check out.
    #[error("authorization: {0}")]
    Authorization(String),
    /// The token endpoint refused.
    #[error("token: {0}")]
    Token(String),
    /// A refresh token no longer works: the person must log in again.
    #[error("log in again: {0}")]
    LoginAgain(String),
    /// More scope was asked for than the client may ask, or than a request may take.
    #[error("the server keeps asking for more scope ({0})")]
    TooManyAuthorizations(String),
}

/// The grant a machine uses: the client's own credentials.
#[derive(Clone)]
pub struct ClientCredentials {
    client: Registered,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials").field("client_id", &self.client.client_id).finish_non_exhaustive()
    }
}

impl ClientCredentials {
    /// A client ID and secret (sent as the server advertises: Basic first, else in the body).
    pub fn secret(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        let client =
            Registered { client_id: client_id.into(), secret: Some(secret.into()), method: String::new(), key: None };
        ClientCredentials { client }
    }

    /// A client ID and a private key (PEM) that signs a client assertion (`private_key_jwt`,
    /// RFC 7523) with `algorithm`.
    pub fn private_key_jwt(
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
        ClientCredentials { client }
    }
}

/// A client's logins: one per server connection (cheap to clone; clones share tokens).
#[derive(Clone)]
pub struct Login {
    inner: Arc<Logins>,
}

struct Logins {
    client_name: String,
    redirect_uri: String,
    authorizer: Arc<dyn Authorizer>,
    metadata_url: Option<String>,
    preregistered: Vec<Preregistered>,
    machine: Option<ClientCredentials>,
    http: Mutex<Option<reqwest::Client>>,
    store: Option<Box<dyn TokenStore>>,
    /// One authorization at a time; what it gets, every request uses.
    flow: tokio::sync::Mutex<()>,
    state: Mutex<Held>,
}

/// What is known and held: per issuer, the client's credentials; the current grant.
#[derive(Default)]
struct Held {
    clients: HashMap<String, Registered>,
    grant: Option<Grant>,
    /// The resource the grant is for, as its metadata names it (sent again on refresh).
    resource: Option<String>,
    /// The metadata of the grant's issuer, once fetched.
    server: Option<ServerMetadata>,
    /// Whether the store was read.
    loaded: bool,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login").field("redirect_uri", &self.inner.redirect_uri).finish_non_exhaustive()
    }
}

/// Builds a [`Login`].
#[must_use]
pub struct LoginBuilder {
    shared: Logins,
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
                http: Mutex::new(None),
                store: None,
                flow: tokio::sync::Mutex::new(()),
                state: Mutex::new(Held::default()),
            },
        }
    }

    /// Logins of a machine by the client credentials grant: no person, no redirect.
    pub fn client_credentials(credentials: ClientCredentials) -> Login {
        let mut builder = Login::builder("http://127.0.0.1/unused", NoPerson);
        builder.shared.machine = Some(credentials);
        builder.build()
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The transport's HTTP client, which it hands over when it opens.
    fn http(&self) -> Result<reqwest::Client, LoginError> {
        let http = self.inner.http.lock().unwrap_or_else(PoisonError::into_inner).clone();
        http.ok_or_else(|| LoginError::Discovery("the logins are not attached to a transport yet".into()))
    }

    /// Uses `http` for the metadata, registration and token requests (the transport's client).
    pub(crate) fn attach(&self, http: &reqwest::Client) {
        self.inner.http.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert_with(|| http.clone());
    }

    /// The access token to send now, refreshed first if it is about to expire.
    pub(crate) async fn token(&self) -> Result<Option<String>, LoginError> {
        self.load();
        let grant = self.held().grant.clone();
        match grant {
            Some(grant) if grant.expiring() && grant.refresh.is_some() => {
                let _turn = self.inner.flow.lock().await;
                // Another request may have refreshed it meanwhile.
                let current = self.held().grant.clone();
                match current {
                    Some(current) if current.access != grant.access => Ok(Some(current.access)),
                    _ => self.refresh(&grant).await.map(Some),
                }
            }
            other => Ok(other.map(|g| g.access)),
        }
    }

    /// The saved login, once, before the first request.
    fn load(&self) {
        let mut held = self.held();
        if held.loaded {
            return;
        }
        held.loaded = true;
        if let Some(saved) = self.inner.store.as_ref().and_then(|store| store.load()) {
            let (grant, client) = saved.parts();
            held.clients.insert(grant.issuer.clone(), client);
            held.resource = Some(saved.resource.clone());
            held.grant = Some(grant);
        }
    }

    /// Holds `grant` (for `resource`, from `server`) and saves it.
    fn keep(&self, grant: Grant, resource: String, server: ServerMetadata) {
        let saved = {
            let mut held = self.held();
            let saved = held.clients.get(&grant.issuer).map(|client| SavedLogin::new(&grant, client, &resource));
            held.grant = Some(grant);
            held.resource = Some(resource);
            held.server = Some(server);
            saved
        };
        // The store writes a file or talks to a keyring: not while requests wait on the lock.
        if let (Some(store), Some(saved)) = (&self.inner.store, saved) {
            store.save(&saved);
        }
    }

    async fn refresh(&self, grant: &Grant) -> Result<String, LoginError> {
        let (resource, server, client) = {
            let held = self.held();
            (held.resource.clone(), held.server.clone(), held.clients.get(&grant.issuer).cloned())
        };
        let (Some(resource), Some(client), Some(refresh)) = (resource, client, &grant.refresh) else {
            return Ok(grant.access.clone());
        };
        let http = self.http()?;
        let server = match server {
            Some(server) => server,
            None => discovery::server_metadata(&http, &grant.issuer).await?,
        };
        match flow::refresh(&http, &server, &client, grant, refresh, &resource).await {
            Ok(fresh) => {
                let access = fresh.access.clone();
                self.keep(fresh, resource, server);
                Ok(access)
            }
            Err(error) => {
                self.held().grant = None;
                if let Some(store) = &self.inner.store {
                    store.clear();
                }
                Err(error)
            }
        }
    }

    /// The server at `server` refused a request sent with `sent` (a 401, or a 403 asking for
    /// scope) with `challenge` (its `WWW-Authenticate` values): get a token that may do better.
    pub(crate) async fn refused<'a>(
        &self,
        server: &Url,
        sent: Option<&str>,
        challenge: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), LoginError> {
        let challenge = Challenge::read(challenge).unwrap_or_default();
        let _turn = self.inner.flow.lock().await;
        let current = self.held().grant.clone();
        if let Some(current) = &current
            && Some(current.access.as_str()) != sent
        {
            // Another request got a new token meanwhile: try that one.
            return Ok(());
        }
        let http = self.http()?;
        // A 401 for a token that can be refreshed: a refresh first, without the person.
        if !challenge.wants_scope()
            && let Some(grant) = current.as_ref().filter(|g| g.refresh.is_some() && sent.is_some())
            && self.refresh(grant).await.is_ok()
        {
            return Ok(());
        }
        // The documents are read again each time: the server may have moved to another issuer.
        let resource = discovery::resource_metadata(&http, server, &challenge).await?;
        let issuer = resource
            .authorization_servers
            .first()
            .cloned()
            .ok_or_else(|| LoginError::Discovery(format!("{} names no authorization server", resource.resource)))?;
        let metadata = discovery::server_metadata(&http, &issuer).await?;
        let scope = self.scope(&challenge, &resource, &metadata, current.as_ref());
        let grant = match &self.inner.machine {
            Some(machine) => {
                let mut client = machine.client.clone();
                if client.method.is_empty() {
                    client.method = registration::method_for(&metadata, true);
                }
                flow::client_credentials(&http, &metadata, &client, &resource.resource, scope.as_deref()).await?
            }
            None => {
                let client = self.client_at(&http, &metadata, scope.as_deref()).await?;
                let authorizer = self.inner.authorizer.as_ref();
                let redirect = &self.inner.redirect_uri;
                flow::authorization_code(
                    &http,
                    authorizer,
                    &metadata,
                    &client,
                    redirect,
                    &resource.resource,
                    scope.as_deref(),
                )
                .await?
            }
        };
        self.keep(grant, resource.resource, metadata);
        Ok(())
    }

    /// The scope to ask for: a step-up asks for what it had and what the challenge names; else
    /// the challenge's, else what the resource lists, else none. With `offline_access` where the
    /// authorization server offers it to a person's client.
    fn scope(
        &self,
        challenge: &Challenge,
        resource: &ResourceMetadata,
        server: &ServerMetadata,
        current: Option<&Grant>,
    ) -> Option<String> {
        let mut scopes: Vec<String> = Vec::new();
        if challenge.wants_scope()
            && let Some(had) = current.and_then(|g| g.scope.as_deref())
        {
            add_scopes(&mut scopes, had);
        }
        match (&challenge.scope, &resource.scopes_supported) {
            (Some(asked), _) => add_scopes(&mut scopes, asked),
            (None, Some(listed)) => add_scopes(&mut scopes, &listed.join(" ")),
            (None, None) => {}
        }
        let offline = server.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == "offline_access"));
        if offline && self.inner.machine.is_none() && !scopes.is_empty() {
            add_scopes(&mut scopes, "offline_access");
        }
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }

    /// The client's credentials at `server`: held, registered beforehand for it, a client ID
    /// metadata document where it takes one, else a new registration. Never another issuer's.
    async fn client_at(
        &self,
        http: &reqwest::Client,
        server: &ServerMetadata,
        scope: Option<&str>,
    ) -> Result<Registered, LoginError> {
        if let Some(held) = self.held().clients.get(&server.issuer) {
            return Ok(held.clone());
        }
        let preregistered =
            self.inner.preregistered.iter().find(|p| p.issuer.as_deref() == Some(server.issuer.as_str()));
        let preregistered = preregistered.or_else(|| self.inner.preregistered.iter().find(|p| p.issuer.is_none()));
        let client = if let Some(found) = preregistered {
            let mut client = found.client.clone();
            client.method = registration::method_for(server, client.secret.is_some());
            client
        } else if let Some(url) =
            self.inner.metadata_url.as_ref().filter(|_| server.client_id_metadata_document_supported)
        {
            Registered { client_id: url.clone(), secret: None, method: "none".to_owned(), key: None }
        } else {
            registration::register(http, server, &self.inner.client_name, &self.inner.redirect_uri, scope).await?
        };
        self.held().clients.insert(server.issuer.clone(), client.clone());
        Ok(client)
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

    /// Credentials registered beforehand at `issuer` (or, with `None`, at whichever issuer
    /// the server names); a secret is sent as the server advertises.
    pub fn preregistered(
        mut self,
        issuer: Option<String>,
        client_id: impl Into<String>,
        secret: Option<String>,
    ) -> Self {
        let client = Registered { client_id: client_id.into(), secret, method: String::new(), key: None };
        self.shared.preregistered.push(Preregistered { issuer, client });
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

/// Adds each scope of `text` not there yet, in order.
fn add_scopes(scopes: &mut Vec<String>, text: &str) {
    for scope in text.split_whitespace() {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
}

/// The authorizer of a machine's logins, which never sends anyone anywhere.
struct NoPerson;

impl Authorizer for NoPerson {
    fn authorize<'a>(&'a self, _url: &'a str, _redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
        Box::pin(async { Err(LoginError::Authorization("client credentials need no person".into())) })
    }
}
