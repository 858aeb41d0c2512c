//! `requestState` signing and verification: a state verifies, with what was signed, exactly
//! under the key, binding and time it was made for; any other spelling of it, any bytes at all,
//! never verify.

#![no_main]

use std::time::{Duration, SystemTime};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_rounds::request_state::{Binding, KeyRing, MAX_STATE_BYTES, Refusal, StateKey, arguments_digest, sign, verify};
use mcp_rounds_fuzz::keys;

#[derive(Arbitrary, Debug)]
enum Mutation {
    Flip { at: u16, bit: u8 },
    Truncate { at: u16 },
    Insert { at: u16, byte: u8 },
    Replace { at: u16, byte: u8 },
    Swap { a: u16, b: u16 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    principal: String,
    method: String,
    target: String,
    arguments: String,
    round: String,
    data: Vec<u8>,
    ttl_secs: u16,
    /// Which part of the binding another request differs in (none: the same request).
    other: Option<(u8, String)>,
    mutations: Vec<Mutation>,
    forged: String,
}

fn mutate(token: &str, mutations: &[Mutation]) -> String {
    let mut bytes = token.as_bytes().to_vec();
    for mutation in mutations {
        let at = |i: u16, len: usize| if len == 0 { 0 } else { usize::from(i) % len };
        match *mutation {
            Mutation::Flip { at: i, bit } if !bytes.is_empty() => {
                let i = at(i, bytes.len());
                bytes[i] ^= 1 << (bit % 8);
            }
            Mutation::Truncate { at: i } => bytes.truncate(at(i, bytes.len() + 1)),
            Mutation::Insert { at: i, byte } => bytes.insert(at(i, bytes.len() + 1), byte),
            Mutation::Replace { at: i, byte } if !bytes.is_empty() => {
                let i = at(i, bytes.len());
                bytes[i] = byte;
            }
            Mutation::Swap { a, b } if !bytes.is_empty() => {
                let len = bytes.len();
                bytes.swap(at(a, len), at(b, len));
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fuzz_target!(|input: Input| {
    let keys = keys();
    let binding = Binding {
        principal: input.principal,
        method: input.method,
        target: input.target,
        arguments_digest: arguments_digest(&serde_json::Value::String(input.arguments)),
    };
    let ttl = Duration::from_secs(u64::from(input.ttl_secs) + 1);
    let Ok((token, claims)) = sign(&keys, &binding, &input.round, &input.data, ttl) else {
        // Only a state too large is refused at signing.
        let signed = input.data.len()
            + input.round.len()
            + binding.principal.len()
            + binding.method.len()
            + binding.target.len();
        assert!(signed > MAX_STATE_BYTES * 3 / 4 - 128, "a state of {signed} bytes refused");
        return;
    };
    let now = SystemTime::now();
    let verified = verify(&keys, &token, &binding, now).expect("a fresh state verifies");
    assert_eq!((verified.round, verified.data, verified.nonce), (claims.round, claims.data, claims.nonce));
    assert_eq!(verified.expires_at, claims.expires_at);

    assert_eq!(verify(&keys, &token, &binding, now + ttl + Duration::from_secs(1)).err(), Some(Refusal::Expired));
    let stranger = KeyRing::new([StateKey::new("other", &[9; 32]).unwrap()]).unwrap();
    assert_eq!(verify(&stranger, &token, &binding, now).err(), Some(Refusal::UnknownKey));
    let impostor = KeyRing::new([StateKey::new("fuzz", &[9; 32]).unwrap()]).unwrap();
    assert_eq!(verify(&impostor, &token, &binding, now).err(), Some(Refusal::Signature));

    if let Some((part, value)) = input.other {
        let mut other = binding.clone();
        match part % 4 {
            0 => other.principal = value,
            1 => other.method = value,
            2 => other.target = value,
            _ => other.arguments_digest = arguments_digest(&serde_json::Value::String(value)),
        }
        if other != binding {
            assert_eq!(verify(&keys, &token, &other, now).err(), Some(Refusal::Binding));
        }
    }

    let mutated = mutate(&token, &input.mutations);
    if mutated != token {
        assert!(verify(&keys, &mutated, &binding, now).is_err(), "a changed state verified: {mutated}");
    }
    if input.forged != token {
        assert!(verify(&keys, &input.forged, &binding, now).is_err(), "forged bytes verified");
    }
});
