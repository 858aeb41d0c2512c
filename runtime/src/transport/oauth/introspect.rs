//! Opaque access tokens, checked with the authorization server's introspection endpoint
//! (RFC 7662). Active answers are remembered briefly (by the token's SHA-256, never the token),
//! so a client's every request does not cost the authorization server one.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::fetch::Fetcher;
use super::verify::{Expectations, principal_named_by};
use crate::context::Principal;
use crate::model::JsonObject;
use crate::transport::http::Unauthorized;

/// How many answers are remembered at most.
const CACHE_ENTRIES: usize = 10_000;

/// An introspection endpoint and the resource server's credentials for it.
pub(super) struct Introspection {
    endpoint: String,
    client_id: String,
    client_secret: String,
    remember: Duration,
    cache: Mutex<HashMap<[u8; 32], (Principal, Instant)>>,
}

#[derive(Deserialize)]
struct IntrospectionResponse {
    active: bool,
    #[serde(flatten)]
    claims: JsonObject,
}

impl Introspection {
    pub(super) fn new(endpoint: String, client_id: String, client_secret: String, remember: Duration) -> Self {
        Introspection { endpoint, client_id, client_secret, remember, cache: Mutex::default() }
    }

    /// The principal `token` stands for, as the authorization server says.
    pub(super) async fn check(
        &self,
        fetcher: &Fetcher,
        token: &str,
        expect: &Expectations<'_>,
    ) -> Result<Principal, Unauthorized> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let now = Instant::now();
        if let Some((principal, until)) = self.cache.lock().unwrap_or_else(|p| p.into_inner()).get(&digest)
            && *until > now
        {
            return Ok(principal.clone());
        }
        let form = [("token", token), ("token_type_hint", "access_token")];
        let answer: IntrospectionResponse = fetcher
            .post_form(&self.endpoint, &form, (&self.client_id, &self.client_secret))
            .await
            .map_err(|error| {
                tracing::warn!(%error, "token introspection failed");
                Unauthorized::invalid_token("The token could not be checked with the authorization server")
            })?;
        if !answer.active {
            return Err(Unauthorized::invalid_token("The token is not active"));
        }
        let expires = admit(&answer.claims, expect)?;
        // `sub` is optional in an introspection answer, and authorization servers leave it out
        // for a client-credentials token: that token's subject is its client (as RFC 9068
        // §2.2 has it for the same token as a JWT).
        let subject_claim = if answer.claims.contains_key("sub") { "sub" } else { "client_id" };
        let principal = principal_named_by(answer.claims, subject_claim)?;
        let until = now + expires.map_or(self.remember, |left| left.min(self.remember));
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= CACHE_ENTRIES {
            cache.retain(|_, (_, until)| *until > now);
            if cache.len() >= CACHE_ENTRIES {
                cache.clear();
            }
        }
        cache.insert(digest, (principal.clone(), until));
        Ok(principal)
    }
}

/// Checks an active token's claims as a JWT's are checked; how long it stays valid, if it
/// says.
fn admit(claims: &JsonObject, expect: &Expectations<'_>) -> Result<Option<Duration>, Unauthorized> {
    if claims.get("iss").and_then(Value::as_str).is_some_and(|iss| iss != expect.issuer) {
        return Err(Unauthorized::invalid_token("The token was issued by another authorization server"));
    }
    let for_us = match claims.get("aud") {
        Some(Value::String(aud)) => aud == expect.audience,
        Some(Value::Array(auds)) => auds.iter().any(|aud| aud.as_str() == Some(expect.audience)),
        _ => false,
    };
    if !for_us {
        return Err(Unauthorized::invalid_token("The token is for another resource"));
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let leeway = expect.leeway.as_secs();
    if claims.get("nbf").and_then(Value::as_u64).is_some_and(|nbf| nbf > now + leeway) {
        return Err(Unauthorized::invalid_token("The token is not valid yet"));
    }
    match claims.get("exp").and_then(Value::as_u64) {
        Some(exp) if exp + leeway <= now => Err(Unauthorized::invalid_token("The token has expired")),
        Some(exp) => Ok(Some(Duration::from_secs(exp.saturating_sub(now)))),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_active_answer_is_held_to_the_same_rules_as_a_jwt() {
        let expect = Expectations { issuer: "https://as", audience: "https://rs/mcp", leeway: Duration::ZERO };
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        let claims = |v: serde_json::Value| v.as_object().cloned().unwrap();
        let good = claims(json!({"iss": "https://as", "aud": ["https://rs/mcp"], "exp": now + 60}));
        assert!(admit(&good, &expect).unwrap().is_some_and(|left| left <= Duration::from_secs(60)));
        for bad in [
            json!({"aud": "https://other/mcp"}),
            json!({}),
            json!({"aud": "https://rs/mcp", "iss": "https://evil"}),
            json!({"aud": "https://rs/mcp", "exp": now - 1}),
            json!({"aud": "https://rs/mcp", "nbf": now + 600}),
        ] {
            assert!(admit(&claims(bad.clone()), &expect).is_err(), "{bad}");
        }
    }
}
