//! Logins kept between runs: what a [`TokenStore`] saves and loads (tokens, the client's
//! credentials at that issuer, the resource they are for), so that a command run later uses
//! and refreshes the token a login got.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::flow::Grant;
use super::registration::Registered;

/// Where an application keeps a login: a file only the user can read, a keyring, memory.
/// Implementations must keep what they are given secret: it holds tokens and maybe a secret.
pub trait TokenStore: Send + Sync + 'static {
    /// The login saved last, if any.
    fn load(&self) -> Option<SavedLogin>;
    /// Keeps `login` (replacing what was kept).
    fn save(&self, login: &SavedLogin);
    /// Forgets the login (it no longer works).
    fn clear(&self);
}

/// A login as a [`TokenStore`] keeps it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SavedLogin {
    /// The authorization server that issued the tokens.
    pub issuer: String,
    /// The resource they are for, as its metadata names it.
    pub resource: String,
    /// The client's id at that issuer.
    pub client_id: String,
    /// The client's secret there, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint.
    pub token_endpoint_auth_method: String,
    /// The access token.
    pub access_token: String,
    /// The refresh token, if one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When to refresh the access token, in seconds since 1970.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_at: Option<u64>,
    /// The scope asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl std::fmt::Debug for SavedLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Tokens and secrets never appear in a debug string.
        f.debug_struct("SavedLogin")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("client_id", &self.client_id)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

fn unix(at: Instant) -> u64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    (now + at.saturating_duration_since(Instant::now())).as_secs()
}

fn instant(unix_seconds: u64) -> Instant {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    Instant::now() + Duration::from_secs(unix_seconds).saturating_sub(now)
}

impl SavedLogin {
    pub(crate) fn new(grant: &Grant, client: &Registered, resource: &str) -> SavedLogin {
        SavedLogin {
            issuer: grant.issuer.clone(),
            resource: resource.to_owned(),
            client_id: client.client_id.clone(),
            client_secret: client.secret.clone(),
            token_endpoint_auth_method: client.method.clone(),
            access_token: grant.access.clone(),
            refresh_token: grant.refresh.clone(),
            refresh_at: grant.refresh_at.map(unix),
            scope: grant.scope.clone(),
        }
    }

    /// The grant and the client's credentials it holds.
    pub(crate) fn parts(&self) -> (Grant, Registered) {
        let grant = Grant {
            issuer: self.issuer.clone(),
            access: self.access_token.clone(),
            refresh: self.refresh_token.clone(),
            refresh_at: self.refresh_at.map(instant),
            scope: self.scope.clone(),
        };
        let client = Registered {
            client_id: self.client_id.clone(),
            secret: self.client_secret.clone(),
            method: self.token_endpoint_auth_method.clone(),
            key: None,
        };
        (grant, client)
    }
}
