//! JSON-RPC decoding: never a panic; bytes that are not JSON text (invalid UTF-8 included) are
//! -32700, JSON that is not a request object -32600 or -32602; and a decoded request, encoded
//! again and decoded, is the same request.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_rounds::jsonrpc::{Incoming, decode, encode_error};
use serde::de::IgnoredAny;
use serde_json::Value;

fuzz_target!(|input: &[u8]| {
    // JSON by the grammar (a number too large for a float is still JSON), then as a value
    // where it can be one.
    let is_json = std::str::from_utf8(input).is_ok() && serde_json::from_slice::<IgnoredAny>(input).is_ok();
    let value = serde_json::from_slice::<Value>(input).ok();
    let object = value.as_ref().and_then(Value::as_object);
    match decode(input) {
        Incoming::Request(request) => {
            assert!(is_json && input.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'));
            if let Some(message) = object {
                assert_eq!(message.get("method").and_then(Value::as_str), Some(&*request.method));
            }
            let params = request.params.as_ref().map(|p| p.get());
            assert!(params.is_none_or(|p| p.starts_with('{')), "params are an object: {params:?}");
            let again = format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":{}{}}}"#,
                serde_json::to_string(&request.id).unwrap(),
                serde_json::to_string(&*request.method).unwrap(),
                params.map(|p| format!(r#","params":{p}"#)).unwrap_or_default(),
            );
            let Incoming::Request(decoded) = decode(again.as_bytes()) else {
                panic!("a request encoded again is a request: {again}")
            };
            assert_eq!((&decoded.id, &decoded.method), (&request.id, &request.method));
            assert_eq!(decoded.params.as_ref().map(|p| p.get()), params);
        }
        Incoming::Notification(notification) => {
            assert!(is_json);
            if let Some(message) = object {
                assert!(message.get("id").is_none(), "a notification has no id");
                assert_eq!(message.get("method").and_then(Value::as_str), Some(&*notification.method));
            }
        }
        Incoming::Response => {
            assert!(is_json);
            if let Some(message) = object {
                assert!(message.contains_key("result") || message.contains_key("error"));
            }
        }
        Incoming::Invalid { id, error } => {
            let code = error.code().code();
            match &value {
                _ if !is_json => assert_eq!(code, -32700, "not JSON"),
                Some(value) if !value.is_object() => assert_eq!(code, -32600, "JSON that is not an object"),
                Some(_) => assert!(code == -32600 || code == -32602, "{code}"),
                // JSON by the grammar that holds no Unicode text (a lone surrogate escape): a
                // parse error where it is read, else a request error.
                None => assert!([-32700, -32600, -32602].contains(&code), "{code}"),
            }
            let answer: Value = serde_json::from_slice(&encode_error(id.as_ref(), &error)).unwrap();
            assert_eq!(answer["error"]["code"], code);
        }
    }
});
