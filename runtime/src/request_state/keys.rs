//! The keys that sign and verify states, and how they rotate.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use hmac::KeyInit;

use super::{HmacSha256, MIN_KEY_BYTES};

/// One key of the ring.
#[derive(Clone)]
pub struct StateKey {
    pub(super) id: String,
    pub(super) mac: HmacSha256,
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secret.
        f.debug_struct("StateKey").field("id", &self.id).finish_non_exhaustive()
    }
}

/// Why a key cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeyError {
    /// The id is empty, too long, or has characters other than `A-Z a-z 0-9 _ . -`.
    #[error("state key id {0:?} is invalid: use 1 to 64 of A-Z a-z 0-9 _ . -")]
    InvalidId(String),
    /// The secret is shorter than [`MIN_KEY_BYTES`].
    #[error("state key {id:?} is {len} bytes; use at least {MIN_KEY_BYTES} random bytes")]
    TooShort {
        /// The key id.
        id: String,
        /// Its length.
        len: usize,
    },
    /// The secret is not valid base64.
    #[error("state key {0:?} is not valid base64")]
    NotBase64(String),
    /// Two keys share an id.
    #[error("two state keys have the id {0:?}")]
    DuplicateId(String),
    /// The key named to sign is not in the ring.
    #[error("no state key has the id {0:?} to sign with")]
    UnknownSigningKey(String),
}

impl StateKey {
    /// A key from raw secret bytes (at least 32 random bytes).
    pub fn new(id: impl Into<String>, secret: &[u8]) -> Result<Self, KeyError> {
        let id = id.into();
        if id.is_empty()
            || id.len() > 64
            || !id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        {
            return Err(KeyError::InvalidId(id));
        }
        if secret.len() < MIN_KEY_BYTES {
            return Err(KeyError::TooShort { id, len: secret.len() });
        }
        let mac = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length");
        Ok(StateKey { id, mac })
    }

    /// A key from a base64 secret, as kept in configuration files.
    pub fn from_base64(id: impl Into<String>, secret: &str) -> Result<Self, KeyError> {
        let id = id.into();
        let bytes = STANDARD.decode(secret.trim()).map_err(|_| KeyError::NotBase64(id.clone()))?;
        StateKey::new(id, &bytes)
    }

    /// A fresh random secret, base64-encoded, for writing into a configuration file.
    pub fn generate_secret() -> String {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).expect("the operating system provides randomness");
        STANDARD.encode(secret)
    }

    /// The key id.
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// The keys that sign and verify states: one signs (the newest, unless
/// [`signing_with`](KeyRing::signing_with) names another), all of them verify, so keys can
/// rotate without breaking states in flight.
///
/// Rotating across a fleet is three rolling restarts, so that no instance ever meets a state
/// signed by a key it does not know: add the new key everywhere while the old one still signs;
/// then sign with the new one everywhere; then, once the states signed with the old one have
/// expired (the state TTL), remove it.
///
/// ```
/// use mcp_rounds::request_state::{KeyRing, StateKey};
///
/// let old = StateKey::new("k1", &[1; 32]).unwrap();
/// let new = StateKey::new("k2", &[2; 32]).unwrap();
/// // Step one: k2 verifies everywhere, k1 still signs.
/// let ring = KeyRing::new([old, new]).unwrap().signing_with("k1").unwrap();
/// assert_eq!(ring.signing_id(), Some("k1"));
/// ```
#[derive(Clone, Debug)]
pub struct KeyRing {
    keys: Arc<Vec<StateKey>>,
    /// Index of the key that signs.
    signing: usize,
    development: bool,
}

impl KeyRing {
    /// A ring of keys, oldest first; the last one signs.
    pub fn new(keys: impl IntoIterator<Item = StateKey>) -> Result<Self, KeyError> {
        let keys: Vec<StateKey> = keys.into_iter().collect();
        for (i, key) in keys.iter().enumerate() {
            if keys[..i].iter().any(|k| k.id == key.id) {
                return Err(KeyError::DuplicateId(key.id.clone()));
            }
        }
        let signing = keys.len().saturating_sub(1);
        Ok(KeyRing { keys: Arc::new(keys), signing, development: false })
    }

    /// The same ring, signing with the key `id` (the others still verify).
    pub fn signing_with(mut self, id: &str) -> Result<Self, KeyError> {
        self.signing =
            self.keys.iter().position(|k| k.id == id).ok_or_else(|| KeyError::UnknownSigningKey(id.to_owned()))?;
        Ok(self)
    }

    /// The id of the key that signs (none in an empty ring).
    pub fn signing_id(&self) -> Option<&str> {
        self.signing_key().map(StateKey::id)
    }

    /// A random key for local development only. States it signs are refused by every other
    /// process and after a restart, so it must be chosen on purpose, never as a fallback.
    pub fn development() -> Self {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).expect("the operating system provides randomness");
        let key = StateKey::new("development", &secret).expect("a valid development key");
        KeyRing { keys: Arc::new(vec![key]), signing: 0, development: true }
    }

    /// True for [`KeyRing::development`].
    pub fn is_development(&self) -> bool {
        self.development
    }

    pub(super) fn signing_key(&self) -> Option<&StateKey> {
        self.keys.get(self.signing)
    }

    pub(super) fn key(&self, id: &str) -> Option<&StateKey> {
        self.keys.iter().find(|k| k.id == id)
    }
}
