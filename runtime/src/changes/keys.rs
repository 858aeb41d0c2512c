//! The keys that seal what instances tell each other through the database: whoever can connect
//! to it can send a notification, so a notification counts only when it carries an HMAC-SHA256
//! tag made with a key of the ring. One key seals, all of them open, so keys rotate as
//! [`KeyRing`](crate::request_state::KeyRing)'s do.
//!
//! A sealed payload is `mcp-rounds/1 <key id> <tag> <body>`: the tag is the base64url (no
//! padding) HMAC-SHA256, under the key, of `mcp-rounds/1 <key id> <body>`.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Smallest secret accepted for a relay key, in bytes.
pub const MIN_RELAY_KEY_BYTES: usize = 32;
/// What every sealed payload starts with (and its MAC covers): the format's version.
const PREFIX: &str = "mcp-rounds/1";

/// One key of a [`RelayKeys`] ring.
#[derive(Clone)]
pub struct RelayKey {
    id: String,
    mac: Hmac<Sha256>,
}

impl fmt::Debug for RelayKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secret.
        f.debug_struct("RelayKey").field("id", &self.id).finish_non_exhaustive()
    }
}

/// Why relay keys cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RelayKeyError {
    /// The id is empty, too long, or has characters other than `A-Z a-z 0-9 _ . -`.
    #[error("relay key id {0:?} is invalid: use 1 to 64 of A-Z a-z 0-9 _ . -")]
    InvalidId(String),
    /// The secret is shorter than [`MIN_RELAY_KEY_BYTES`].
    #[error("relay key {id:?} is {len} bytes; use at least {MIN_RELAY_KEY_BYTES} random bytes")]
    TooShort {
        /// The key id.
        id: String,
        /// Its length.
        len: usize,
    },
    /// The secret is not valid base64.
    #[error("relay key {0:?} is not valid base64")]
    NotBase64(String),
    /// Two keys share an id.
    #[error("two relay keys have the id {0:?}")]
    DuplicateId(String),
    /// The key named to seal is not in the ring.
    #[error("no relay key has the id {0:?} to seal with")]
    UnknownSigningKey(String),
    /// A ring needs a key to seal with.
    #[error("a relay key ring needs at least one key")]
    Empty,
}

impl RelayKey {
    /// A key from raw secret bytes (at least 32 random bytes).
    pub fn new(id: impl Into<String>, secret: &[u8]) -> Result<Self, RelayKeyError> {
        let id = id.into();
        if id.is_empty()
            || id.len() > 64
            || !id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        {
            return Err(RelayKeyError::InvalidId(id));
        }
        if secret.len() < MIN_RELAY_KEY_BYTES {
            return Err(RelayKeyError::TooShort { id, len: secret.len() });
        }
        let mac = Hmac::new_from_slice(secret).expect("HMAC takes keys of any length");
        Ok(RelayKey { id, mac })
    }

    /// A key from a base64 secret, as kept in configuration files.
    pub fn from_base64(id: impl Into<String>, secret: &str) -> Result<Self, RelayKeyError> {
        let id = id.into();
        let bytes = STANDARD.decode(secret.trim()).map_err(|_| RelayKeyError::NotBase64(id.clone()))?;
        RelayKey::new(id, &bytes)
    }

    /// The key id.
    pub fn id(&self) -> &str {
        &self.id
    }

    fn tag(&self, body: &str) -> Hmac<Sha256> {
        let mut mac = self.mac.clone();
        for part in [PREFIX, " ", &self.id, " ", body] {
            mac.update(part.as_bytes());
        }
        mac
    }
}

/// The keys a change relay seals its notifications with and opens others' with: one seals (the
/// last, unless [`signing_with`](Self::signing_with) names another), all of them open. Every
/// instance sharing the database needs the key that seals on any of them.
///
/// Rotating is three rolling restarts, so that no instance ever meets a notification sealed
/// with a key it does not know: add the new key everywhere while the old one still seals; then
/// seal with the new one everywhere; then remove the old one.
///
/// ```
/// use mcp_rounds::changes::{RelayKey, RelayKeys};
///
/// let old = RelayKey::new("r1", &[1; 32]).unwrap();
/// let new = RelayKey::new("r2", &[2; 32]).unwrap();
/// // Step one: r2 opens everywhere, r1 still seals.
/// let keys = RelayKeys::new([old, new]).unwrap().signing_with("r1").unwrap();
/// assert_eq!(keys.signing_id(), "r1");
/// ```
#[derive(Clone, Debug)]
pub struct RelayKeys {
    keys: Arc<Vec<RelayKey>>,
    /// Index of the key that seals.
    signing: usize,
}

/// Why a payload does not open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unopened {
    /// Not a sealed payload at all (an instance without keys, or anyone with a `NOTIFY`).
    Unsealed,
    /// Sealed with a key this ring does not have.
    UnknownKey,
    /// The tag is not the key's over this body.
    WrongTag,
}

impl RelayKeys {
    /// A ring of keys, oldest first; the last one seals.
    pub fn new(keys: impl IntoIterator<Item = RelayKey>) -> Result<Self, RelayKeyError> {
        let keys: Vec<RelayKey> = keys.into_iter().collect();
        for (i, key) in keys.iter().enumerate() {
            if keys[..i].iter().any(|k| k.id == key.id) {
                return Err(RelayKeyError::DuplicateId(key.id.clone()));
            }
        }
        let signing = keys.len().checked_sub(1).ok_or(RelayKeyError::Empty)?;
        Ok(RelayKeys { keys: Arc::new(keys), signing })
    }

    /// The same ring, sealing with the key `id` (the others still open).
    pub fn signing_with(mut self, id: &str) -> Result<Self, RelayKeyError> {
        self.signing =
            self.keys.iter().position(|k| k.id == id).ok_or_else(|| RelayKeyError::UnknownSigningKey(id.to_owned()))?;
        Ok(self)
    }

    /// The id of the key that seals.
    pub fn signing_id(&self) -> &str {
        &self.keys[self.signing].id
    }

    /// How many bytes sealing adds to a body, at most.
    pub(crate) fn overhead(&self) -> usize {
        // The prefix, the key id, the tag (32 bytes as base64url: 43) and three spaces.
        PREFIX.len() + self.signing_id().len() + 43 + 3
    }

    /// `body` sealed with the signing key.
    pub(crate) fn seal(&self, body: &str) -> String {
        let key = &self.keys[self.signing];
        let tag = URL_SAFE_NO_PAD.encode(key.tag(body).finalize().into_bytes());
        format!("{PREFIX} {} {tag} {body}", key.id)
    }

    /// The body of a payload sealed with a key of the ring. The tag is compared in constant time.
    pub(crate) fn open<'a>(&self, payload: &'a str) -> Result<&'a str, Unopened> {
        let mut parts = payload.splitn(4, ' ');
        let (Some(PREFIX), Some(id), Some(tag), Some(body)) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Unopened::Unsealed);
        };
        let key = self.keys.iter().find(|k| k.id == id).ok_or(Unopened::UnknownKey)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Unopened::WrongTag)?;
        key.tag(body).verify_slice(&tag).map_err(|_| Unopened::WrongTag)?;
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: &str, byte: u8) -> RelayKey {
        RelayKey::new(id, &[byte; 32]).unwrap()
    }

    #[test]
    fn a_sealed_payload_opens_with_the_ring_and_nothing_else_does() {
        let ring = RelayKeys::new([key("r1", 1)]).unwrap();
        let sealed = ring.seal(r#"{"from":"a"}"#);
        assert!(sealed.len() <= r#"{"from":"a"}"#.len() + ring.overhead());
        assert_eq!(ring.open(&sealed), Ok(r#"{"from":"a"}"#));

        assert_eq!(ring.open(r#"{"from":"a","events":["tools"]}"#), Err(Unopened::Unsealed));
        assert_eq!(ring.open(""), Err(Unopened::Unsealed));
        let other = RelayKeys::new([key("r9", 9)]).unwrap();
        assert_eq!(other.open(&sealed), Err(Unopened::UnknownKey));
        // The same id with another secret: what someone guessing the id would try.
        let impostor = RelayKeys::new([key("r1", 2)]).unwrap();
        assert_eq!(ring.open(&impostor.seal(r#"{"from":"a"}"#)), Err(Unopened::WrongTag));
        let tampered = sealed.replace(r#""a""#, r#""b""#);
        assert_eq!(ring.open(&tampered), Err(Unopened::WrongTag));
        let garbled = sealed.replacen(' ', " !", 2);
        assert!(ring.open(&garbled).is_err());
    }

    #[test]
    fn during_a_rotation_every_key_of_the_ring_opens_and_one_seals() {
        let old = RelayKeys::new([key("r1", 1)]).unwrap();
        let both_old_sealing = RelayKeys::new([key("r1", 1), key("r2", 2)]).unwrap().signing_with("r1").unwrap();
        let both_new_sealing = RelayKeys::new([key("r1", 1), key("r2", 2)]).unwrap();
        let new = RelayKeys::new([key("r2", 2)]).unwrap();
        for (sealer, opener) in
            [(&old, &both_old_sealing), (&both_old_sealing, &old), (&both_new_sealing, &both_old_sealing)]
        {
            assert!(opener.open(&sealer.seal("x")).is_ok(), "{} → {:?}", sealer.signing_id(), opener);
        }
        assert!(new.open(&both_new_sealing.seal("x")).is_ok());
        assert_eq!(old.open(&new.seal("x")), Err(Unopened::UnknownKey));
    }

    #[test]
    fn mistakes_are_named_and_the_secret_never_shows() {
        assert_eq!(RelayKeys::new([]).unwrap_err(), RelayKeyError::Empty);
        assert_eq!(RelayKeys::new([key("a", 1), key("a", 2)]).unwrap_err(), RelayKeyError::DuplicateId("a".into()));
        assert_eq!(
            RelayKeys::new([key("a", 1)]).unwrap().signing_with("b").unwrap_err(),
            RelayKeyError::UnknownSigningKey("b".into())
        );
        assert_eq!(RelayKey::new("a", &[1; 16]).unwrap_err(), RelayKeyError::TooShort { id: "a".into(), len: 16 });
        assert_eq!(RelayKey::new("a b", &[1; 32]).unwrap_err(), RelayKeyError::InvalidId("a b".into()));
        assert_eq!(RelayKey::from_base64("a", "%%").unwrap_err(), RelayKeyError::NotBase64("a".into()));
        let secret = STANDARD.encode([7u8; 32]);
        let shown = format!("{:?}", RelayKeys::new([RelayKey::from_base64("a", &secret).unwrap()]).unwrap());
        assert!(!shown.contains(&secret) && !shown.contains("7, 7"), "{shown}");
    }
}
