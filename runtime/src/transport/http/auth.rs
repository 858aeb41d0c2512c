//! Who is calling: the authenticator an endpoint is given turns a request's credentials into
//! the principal it acts for, or into the refusal its `401` challenge states.

use std::borrow::Cow;
use std::sync::Arc;

use axum::http::{HeaderMap, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::context::Principal;
use crate::future::BoxFuture;

/// What an [`Authenticator`] sees of one HTTP request.
#[derive(Debug)]
pub struct AuthRequest<'a> {
    headers: &'a HeaderMap,
    resource: Option<&'a str>,
}

impl<'a> AuthRequest<'a> {
    /// A request with `headers`, to an endpoint serving at `resource` (its public URL, when
    /// known).
    pub fn new(headers: &'a HeaderMap, resource: Option<&'a str>) -> Self {
        AuthRequest { headers, resource }
    }

    /// The request's headers.
    pub fn headers(&self) -> &'a HeaderMap {
        self.headers
    }

    /// The URL of the endpoint the request came to, as clients name it: the audience an
    /// access token must be for (RFC 8707). `None` when the endpoint does not know it.
    pub fn resource(&self) -> Option<&'a str> {
        self.resource
    }

    /// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1), if there is
    /// one.
    pub fn bearer_token(&self) -> Option<&'a str> {
        let value = self.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
        let (scheme, token) = value.split_once(' ')?;
        let token = token.trim();
        (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
    }
}

/// Why a request was not authenticated: the `401` that refuses it, and what its challenge says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unauthorized {
    /// The RFC 6750 error code: `invalid_token` when credentials were sent but are not
    /// valid, `None` when none were sent.
    pub error: Option<&'static str>,
    /// A sentence for the client's developer (`error_description`); never part of a token.
    pub description: Option<Cow<'static, str>>,
}

impl Unauthorized {
    /// No credentials were sent.
    pub fn missing() -> Self {
        Unauthorized { error: None, description: None }
    }

    /// Credentials were sent and are not valid; `description` says why, in general terms.
    pub fn invalid_token(description: impl Into<Cow<'static, str>>) -> Self {
        Unauthorized { error: Some("invalid_token"), description: Some(description.into()) }
    }
}

/// An OAuth 2.1 protected resource (RFC 9728): what its metadata document says, which the
/// endpoint serves without authentication and names in every challenge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProtectedResource {
    /// The resource's identifier, which access tokens' `aud` must contain; `None`: the
    /// endpoint's own URL.
    pub resource: Option<String>,
    /// The issuers of the authorization servers whose tokens are accepted.
    pub authorization_servers: Vec<String>,
    /// The scopes the resource understands.
    pub scopes_supported: Vec<String>,
    /// The scopes a `401` asks clients to get (`scope` of the challenge); `None`:
    /// `scopes_supported`. The smallest set that lets a client start, when some scopes are
    /// only needed by some calls (clients ask for more when a `403` says so).
    pub challenge_scopes: Option<Vec<String>>,
}

/// Turns a request's credentials into the principal it acts for.
///
/// Implement it to authenticate callers your own way; [`BearerTokens`] and, with the `oauth`
/// feature, [`OAuth`](crate::transport::oauth::OAuth) are the framework's.
pub trait Authenticator: Send + Sync + 'static {
    /// The principal, or why there is none.
    fn authenticate<'a>(&'a self, request: &'a AuthRequest<'a>) -> BoxFuture<'a, Result<Principal, Unauthorized>>;

    /// The principal (or why there is none) when it is known without waiting, as with a fixed
    /// list of tokens; `None`, the default, means asking [`authenticate`](Self::authenticate).
    /// The endpoint asks this first, and then needs no future for the request at all.
    fn authenticate_now(&self, request: &AuthRequest<'_>) -> Option<Result<Principal, Unauthorized>> {
        let _ = request;
        None
    }

    /// The OAuth protected resource the endpoint is, if it is one: its metadata is served at
    /// `/.well-known/oauth-protected-resource` and named by every challenge.
    fn protected_resource(&self) -> Option<ProtectedResource> {
        None
    }
}

/// Bearer tokens, each standing for one principal. Tokens are compared in constant time
/// (through their SHA-256, so their lengths do not leak either).
#[derive(Clone, Default)]
pub struct BearerTokens {
    tokens: Vec<([u8; 32], Principal)>,
}

impl std::fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the tokens.
        f.debug_struct("BearerTokens").field("principals", &self.tokens.len()).finish()
    }
}

impl BearerTokens {
    /// No tokens yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `Authorization: Bearer <token>` authenticates as `principal`.
    pub fn token(mut self, token: impl AsRef<str>, principal: impl Into<Arc<str>>) -> Self {
        self.tokens.push((Sha256::digest(token.as_ref().as_bytes()).into(), Principal::new(principal)));
        self
    }

    fn check(&self, request: &AuthRequest<'_>) -> Result<Principal, Unauthorized> {
        let Some(presented) = request.bearer_token() else { return Err(Unauthorized::missing()) };
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let mut found = None;
        // Every entry is compared, so the time taken does not say which one matched.
        for (candidate, principal) in &self.tokens {
            if bool::from(candidate.ct_eq(&digest)) {
                found = Some(principal.clone());
            }
        }
        found.ok_or_else(|| Unauthorized::invalid_token("The token is not one this server issued"))
    }
}

impl Authenticator for BearerTokens {
    fn authenticate<'a>(&'a self, request: &'a AuthRequest<'a>) -> BoxFuture<'a, Result<Principal, Unauthorized>> {
        Box::pin(std::future::ready(self.check(request)))
    }

    fn authenticate_now(&self, request: &AuthRequest<'_>) -> Option<Result<Principal, Unauthorized>> {
        Some(self.check(request))
    }
}

/// No authentication: every request is anonymous. For local development only, and only by
/// choosing it explicitly with [`Http::without_authentication`](super::Http::without_authentication).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Anonymous;

impl Authenticator for Anonymous {
    fn authenticate<'a>(&'a self, _: &'a AuthRequest<'a>) -> BoxFuture<'a, Result<Principal, Unauthorized>> {
        Box::pin(std::future::ready(Ok(Principal::anonymous())))
    }

    fn authenticate_now(&self, _: &AuthRequest<'_>) -> Option<Result<Principal, Unauthorized>> {
        Some(Ok(Principal::anonymous()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, authorization.parse().unwrap());
        headers
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_needs_a_token() {
        for (value, token) in [
            ("Bearer abc", Some("abc")),
            ("bearer abc", Some("abc")),
            ("BEARER  abc ", Some("abc")),
            ("Bearer ", None),
            ("Basic abc", None),
            ("Bearerabc", None),
        ] {
            let headers = headers(value);
            assert_eq!(AuthRequest::new(&headers, None).bearer_token(), token, "{value:?}");
        }
    }
}
