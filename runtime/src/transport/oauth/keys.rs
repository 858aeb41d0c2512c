//! The authorization server's signing keys (its JWKS), cached. A token signed by a key not in
//! the cache makes one fetch, shared by every request waiting for it and spaced out by a
//! minimum interval, so that a rotated key is picked up within seconds and a burst of tokens
//! with made-up key ids costs the authorization server one request.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, KeyOperations, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Mutex;

use super::fetch::{FetchError, Fetcher};

/// One verification key.
pub(super) struct VerificationKey {
    kid: Option<String>,
    /// The algorithm the key is for, when the JWKS says.
    alg: Option<Algorithm>,
    pub(super) decoding: DecodingKey,
}

impl VerificationKey {
    /// Whether a token signed with `alg` may be checked against this key: the key's own
    /// algorithm if it names one, else any of its family's.
    pub(super) fn fits(&self, alg: Algorithm) -> bool {
        match self.alg {
            Some(own) => own == alg,
            None => self.decoding.family().algorithms().contains(&alg),
        }
    }
}

struct KeySet {
    keys: Vec<Arc<VerificationKey>>,
    fetched: Instant,
    generation: u64,
}

/// When the keys were last fetched because of a token, for the minimum interval.
#[derive(Default)]
struct Refetch {
    last: Option<Instant>,
}

/// The JWKS at one URL, fetched once at start and again when a token needs it.
pub(super) struct KeyCache {
    fetcher: Fetcher,
    url: String,
    current: RwLock<Arc<KeySet>>,
    refetch: Mutex<Refetch>,
    min_interval: Duration,
    max_age: Duration,
}

#[derive(Deserialize)]
struct JwkSet {
    keys: Vec<Value>,
}

impl KeyCache {
    /// Fetches the keys at `url`; fails when they cannot be had (the server should not start).
    pub(super) async fn load(
        fetcher: Fetcher,
        url: String,
        min_interval: Duration,
        max_age: Duration,
    ) -> Result<Self, FetchError> {
        let keys = fetch(&fetcher, &url).await?;
        if keys.is_empty() {
            return Err(format!("{url}: no signing key this server can use (RSA, EC or Ed25519, for signatures)"));
        }
        let set = KeySet { keys, fetched: Instant::now(), generation: 0 };
        Ok(KeyCache {
            fetcher,
            url,
            current: RwLock::new(Arc::new(set)),
            refetch: Mutex::new(Refetch::default()),
            min_interval,
            max_age,
        })
    }

    fn current(&self) -> Arc<KeySet> {
        self.current.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// The keys a token with key id `kid` (if any) signed with `alg` may be checked against:
    /// the one with that id, or without an id every key that fits. Fetches the keys again
    /// when none is known, or when they are older than the maximum age.
    pub(super) async fn candidates(&self, kid: Option<&str>, alg: Algorithm) -> Vec<Arc<VerificationKey>> {
        let set = self.current();
        let stale = set.fetched.elapsed() >= self.max_age;
        let found = matching(&set, kid, alg);
        if !found.is_empty() && !stale {
            return found;
        }
        let refreshed = self.refresh(set.generation, stale).await;
        matching(&refreshed, kid, alg)
    }

    /// Fetches the keys again, unless another request did since `seen` or one did within the
    /// minimum interval; the keys as they are afterwards.
    async fn refresh(&self, seen: u64, stale: bool) -> Arc<KeySet> {
        let mut refetch = self.refetch.lock().await;
        let set = self.current();
        if set.generation != seen {
            // Another request fetched them while this one waited.
            return set;
        }
        let now = Instant::now();
        if !stale && refetch.last.is_some_and(|last| now.duration_since(last) < self.min_interval) {
            return set;
        }
        refetch.last = Some(now);
        let fetched = fetch(&self.fetcher, &self.url).await;
        let keys = match fetched {
            Ok(keys) => keys,
            Err(error) => {
                // The keys held stay in use: an unreachable authorization server must not
                // lock everybody out. They are tried again after the minimum interval.
                tracing::warn!(%error, "cannot fetch the authorization server's keys again");
                let kept = KeySet { keys: set.keys.clone(), fetched: now, generation: set.generation + 1 };
                return self.store(kept);
            }
        };
        tracing::debug!(keys = keys.len(), "fetched the authorization server's keys");
        self.store(KeySet { keys, fetched: now, generation: set.generation + 1 })
    }

    fn store(&self, set: KeySet) -> Arc<KeySet> {
        let set = Arc::new(set);
        *self.current.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = set.clone();
        set
    }
}

fn matching(set: &KeySet, kid: Option<&str>, alg: Algorithm) -> Vec<Arc<VerificationKey>> {
    set.keys
        .iter()
        .filter(|key| match kid {
            Some(kid) => key.kid.as_deref() == Some(kid),
            None => true,
        })
        .filter(|key| key.fits(alg))
        .cloned()
        .collect()
}

async fn fetch(fetcher: &Fetcher, url: &str) -> Result<Vec<Arc<VerificationKey>>, FetchError> {
    let set: JwkSet = fetcher.get_json(url).await?;
    Ok(set.keys.into_iter().filter_map(usable).map(Arc::new).collect())
}

/// A JWK as a verification key, unless it is not one: a symmetric key (never accepted from a
/// key set: anyone can read it), a key for encryption, or one this server cannot use.
fn usable(value: Value) -> Option<VerificationKey> {
    let jwk: Jwk = serde_json::from_value(value).ok()?;
    if jwk.common.public_key_use.as_ref().is_some_and(|used| *used != PublicKeyUse::Signature) {
        return None;
    }
    if jwk.common.key_operations.as_ref().is_some_and(|ops| !ops.contains(&KeyOperations::Verify)) {
        return None;
    }
    let decoding = DecodingKey::from_jwk(&jwk).ok()?;
    if decoding.family() == AlgorithmFamily::Hmac {
        return None;
    }
    let alg = match jwk.common.key_algorithm {
        Some(alg) => Some(Algorithm::try_from(alg).ok()?),
        None => None,
    };
    if alg.is_some_and(|alg| !decoding.family().algorithms().contains(&alg)) {
        return None;
    }
    Some(VerificationKey { kid: jwk.common.key_id, alg, decoding })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_signature_keys_of_asymmetric_families_are_kept() {
        let ec = json!({"kty": "EC", "crv": "P-256", "kid": "ec", "alg": "ES256", "use": "sig",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"});
        let key = usable(ec.clone()).expect("an EC signing key");
        assert!(key.fits(Algorithm::ES256));
        assert!(!key.fits(Algorithm::ES384) && !key.fits(Algorithm::RS256) && !key.fits(Algorithm::HS256));
        let mut encryption = ec.clone();
        encryption["use"] = json!("enc");
        assert!(usable(encryption).is_none());
        let mut mislabelled = ec;
        mislabelled["alg"] = json!("RS256");
        assert!(usable(mislabelled).is_none(), "an EC key claiming to be RSA");
        assert!(usable(json!({"kty": "oct", "k": "c2VjcmV0", "kid": "h"})).is_none(), "symmetric keys are refused");
        assert!(usable(json!({"kty": "RSA", "kid": "broken"})).is_none());
    }
}
