//! Who is calling: the authenticator an endpoint is given turns a request's headers into the
//! principal it acts for, or into the `401` challenge that refuses it.

use std::sync::Arc;

use axum::http::{HeaderMap, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::context::Principal;
use crate::future::BoxFuture;

/// Why a request was not authenticated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unauthorized {
    /// The RFC 6750 error code, when credentials were sent but are not valid
    /// (`invalid_token`); `None` when none were sent.
    pub error: Option<&'static str>,
}

/// Turns a request's headers into the principal it acts for.
pub trait Authenticator: Send + Sync + 'static {
    /// The principal, or why there is none.
    fn authenticate<'a>(&'a self, headers: &'a HeaderMap) -> BoxFuture<'a, Result<Principal, Unauthorized>>;
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
}

impl Authenticator for BearerTokens {
    fn authenticate<'a>(&'a self, headers: &'a HeaderMap) -> BoxFuture<'a, Result<Principal, Unauthorized>> {
        Box::pin(async move {
            let presented = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
                .map(str::trim);
            let Some(presented) = presented else { return Err(Unauthorized { error: None }) };
            let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
            let mut found = None;
            // Every entry is compared, so the time taken does not say which one matched.
            for (candidate, principal) in &self.tokens {
                if bool::from(candidate.ct_eq(&digest)) {
                    found = Some(principal.clone());
                }
            }
            found.ok_or(Unauthorized { error: Some("invalid_token") })
        })
    }
}

/// No authentication: every request is anonymous. For local development only, and only by
/// choosing it explicitly with [`Http::without_authentication`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Anonymous;

impl Authenticator for Anonymous {
    fn authenticate<'a>(&'a self, _: &'a HeaderMap) -> BoxFuture<'a, Result<Principal, Unauthorized>> {
        Box::pin(async { Ok(Principal::anonymous()) })
    }
}
