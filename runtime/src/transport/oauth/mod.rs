//! An OAuth 2.1 resource server: the [`Authenticator`] for an [`Http`](super::http::Http)
//! endpoint behind an identity provider (feature `oauth`).
//!
//! Clients discover the endpoint's protected resource metadata (RFC 9728) from its `401`
//! challenge, get an access token for it from the authorization server (with the endpoint's
//! URL as their resource indicator, RFC 8707) and send it as a bearer token. [`OAuth`] checks
//! every token before any MCP processing:
//!
//! - a JWT (RFC 9068) is verified against the authorization server's published keys (RS*, PS*,
//!   ES256, ES384 or EdDSA; never `none` or a shared secret), then its `iss`, its `aud` (which
//!   must contain the endpoint's URL, or the configured audience), `exp` and `nbf` with a small
//!   leeway, and its `sub`;
//! - with [`OAuthBuilder::introspection`], a token that is not a JWT is asked about at the
//!   authorization server's introspection endpoint (RFC 7662).
//!
//! The keys are fetched when the authenticator is built (so a server that cannot reach them
//! does not start), cached, and fetched again when a token names a key id they lack (once per
//! burst, at most once per [`key_refetch_interval`](OAuthBuilder::key_refetch_interval)): a
//! rotated key is picked up without a restart.
//!
//! The token's principal is its `sub`, with the scopes of its `scope` (or `scp`) claim and its
//! verified claims ([`Principal::claims`](crate::Principal::claims)); `#[tool(scopes("..."))]`
//! and its kin are checked against them. Refusals are `401` with
//! `WWW-Authenticate: Bearer resource_metadata="...", scope="...", error="invalid_token"`;
//! a missing scope is `403` with `error="insufficient_scope"`. Tokens are never logged.
//!
//! ```no_run
//! use mcp_rounds::Server;
//! use mcp_rounds::transport::http::Http;
//! use mcp_rounds::transport::oauth::OAuth;
//!
//! # async fn run(server: Server) -> Result<(), Box<dyn std::error::Error>> {
//! let oauth = OAuth::builder("https://auth.example.com")
//!     .jwks_uri("https://auth.example.com/jwks")
//!     .audience("https://notes.example.com/mcp")
//!     .scopes_supported(["notes:read", "notes:write"])
//!     .build()
//!     .await?;
//! let bound = Http::new(oauth).bind("0.0.0.0:8787").await?;
//! bound.serve(&server, async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(())
//! # }
//! ```

mod discovery;
mod fetch;
mod introspect;
mod keys;
mod verify;

use std::sync::Arc;
use std::time::Duration;

use crate::context::{Principal, is_scope_token};
use crate::future::BoxFuture;
use crate::transport::http::{AuthRequest, Authenticator, ProtectedResource, Unauthorized};
use fetch::Fetcher;
use introspect::Introspection;
use keys::KeyCache;
use verify::Expectations;

/// Why an [`OAuth`] authenticator could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// The configuration is not usable.
    #[error("OAuth configuration: {0}")]
    Config(String),
    /// The authorization server's metadata could not be had.
    #[error("OAuth discovery: {0}")]
    Discovery(String),
    /// The authorization server's keys could not be had.
    #[error("OAuth keys: {0}")]
    Keys(String),
}

/// Accepts the access tokens of one authorization server. Build it with [`OAuth::builder`].
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Verifier>,
}

struct Verifier {
    issuer: String,
    audience: Option<String>,
    leeway: Duration,
    scopes_supported: Vec<String>,
    challenge_scopes: Option<Vec<String>>,
    fetcher: Fetcher,
    keys: Option<KeyCache>,
    introspection: Option<Introspection>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth").field("issuer", &self.inner.issuer).field("audience", &self.inner.audience).finish()
    }
}

impl OAuth {
    /// Tokens issued by `issuer` (compared exactly with their `iss`).
    pub fn builder(issuer: impl Into<String>) -> OAuthBuilder {
        OAuthBuilder {
            issuer: issuer.into(),
            jwks_uri: None,
            audience: None,
            scopes_supported: Vec::new(),
            challenge_scopes: None,
            leeway: Duration::from_secs(30),
            key_refetch_interval: Duration::from_secs(5),
            key_max_age: Duration::from_secs(3600),
            timeout: Duration::from_secs(10),
            introspection: None,
            introspection_endpoint: None,
        }
    }

    /// The principal of the token `request` carries.
    async fn check(&self, request: &AuthRequest<'_>) -> Result<Principal, Unauthorized> {
        let Some(token) = request.bearer_token() else { return Err(Unauthorized::missing()) };
        let inner = &*self.inner;
        let Some(audience) = inner.audience.as_deref().or(request.resource()) else {
            tracing::error!("OAuth tokens cannot be checked: the endpoint's URL is unknown (set the audience)");
            return Err(Unauthorized::invalid_token("The server cannot check tokens"));
        };
        let expect = Expectations { issuer: &inner.issuer, audience, leeway: inner.leeway };
        let is_jwt = token.bytes().filter(|b| *b == b'.').count() == 2;
        match (&inner.keys, &inner.introspection) {
            (Some(keys), _) if is_jwt => verify::verify_jwt(token, keys, &expect).await,
            (_, Some(introspection)) => introspection.check(&inner.fetcher, token, &expect).await,
            (_, None) => Err(Unauthorized::invalid_token("The token is not a JWT")),
        }
    }
}

impl Authenticator for OAuth {
    fn authenticate<'a>(&'a self, request: &'a AuthRequest<'a>) -> BoxFuture<'a, Result<Principal, Unauthorized>> {
        Box::pin(self.check(request))
    }

    fn protected_resource(&self) -> Option<ProtectedResource> {
        let inner = &*self.inner;
        Some(ProtectedResource {
            resource: inner.audience.clone(),
            authorization_servers: vec![inner.issuer.clone()],
            scopes_supported: inner.scopes_supported.clone(),
            challenge_scopes: inner.challenge_scopes.clone(),
        })
    }
}

/// How an [`OAuth`] authenticator is configured; [`build`](Self::build) fetches the keys.
#[derive(Debug, Clone)]
#[must_use]
pub struct OAuthBuilder {
    issuer: String,
    jwks_uri: Option<String>,
    audience: Option<String>,
    scopes_supported: Vec<String>,
    challenge_scopes: Option<Vec<String>>,
    leeway: Duration,
    key_refetch_interval: Duration,
    key_max_age: Duration,
    timeout: Duration,
    introspection: Option<(String, String, Duration)>,
    introspection_endpoint: Option<String>,
}

impl OAuthBuilder {
    /// Where the issuer publishes its signing keys (a JWKS). Without it they are found through
    /// the issuer's metadata (`/.well-known/oauth-authorization-server`, then
    /// `/.well-known/openid-configuration`).
    pub fn jwks_uri(mut self, url: impl Into<String>) -> Self {
        self.jwks_uri = Some(url.into());
        self
    }

    /// The audience tokens must be for (one of their `aud`): the endpoint's URL as clients
    /// name it. Default: the endpoint's own URL ([`Http::public_url`](super::http::Http::public_url),
    /// or the address it is bound to).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// The scopes the server understands, for its metadata and its `401` challenges.
    pub fn scopes_supported<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes a `401` asks for; default: every supported one. Name the few that let a
    /// client start when others are only needed by some calls: a `403` asks for those when
    /// they are.
    pub fn challenge_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.challenge_scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// How far `exp` and `nbf` may be off, for clocks that disagree (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the keys caused by tokens with unknown key ids
    /// (default 5 s).
    pub fn key_refetch_interval(mut self, interval: Duration) -> Self {
        self.key_refetch_interval = interval;
        self
    }

    /// How long fetched keys are used before they are fetched again, so that a key the
    /// issuer withdrew stops verifying (default 1 hour).
    pub fn key_max_age(mut self, age: Duration) -> Self {
        self.key_max_age = age;
        self
    }

    /// How long a request to the authorization server may take (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Checks tokens that are not JWTs at the introspection endpoint (RFC 7662), as the
    /// client `client_id`; the endpoint is the issuer's metadata's unless
    /// [`introspection_endpoint`](Self::introspection_endpoint) names it. An active token is
    /// remembered for at most `remember` (and never past its `exp`).
    pub fn introspection(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        remember: Duration,
    ) -> Self {
        self.introspection = Some((client_id.into(), client_secret.into(), remember));
        self
    }

    /// The introspection endpoint, when the issuer's metadata does not name it. Takes effect
    /// with [`introspection`](Self::introspection).
    pub fn introspection_endpoint(mut self, url: impl Into<String>) -> Self {
        self.introspection_endpoint = Some(url.into());
        self
    }

    /// Checks the configuration, discovers what is not configured, and fetches the keys.
    pub async fn build(self) -> Result<OAuth, OAuthError> {
        if !self.issuer.starts_with("https://") && !self.issuer.starts_with("http://") {
            return Err(OAuthError::Config(format!("the issuer {:?} is not an http(s) URL", self.issuer)));
        }
        let scopes = self.scopes_supported.iter().chain(self.challenge_scopes.iter().flatten());
        if let Some(bad) = scopes.clone().find(|scope| !is_scope_token(scope)) {
            return Err(OAuthError::Config(format!(
                "{bad:?} is not an OAuth scope (no spaces, quotes or backslashes)"
            )));
        }
        let fetcher = Fetcher::new(self.timeout).map_err(OAuthError::Config)?;
        let introspects = self.introspection.is_some();
        let needs_metadata = self.jwks_uri.is_none() || (introspects && self.introspection_endpoint.is_none());
        let metadata = match needs_metadata {
            true => Some(discovery::discover(&fetcher, &self.issuer).await.map_err(OAuthError::Discovery)?),
            false => None,
        };
        let jwks_uri = self.jwks_uri.or_else(|| metadata.as_ref().and_then(|m| m.jwks_uri.clone()));
        if jwks_uri.is_none() && !introspects {
            return Err(OAuthError::Discovery(format!("{} publishes no jwks_uri", self.issuer)));
        }
        let introspection = match self.introspection {
            None => None,
            Some((id, secret, remember)) => {
                let endpoint = self
                    .introspection_endpoint
                    .or_else(|| metadata.as_ref().and_then(|m| m.introspection_endpoint.clone()))
                    .ok_or_else(|| {
                        OAuthError::Discovery(format!("{} publishes no introspection_endpoint", self.issuer))
                    })?;
                Some(Introspection::new(endpoint, id, secret, remember))
            }
        };
        // Without a key set (an issuer of opaque tokens only), every token is introspected.
        let keys = match jwks_uri {
            Some(url) => Some(
                KeyCache::load(fetcher.clone(), url, self.key_refetch_interval, self.key_max_age)
                    .await
                    .map_err(OAuthError::Keys)?,
            ),
            None => None,
        };
        Ok(OAuth {
            inner: Arc::new(Verifier {
                issuer: self.issuer,
                audience: self.audience,
                leeway: self.leeway,
                scopes_supported: self.scopes_supported,
                challenge_scopes: self.challenge_scopes,
                fetcher,
                keys,
                introspection,
            }),
        })
    }
}
