//! The HTTP header rules: headers made from a body always agree with it; a header that differs
//! from the body is -32020; and a header value encoded for transport decodes to itself.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_rounds::headers::{StandardHeaders, decode_value};
use serde_json::json;
use serde_json::value::RawValue;

/// How a client writes a value into a header: as is when it is plain visible ASCII without
/// surrounding space, else in the `=?base64?...?=` form.
fn header_value(value: &str) -> String {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if plain {
        value.to_owned()
    } else {
        use base64::Engine as _;
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(value))
    }
}

fuzz_target!(|input: (String, u8, String, String)| {
    let (version, method, name, other) = input;
    assert_eq!(decode_value(&header_value(&name)).as_deref(), Some(name.as_str()));
    let (method, key) = match method % 3 {
        0 => ("tools/call", "name"),
        1 => ("prompts/get", "name"),
        _ => ("resources/read", "uri"),
    };
    let params = RawValue::from_string(json!({ key: name }).to_string()).unwrap();
    let headers = StandardHeaders {
        protocol_version: Some(version.clone()),
        method: Some(method.to_owned()),
        name: Some(header_value(&name)),
        params: Vec::new(),
    };
    headers.check(&version, method, Some(&params)).unwrap_or_else(|e| panic!("headers from the body refused: {e:?}"));
    if other != name {
        let wrong = StandardHeaders { name: Some(header_value(&other)), ..headers.clone() };
        let error = wrong.check(&version, method, Some(&params)).expect_err("a name that differs");
        assert_eq!(error.code().code(), -32020);
    }
    if other != version {
        let wrong = StandardHeaders { protocol_version: Some(other.clone()), ..headers };
        assert_eq!(
            wrong.check(&version, method, Some(&params)).expect_err("a version that differs").code().code(),
            -32020
        );
    }
});
