//! [`Login`]: the token to send now, refreshed before it expires, and a new one when a server
//! refuses, got from the authorization server the server names, once that server is one the
//! client may go to and its credentials may go to.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use reqwest::Url;

use super::challenge::Challenge;
use super::credentials::{ClientCredentials, Preregistered};
use super::discovery::{self, ResourceMetadata, ServerMetadata};
use super::flow::{self, Grant};
use super::registration::{self, Registered};
use super::store::{SavedLogin, TokenStore};
use super::{Authorizer, LoginError, add_scopes};
use crate::client::address::UrlPolicy;

/// A client's logins: one per server connection (cheap to clone; clones share tokens).
#[derive(Clone)]
pub struct Login {
    pub(super) inner: Arc<Logins>,
}

pub(super) struct Logins {
    pub(super) client_name: String,
    pub(super) redirect_uri: String,
    pub(super) authorizer: Arc<dyn Authorizer>,
    pub(super) metadata_url: Option<String>,
    pub(super) preregistered: Vec<Preregistered>,
    pub(super) machine: Option<ClientCredentials>,
    pub(super) allow_private: bool,
    pub(super) http: Mutex<Option<reqwest::Client>>,
    pub(super) store: Option<Box<dyn TokenStore>>,
    /// One authorization at a time; what it gets, every request uses.
    pub(super) flow: tokio::sync::Mutex<()>,
    pub(super) state: Mutex<Held>,
}

/// What is known and held: per issuer, the client's credentials; the current grant.
#[derive(Default)]
pub(super) struct Held {
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

impl Login {
    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The transport's HTTP client for logins, which it hands over when it opens.
    fn http(&self) -> Result<reqwest::Client, LoginError> {
        let http = self.inner.http.lock().unwrap_or_else(PoisonError::into_inner).clone();
        http.ok_or_else(|| LoginError::Discovery("the logins are not attached to a transport yet".into()))
    }

    /// Uses `http` for the metadata, registration and token requests: a client that follows
    /// no redirect.
    pub(crate) fn attach(&self, http: &reqwest::Client) {
        self.inner.http.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert_with(|| http.clone());
    }

    /// The access token to send to `url` now, refreshed first if it is about to expire; none
    /// when the login holds no token for the resource at `url`.
    pub(crate) async fn token(&self, url: &Url) -> Result<Option<String>, LoginError> {
        self.load();
        let (grant, resource) = {
            let held = self.held();
            (held.grant.clone(), held.resource.clone())
        };
        // A token goes only to the resource it was issued for, whatever a store holds.
        if grant.is_some() && resource.as_deref().is_none_or(|r| discovery::check_resource(r, url).is_err()) {
            tracing::debug!(%url, "the login's token is for another resource: not sent");
            return Ok(None);
        }
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
            None => discovery::server_metadata(&http, &grant.issuer, self.inner.allow_private).await?,
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
        let policy = UrlPolicy::for_server(server, self.inner.allow_private);
        let resource = discovery::resource_metadata(&http, server, &challenge, &policy).await?;
        let issuer = resource
            .authorization_servers
            .first()
            .cloned()
            .ok_or_else(|| LoginError::Discovery(format!("{} names no authorization server", resource.resource)))?;
        self.check_issuer(&issuer, &policy).await?;
        let metadata = discovery::server_metadata(&http, &issuer, self.inner.allow_private).await?;
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

    /// Whether the client may go to the authorization server `issuer` the server named: where
    /// the URL policy allows, and, for a machine, only the issuer its credentials belong to.
    async fn check_issuer(&self, issuer: &str, policy: &UrlPolicy) -> Result<(), LoginError> {
        if let Some(machine) = &self.inner.machine
            && !machine.issuer.allows(issuer)
        {
            let named = machine.issuer.as_named().unwrap_or_default();
            return Err(LoginError::Refused(format!(
                "the server names authorization server {issuer:?}, but the client credentials are for {named:?}: \
                 they are sent to their own issuer only"
            )));
        }
        let what = "the authorization server the server names";
        let checked = policy.check(issuer, what).map_err(LoginError::Refused)?;
        policy.check_resolved(&checked, what).await.map_err(LoginError::Refused)
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

    /// The client's credentials at `server`: held, registered beforehand for it (or for any
    /// issuer, if the application trusts whichever the server names), a client ID metadata
    /// document where it takes one, else a new registration. Never another issuer's.
    async fn client_at(
        &self,
        http: &reqwest::Client,
        server: &ServerMetadata,
        scope: Option<&str>,
    ) -> Result<Registered, LoginError> {
        if let Some(held) = self.held().clients.get(&server.issuer) {
            return Ok(held.clone());
        }
        let preregistered = self.inner.preregistered.iter();
        let exact = preregistered.clone().find(|p| p.issuer.as_named() == Some(server.issuer.as_str()));
        let found = exact.or_else(|| preregistered.clone().find(|p| p.issuer.as_named().is_none()));
        let client = if let Some(found) = found {
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
