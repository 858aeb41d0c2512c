//! Signed `requestState`: what a multi-round request carries from one round to the next, bound
//! to who asked, for what, and until when.
//!
//! A state is `base64url(payload || HMAC-SHA256(key, payload))`. The payload is a versioned,
//! canonical binary record: the key id, expiry, nonce, principal, method, target, a digest of
//! the original arguments, the round and its data. Nothing in it is believed before the MAC is
//! checked in constant time, and every failure looks the same to the client: one -32602.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::error::Error;

mod keys;

pub use keys::{KeyError, KeyRing, StateKey};

type HmacSha256 = Hmac<Sha256>;

const VERSION: u8 = 1;
const MAC_LEN: usize = 32;
/// Smallest secret accepted for a state key, in bytes.
pub const MIN_KEY_BYTES: usize = 32;
/// Largest state accepted, in bytes as sent (base64url).
pub const MAX_STATE_BYTES: usize = 64 * 1024;
/// How long a state stays valid unless configured otherwise.
pub const DEFAULT_STATE_TTL: Duration = Duration::from_secs(300);

/// The message for every state that is refused, whatever the reason: the client learns
/// nothing about what was checked.
const REFUSED: &str = "Invalid or expired requestState";

/// The error for a refused state.
pub(crate) fn refused() -> Error {
    Error::invalid_field("requestState", REFUSED)
}

/// What a state is bound to: who asked, which method and target, with which arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The principal's name (empty for anonymous).
    pub principal: String,
    /// The method, e.g. `tools/call`.
    pub method: String,
    /// The tool name, prompt name or resource URI.
    pub target: String,
    /// SHA-256 of the canonical original arguments.
    pub arguments_digest: [u8; 32],
}

/// The SHA-256 of a JSON value in canonical form (object keys sorted at every level), so that
/// a client that reorders keys still presents the same arguments.
pub fn arguments_digest(value: &serde_json::Value) -> [u8; 32] {
    let mut hasher = Sha256::new();
    canonical(value, &mut hasher);
    hasher.finalize().into()
}

fn canonical(value: &serde_json::Value, hasher: &mut Sha256) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            hasher.update(b"{");
            for key in keys {
                canonical(&Value::String(key.clone()), hasher);
                hasher.update(b":");
                canonical(&map[key.as_str()], hasher);
                hasher.update(b",");
            }
            hasher.update(b"}");
        }
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                canonical(item, hasher);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        scalar => hasher.update(scalar.to_string().as_bytes()),
    }
}

/// The content of a verified state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateClaims {
    /// When the state stops being valid.
    pub expires_at: SystemTime,
    /// Unique per state; what single use is enforced on.
    pub nonce: [u8; 16],
    /// The round (a variant name).
    pub round: String,
    /// The round's data and anything else the framework keeps (JSON).
    pub data: Vec<u8>,
}

fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

struct Writer(Vec<u8>);

impl Writer {
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        self.0.extend_from_slice(bytes);
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = u32::from_be_bytes(self.take(4)?.try_into().ok()?) as usize;
        self.take(len)
    }

    fn string(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }
}

/// 16 random bytes from the operating system, fetched in batches: one system call serves
/// many nonces, each still straight from the kernel's generator.
fn fresh_nonce() -> Result<[u8; 16], Error> {
    use std::cell::RefCell;
    const BATCH: usize = 64 * 16;
    thread_local! {
        static POOL: RefCell<(Box<[u8; BATCH]>, usize)> = RefCell::new((Box::new([0; BATCH]), BATCH));
    }
    POOL.with(|pool| {
        let (bytes, used) = &mut *pool.borrow_mut();
        if *used == BATCH {
            getrandom::fill(&mut bytes[..]).map_err(|e| {
                tracing::error!(error = %e, "no randomness for a state nonce");
                Error::internal()
            })?;
            *used = 0;
        }
        let mut nonce = [0u8; 16];
        nonce.copy_from_slice(&bytes[*used..*used + 16]);
        // A nonce is never handed out twice.
        bytes[*used..*used + 16].fill(0);
        *used += 16;
        Ok(nonce)
    })
}

/// Signs a state for `binding`, valid for `ttl`.
pub fn sign(
    keys: &KeyRing,
    binding: &Binding,
    round: &str,
    data: &[u8],
    ttl: Duration,
) -> Result<(String, StateClaims), Error> {
    let key = keys.signing_key().ok_or_else(|| {
        tracing::error!("a state must be signed but the key ring is empty");
        Error::internal()
    })?;
    let nonce = fresh_nonce()?;
    let expires_at = SystemTime::now() + ttl;
    let mut w = Writer(Vec::with_capacity(128 + data.len()));
    w.0.push(VERSION);
    w.bytes(key.id.as_bytes());
    w.0.extend_from_slice(&millis(expires_at).to_be_bytes());
    w.0.extend_from_slice(&nonce);
    w.bytes(binding.principal.as_bytes());
    w.bytes(binding.method.as_bytes());
    w.bytes(binding.target.as_bytes());
    w.0.extend_from_slice(&binding.arguments_digest);
    w.bytes(round.as_bytes());
    w.bytes(data);
    let mut mac = key.mac.clone();
    mac.update(&w.0);
    w.0.extend_from_slice(&mac.finalize().into_bytes());
    let token = base64_simd::URL_SAFE_NO_PAD.encode_to_string(&w.0);
    if token.len() > MAX_STATE_BYTES {
        tracing::error!(bytes = token.len(), limit = MAX_STATE_BYTES, "round data too large for a requestState");
        return Err(Error::internal());
    }
    let claims = StateClaims {
        expires_at: UNIX_EPOCH + Duration::from_millis(millis(expires_at)),
        nonce,
        round: round.to_owned(),
        data: data.to_vec(),
    };
    Ok((token, claims))
}

/// Why a state was refused; logged on the server, never sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Longer than [`MAX_STATE_BYTES`].
    TooLarge,
    /// Not canonical base64url.
    Encoding,
    /// Too short or an unknown version.
    Format,
    /// Signed with a key this ring does not have.
    UnknownKey,
    /// The MAC does not match.
    Signature,
    /// Past its expiry.
    Expired,
    /// Bound to another principal, method, target or arguments.
    Binding,
}

/// Verifies a state presented for `binding` at `now`.
pub fn verify(keys: &KeyRing, token: &str, binding: &Binding, now: SystemTime) -> Result<StateClaims, Refusal> {
    if token.len() > MAX_STATE_BYTES {
        return Err(Refusal::TooLarge);
    }
    // The decoder refuses padding and non-zero trailing bits, so each state has exactly one
    // spelling.
    let mut bytes = base64_simd::URL_SAFE_NO_PAD.decode_to_vec(token.as_bytes()).map_err(|_| Refusal::Encoding)?;
    if bytes.len() < 1 + 4 + MAC_LEN || bytes[0] != VERSION {
        return Err(Refusal::Format);
    }
    let (signed, tag) = bytes.split_at(bytes.len() - MAC_LEN);
    // Only the key id is read before the MAC is checked, to know which key to check with.
    let mut header = Reader(&signed[1..]);
    let key_id = header.string().ok_or(Refusal::Format)?;
    let key = keys.key(key_id).ok_or(Refusal::UnknownKey)?;
    let mut mac = key.mac.clone();
    mac.update(signed);
    mac.verify_slice(tag).map_err(|_| Refusal::Signature)?;

    let mut r = header;
    let expires_ms = r.u64().ok_or(Refusal::Format)?;
    let nonce: [u8; 16] = r.take(16).and_then(|n| n.try_into().ok()).ok_or(Refusal::Format)?;
    let principal = r.string().ok_or(Refusal::Format)?;
    let method = r.string().ok_or(Refusal::Format)?;
    let target = r.string().ok_or(Refusal::Format)?;
    let digest = r.take(32).ok_or(Refusal::Format)?;
    let round = r.string().ok_or(Refusal::Format)?;
    let data = r.bytes().ok_or(Refusal::Format)?;
    if !r.0.is_empty() {
        return Err(Refusal::Format);
    }
    if millis(now) >= expires_ms {
        return Err(Refusal::Expired);
    }
    if principal != binding.principal
        || method != binding.method
        || target != binding.target
        || digest != binding.arguments_digest
    {
        return Err(Refusal::Binding);
    }
    let round = round.to_owned();
    // The data is handed back in the buffer it was decoded into, moved to its front: it is the
    // last field signed, so it ends where the tag begins.
    let (end, len) = (signed.len(), data.len());
    bytes.copy_within(end - len..end, 0);
    bytes.truncate(len);
    Ok(StateClaims { expires_at: UNIX_EPOCH + Duration::from_millis(expires_ms), nonce, round, data: bytes })
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn ring() -> KeyRing {
        KeyRing::new([StateKey::new("k1", &[7u8; 32]).unwrap()]).unwrap()
    }

    fn binding() -> Binding {
        Binding {
            principal: "demo".into(),
            method: "tools/call".into(),
            target: "notes_delete".into(),
            arguments_digest: arguments_digest(&json!({"title": "TPS", "workspaceUri": "file:///w"})),
        }
    }

    fn state() -> (String, StateClaims) {
        sign(&ring(), &binding(), "Confirm", br#"{"candidates":["a","b","c"]}"#, DEFAULT_STATE_TTL).unwrap()
    }

    #[test]
    fn a_state_verifies_for_its_binding() {
        let (token, claims) = state();
        let verified = verify(&ring(), &token, &binding(), SystemTime::now()).unwrap();
        assert_eq!(verified, claims);
        assert_eq!(verified.round, "Confirm");
    }

    #[test]
    fn the_named_key_signs_and_every_key_verifies() {
        let k2 = || StateKey::new("k2", &[9u8; 32]).unwrap();
        let both = || KeyRing::new([StateKey::new("k1", &[7u8; 32]).unwrap(), k2()]).unwrap();
        let sign_with = |ring: &KeyRing| sign(ring, &binding(), "Confirm", b"{}", DEFAULT_STATE_TTL).unwrap().0;
        let now = SystemTime::now();
        // Mid-rotation: k1 still signs, so a process that knows only k1 accepts the state.
        let by_k1 = sign_with(&both().signing_with("k1").unwrap());
        assert!(verify(&ring(), &by_k1, &binding(), now).is_ok());
        // By default the last key signs, which a process without it refuses.
        let by_k2 = sign_with(&both());
        assert!(verify(&ring(), &by_k2, &binding(), now).is_err());
        assert!(verify(&KeyRing::new([k2()]).unwrap(), &by_k2, &binding(), now).is_ok());
        assert!(matches!(both().signing_with("k3"), Err(KeyError::UnknownSigningKey(id)) if id == "k3"));
    }

    #[test]
    fn argument_order_does_not_matter_but_values_do() {
        let a = arguments_digest(&json!({"a": 1, "b": {"x": [1, 2], "y": null}}));
        let b = arguments_digest(&json!({"b": {"y": null, "x": [1, 2]}, "a": 1}));
        assert_eq!(a, b);
        assert_ne!(a, arguments_digest(&json!({"a": 1, "b": {"x": [2, 1], "y": null}})));
        assert_ne!(arguments_digest(&json!({"a": "1"})), arguments_digest(&json!({"a": 1})));
    }

    #[test]
    fn every_binding_mismatch_is_refused() {
        let (token, _) = state();
        let now = SystemTime::now();
        for changed in [
            Binding { principal: "mallory".into(), ..binding() },
            Binding { principal: String::new(), ..binding() },
            Binding { method: "prompts/get".into(), ..binding() },
            Binding { target: "notes_create".into(), ..binding() },
            Binding { arguments_digest: arguments_digest(&json!({"title": "other"})), ..binding() },
        ] {
            assert_eq!(verify(&ring(), &token, &changed, now), Err(Refusal::Binding), "{changed:?}");
        }
    }

    #[test]
    fn expired_states_are_refused() {
        let (token, claims) = state();
        assert_eq!(verify(&ring(), &token, &binding(), claims.expires_at), Err(Refusal::Expired));
        let later = SystemTime::now() + DEFAULT_STATE_TTL + Duration::from_secs(1);
        assert_eq!(verify(&ring(), &token, &binding(), later), Err(Refusal::Expired));
    }

    #[test]
    fn keys_rotate() {
        let old = StateKey::new("old", &[1u8; 32]).unwrap();
        let new = StateKey::new("new", &[2u8; 32]).unwrap();
        let before = KeyRing::new([old.clone()]).unwrap();
        let after = KeyRing::new([old, new.clone()]).unwrap();
        let (token, _) = sign(&before, &binding(), "R", b"{}", DEFAULT_STATE_TTL).unwrap();
        assert!(verify(&after, &token, &binding(), SystemTime::now()).is_ok(), "old states survive rotation");
        let (fresh, _) = sign(&after, &binding(), "R", b"{}", DEFAULT_STATE_TTL).unwrap();
        assert_eq!(verify(&before, &fresh, &binding(), SystemTime::now()), Err(Refusal::UnknownKey));
        let retired = KeyRing::new([new]).unwrap();
        assert_eq!(verify(&retired, &token, &binding(), SystemTime::now()), Err(Refusal::UnknownKey));
    }

    #[test]
    fn another_key_with_the_same_id_is_refused() {
        let (token, _) = state();
        let imposter = KeyRing::new([StateKey::new("k1", &[8u8; 32]).unwrap()]).unwrap();
        assert_eq!(verify(&imposter, &token, &binding(), SystemTime::now()), Err(Refusal::Signature));
    }

    #[test]
    fn keys_are_checked() {
        assert_eq!(StateKey::new("k", &[0; 31]).unwrap_err(), KeyError::TooShort { id: "k".into(), len: 31 });
        assert!(matches!(StateKey::new("bad id", &[0; 32]), Err(KeyError::InvalidId(_))));
        assert!(matches!(StateKey::from_base64("k", "!!"), Err(KeyError::NotBase64(_))));
        assert!(StateKey::from_base64("k", &StateKey::generate_secret()).is_ok());
        let k = StateKey::new("k", &[0; 32]).unwrap();
        assert_eq!(KeyRing::new([k.clone(), k]).unwrap_err(), KeyError::DuplicateId("k".into()));
        assert!(!format!("{:?}", StateKey::new("k", &[9; 32]).unwrap()).contains('9'), "no secret in Debug");
    }

    #[test]
    fn oversized_states_are_refused_unread() {
        let huge = "A".repeat(MAX_STATE_BYTES + 1);
        assert_eq!(verify(&ring(), &huge, &binding(), SystemTime::now()), Err(Refusal::TooLarge));
        assert!(sign(&ring(), &binding(), "R", &vec![b'x'; MAX_STATE_BYTES], DEFAULT_STATE_TTL).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn any_byte_change_is_refused(position in any::<prop::sample::Index>(), flip in 1u8..=255) {
            let (token, _) = state();
            let mut bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
            let i = position.index(bytes.len());
            bytes[i] ^= flip;
            let tampered = URL_SAFE_NO_PAD.encode(&bytes);
            prop_assert!(verify(&ring(), &tampered, &binding(), SystemTime::now()).is_err());
        }

        #[test]
        fn any_truncation_or_extension_is_refused(cut in 1usize..400, extra in proptest::collection::vec(any::<u8>(), 1..8)) {
            let (token, _) = state();
            let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
            let cut = cut.min(bytes.len());
            let truncated = URL_SAFE_NO_PAD.encode(&bytes[..bytes.len() - cut]);
            prop_assert!(verify(&ring(), &truncated, &binding(), SystemTime::now()).is_err());
            let mut longer = bytes.clone();
            longer.extend_from_slice(&extra);
            prop_assert!(verify(&ring(), &URL_SAFE_NO_PAD.encode(&longer), &binding(), SystemTime::now()).is_err());
            let mut text = token.clone();
            text.truncate(token.len() - cut.min(token.len() - 1));
            prop_assert!(verify(&ring(), &text, &binding(), SystemTime::now()).is_err());
        }

        /// The token is RFC 4648 base64url without padding, as another implementation writes
        /// it, whatever the length; a last character whose unused bits are set is another
        /// spelling of the same bytes, and refused.
        #[test]
        fn the_spelling_is_canonical_base64url(data in proptest::collection::vec(any::<u8>(), 0..64)) {
            let (token, claims) = sign(&ring(), &binding(), "R", &data, DEFAULT_STATE_TTL).unwrap();
            let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
            prop_assert_eq!(&URL_SAFE_NO_PAD.encode(&bytes), &token);
            prop_assert_eq!(verify(&ring(), &token, &binding(), SystemTime::now()).unwrap(), claims);
            let unused_bits = match bytes.len() % 3 { 1 => 4, 2 => 2, _ => 0 };
            if unused_bits > 0 {
                const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
                let last = ALPHABET.iter().position(|c| *c == *token.as_bytes().last().unwrap()).unwrap();
                let mut respelled = token.clone().into_bytes();
                *respelled.last_mut().unwrap() = ALPHABET[last | 1];
                prop_assert!(verify(&ring(), std::str::from_utf8(&respelled).unwrap(), &binding(), SystemTime::now()).is_err());
            }
        }

        #[test]
        fn any_other_spelling_is_refused(choice in 0usize..4) {
            let (token, _) = state();
            let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
            let respelled = match choice {
                0 => base64::engine::general_purpose::URL_SAFE.encode(&bytes),
                1 => STANDARD.encode(&bytes),
                2 => format!("{token}="),
                _ => format!(" {token}"),
            };
            prop_assume!(respelled != token);
            prop_assert!(verify(&ring(), &respelled, &binding(), SystemTime::now()).is_err());
        }

        #[test]
        fn any_other_binding_or_a_late_presentation_is_refused(
            principal in "[a-z]{0,8}",
            method in "[a-z/]{1,12}",
            target in "[a-z_]{1,12}",
            title in ".{0,12}",
            late_ms in 0u64..1_000_000,
        ) {
            let original = binding();
            let (token, claims) = state();
            let other = Binding {
                principal,
                method,
                target,
                arguments_digest: arguments_digest(&json!({"title": title, "workspaceUri": "file:///w"})),
            };
            let verdict = verify(&ring(), &token, &other, SystemTime::now());
            if other == original {
                prop_assert!(verdict.is_ok());
            } else {
                prop_assert_eq!(verdict, Err(Refusal::Binding));
            }
            let late = claims.expires_at + Duration::from_millis(late_ms);
            prop_assert_eq!(verify(&ring(), &token, &original, late), Err(Refusal::Expired));
        }

        #[test]
        fn arbitrary_strings_never_verify(junk in ".{0,200}") {
            prop_assert!(verify(&ring(), &junk, &binding(), SystemTime::now()).is_err());
        }
    }
}
