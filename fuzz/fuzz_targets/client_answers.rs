//! What the client's inbox makes of a message from the server, against a reading of the bytes
//! of its own: a message over the limit is refused whole and answers nothing; a message that
//! is not JSON text (invalid UTF-8 anywhere included) is refused; the awaited request is
//! answered only by a JSON object that carries its id and no method, with its `result` (the
//! very value), its `error` (the very code), or, with both or neither, a refusal.
//!
//! Input: one byte for the limit, one for the awaited id, then the message.

#![no_main]

use std::fmt;

use libfuzzer_sys::fuzz_target;
use mcp_rounds::client::fuzzing::deliver;
use mcp_rounds::client::{Limit, TransportError};
use mcp_rounds::jsonrpc::ErrorObject;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

const MAXES: [usize; 4] = [0, 16, 256, 4096];

/// A JSON object's members in order, each as its text, repeated ones kept: the client's
/// envelope refuses a repeated member of its own, which a `Value` would silently collapse.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Collect;
        impl<'de> Visitor<'de> for Collect {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Collect)
    }
}

/// What the message must do to the awaited request.
#[derive(Debug, PartialEq)]
enum Expected {
    Nothing,
    /// Its result, as the text the message holds.
    Result(String),
    /// A JSON-RPC error with this code.
    Error(i64),
    /// A response to it with both `result` and `error`, or neither.
    Refused,
}

/// The members the envelope reads; `null` is as good as absent for each.
const ENVELOPE: [&str; 5] = ["id", "method", "params", "result", "error"];

fn expected(bytes: &[u8], awaited: i64) -> Expected {
    let Ok(Members(members)) = serde_json::from_slice::<Members>(bytes) else { return Expected::Nothing };
    for name in ENVELOPE {
        if members.iter().filter(|(key, _)| key == name).count() > 1 {
            return Expected::Nothing;
        }
    }
    let get = |name: &str| members.iter().find(|(key, _)| key == name).map(|(_, v)| v.get()).filter(|v| *v != "null");
    let id = get("id").and_then(|id| serde_json::from_str::<Value>(id).ok());
    if get("method").is_some() || id.as_ref().and_then(Value::as_i64) != Some(awaited) {
        return Expected::Nothing;
    }
    let error = match get("error") {
        Some(error) => match serde_json::from_str::<ErrorObject>(error) {
            Ok(error) => Some(error.code),
            // Not an error object: the message does not read at all.
            Err(_) => return Expected::Nothing,
        },
        None => None,
    };
    match (get("result"), error) {
        (Some(result), None) => Expected::Result(result.to_owned()),
        (None, Some(code)) => Expected::Error(code),
        _ => Expected::Refused,
    }
}

/// What the inbox handed the awaited request, from its debug form (`deliver` gives no more).
fn answered(delivery: &str) -> Expected {
    if let Some(raw) = delivery.strip_prefix("Ok(Ok(RawValue(")
        && let Some(raw) = raw.strip_suffix(")))")
    {
        return Expected::Result(raw.to_owned());
    }
    if let Some(error) = delivery.strip_prefix("Ok(Err(ErrorObject { code: ") {
        let code = error.split(',').next().and_then(|code| code.parse().ok());
        return Expected::Error(code.unwrap_or_else(|| panic!("an error without a code: {delivery}")));
    }
    assert!(delivery.starts_with("Err(Malformed("), "an answer that is neither: {delivery}");
    Expected::Refused
}

fuzz_target!(|input: &[u8]| {
    let [limit, id, bytes @ ..] = input else { return };
    let max = MAXES[usize::from(limit & 3)];
    let awaited = match *id {
        0x7f => i64::MAX,
        0x80 => i64::MIN,
        id => i64::from(id as i8),
    };
    let (delivered, answer) = deliver(bytes, max, awaited);
    if bytes.len() > max {
        assert_eq!(delivered, Err(TransportError::OverLimit(Limit::MessageSize(max))), "{} bytes", bytes.len());
        assert_eq!(answer, None, "a message over the limit answered");
        return;
    }
    if delivered.is_ok() {
        // JSON text is UTF-8 throughout, members the envelope skips included.
        assert!(std::str::from_utf8(bytes).is_ok(), "the inbox took bytes that are not UTF-8: {bytes:?}");
        assert!(
            serde_json::from_slice::<Members>(bytes).is_ok(),
            "the inbox took what is not a JSON object: {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    let expected = expected(bytes, awaited);
    let got = answer.as_deref().map_or(Expected::Nothing, answered);
    assert_eq!(got, expected, "the answer to request {awaited} ({delivered:?})");
    if got != Expected::Nothing {
        assert!(delivered.is_ok(), "an answer from a message refused");
    }
});
