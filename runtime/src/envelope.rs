//! The stateless envelope: the `_meta` every request carries, read and validated before
//! anything else about the request is believed.
//!
//! Order matters and follows the revision (and the conformance suite): a missing or
//! malformed `_meta` field is -32602, then an unsupported version is -32022. Method lookup
//! comes after both, so even an unknown method with a bad envelope reports the envelope.

use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer as _, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::error::Error;
use crate::model::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, ClientCapabilities, Implementation, LOG_LEVEL_KEY, LoggingLevel,
    PROTOCOL_VERSION_KEY, ProgressToken, RequestMeta, TraceContext,
};
use crate::version::{SUPPORTED_PROTOCOL_VERSIONS, is_supported};

#[derive(Deserialize)]
struct ParamsWithMeta<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<&'a RawValue>,
}

/// The entries of a request's `_meta` the server reads, each still raw.
#[derive(Deserialize)]
pub(crate) struct RawMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    client_capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    client_info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    log_level: Option<&'a RawValue>,
    #[serde(rename = "progressToken", borrow, default)]
    progress_token: Option<&'a RawValue>,
    #[serde(borrow, default)]
    traceparent: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tracestate: Option<&'a RawValue>,
    #[serde(borrow, default)]
    baggage: Option<&'a RawValue>,
}

fn meta_field(key: &str) -> String {
    format!("_meta.{key}")
}

fn missing(key: &str) -> Error {
    Error::invalid_field(&meta_field(key), format!("Missing required _meta field {key}"))
}

fn wrong_type(key: &str, expected: &str) -> Error {
    Error::invalid_field(&meta_field(key), format!("_meta field {key} must be {expected}"))
}

fn present(raw: Option<&RawValue>) -> Option<&RawValue> {
    raw.filter(|r| r.get() != "null")
}

fn parse<'a, T: Deserialize<'a>>(raw: &'a RawValue, key: &str, expected: &str) -> Result<T, Error> {
    crate::strict::from_str(raw.get()).map_err(|_| wrong_type(key, expected))
}

/// Reads and validates the `_meta` of a request's raw `params`. `before_version` runs once
/// the required fields are known to be present, before the version is checked (HTTP header
/// checks belong there: -32602, then -32020, then -32022).
pub fn read_request_meta(
    params: Option<&RawValue>,
    before_version: impl FnOnce(&str) -> Result<(), Error>,
) -> Result<RequestMeta, Error> {
    let Some(params) = params else {
        return Err(Error::invalid_field(
            "_meta",
            "Missing params: every request of protocol 2026-07-28 carries params._meta",
        ));
    };
    let outer: ParamsWithMeta<'_> = crate::strict::from_str(params.get())
        .map_err(|_| Error::invalid_field("params", "params must be a JSON object"))?;
    let Some(meta) = present(outer.meta) else { return Err(missing_meta()) };
    let raw: RawMeta<'_> = crate::strict::from_str(meta.get())
        .map_err(|_| Error::invalid_field("_meta", "_meta must be a JSON object"))?;
    meta_from(Some(&raw), before_version)
}

fn missing_meta() -> Error {
    Error::invalid_field(
        "_meta",
        format!("Missing _meta: it must carry {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY}"),
    )
}

/// [`read_request_meta`] from the entries of `_meta` already split out of the params (by
/// [`split_params`]); `None`: the params have no `_meta`.
pub(crate) fn meta_from(
    raw: Option<&RawMeta<'_>>,
    before_version: impl FnOnce(&str) -> Result<(), Error>,
) -> Result<RequestMeta, Error> {
    let raw = raw.ok_or_else(missing_meta)?;
    let version_raw = present(raw.protocol_version).ok_or_else(|| missing(PROTOCOL_VERSION_KEY))?;
    let protocol_version: String = parse(version_raw, PROTOCOL_VERSION_KEY, "a string")?;
    let capabilities_raw = present(raw.client_capabilities).ok_or_else(|| missing(CLIENT_CAPABILITIES_KEY))?;
    if !capabilities_raw.get().starts_with('{') {
        return Err(wrong_type(CLIENT_CAPABILITIES_KEY, "an object"));
    }
    before_version(&protocol_version)?;
    if !is_supported(&protocol_version) {
        return Err(Error::unsupported_version(SUPPORTED_PROTOCOL_VERSIONS, &protocol_version));
    }
    let client_capabilities: ClientCapabilities = crate::strict::from_str(capabilities_raw.get()).map_err(|e| {
        Error::invalid_field(
            &meta_field(CLIENT_CAPABILITIES_KEY),
            format!("Malformed {CLIENT_CAPABILITIES_KEY}: {}", crate::error::serde_message(&e)),
        )
    })?;
    let client_info = match present(raw.client_info) {
        None => None,
        Some(r) => Some(parse::<Implementation>(r, CLIENT_INFO_KEY, "an object with string name and version")?),
    };
    let log_level = match present(raw.log_level) {
        None => None,
        Some(r) => {
            let name: String = parse(r, LOG_LEVEL_KEY, "a string")?;
            Some(LoggingLevel::parse(&name).ok_or_else(|| {
                wrong_type(LOG_LEVEL_KEY, "one of debug, info, notice, warning, error, critical, alert, emergency")
            })?)
        }
    };
    let (progress_token, trace) = own_entries(raw)?;
    Ok(RequestMeta { protocol_version, client_capabilities, client_info, log_level, progress_token, trace })
}

/// A request's params read in one pass: the entries of its `_meta` (`None` when it has none,
/// or a null one), and the method's own parameters `P`, read as [`crate::strict::from_str`]
/// reads them (`P` sees every member but `_meta`). An error means the two-pass reading
/// ([`read_request_meta`], then `P` alone) is to be done instead, which says what is wrong
/// in the order the revision gives; a request that reads in one pass reads the same in two.
pub(crate) fn split_params<'a, P: Deserialize<'a>>(params: &'a str) -> serde_json::Result<(Option<RawMeta<'a>>, P)> {
    let mut deserializer = serde_json::Deserializer::from_str(params);
    let split = crate::strict::Strict(&mut deserializer).deserialize_map(Split(PhantomData))?;
    deserializer.end()?;
    Ok(split)
}

struct Split<P>(PhantomData<P>);

impl<'de, P: Deserialize<'de>> Visitor<'de> for Split<P> {
    type Value = (Option<RawMeta<'de>>, P);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("params, a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut meta = None;
        let params = P::deserialize(de::value::MapAccessDeserializer::new(WithoutMeta { map, meta: &mut meta }))?;
        Ok((meta.flatten(), params))
    }
}

/// The members of a params object but `_meta`, whose value it keeps aside.
struct WithoutMeta<'m, 'de, A> {
    map: A,
    /// `Some` once `_meta` was read (`Some(None)`: a null one).
    meta: &'m mut Option<Option<RawMeta<'de>>>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WithoutMeta<'_, 'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        loop {
            let Some(key) = self.map.next_key_seed(KeySeed)? else { return Ok(None) };
            if key.as_str() == "_meta" {
                if self.meta.is_some() {
                    return Err(de::Error::duplicate_field("_meta"));
                }
                *self.meta = Some(self.map.next_value()?);
                continue;
            }
            return match key {
                KeyText::Borrowed(key) => seed.deserialize(de::value::BorrowedStrDeserializer::new(key)).map(Some),
                KeyText::Owned(key) => seed.deserialize(de::value::StringDeserializer::new(key)).map(Some),
            };
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A member's name, borrowed from the text unless it holds escapes.
enum KeyText<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl KeyText<'_> {
    fn as_str(&self) -> &str {
        match self {
            KeyText::Borrowed(key) => key,
            KeyText::Owned(key) => key,
        }
    }
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = KeyText<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<KeyText<'de>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = KeyText<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<KeyText<'de>, E> {
        Ok(KeyText::Borrowed(key))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<KeyText<'de>, E> {
        Ok(KeyText::Owned(key.to_owned()))
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<KeyText<'de>, E> {
        Ok(KeyText::Owned(key))
    }
}

/// What a request says of itself in `_meta` in any revision: its progress token and trace
/// context.
fn own_entries(raw: &RawMeta<'_>) -> Result<(Option<ProgressToken>, TraceContext), Error> {
    let progress_token = match present(raw.progress_token) {
        None => None,
        Some(r) => Some(parse::<ProgressToken>(r, "progressToken", "a string or a number")?),
    };
    let trace = TraceContext {
        traceparent: present(raw.traceparent).map(|r| parse(r, "traceparent", "a string")).transpose()?,
        tracestate: present(raw.tracestate).map(|r| parse(r, "tracestate", "a string")).transpose()?,
        baggage: present(raw.baggage).map(|r| parse(r, "baggage", "a string")).transpose()?,
    };
    Ok((progress_token, trace))
}

/// The `_meta` of a request in a legacy session: the envelope is the session's (what its
/// handshake settled), and only the request's own entries are read from its params.
pub(crate) fn read_session_meta(params: Option<&RawValue>, mut envelope: RequestMeta) -> Result<RequestMeta, Error> {
    let Some(params) = params else { return Ok(envelope) };
    let outer: ParamsWithMeta<'_> = crate::strict::from_str(params.get())
        .map_err(|_| Error::invalid_field("params", "params must be a JSON object"))?;
    let Some(meta) = present(outer.meta) else { return Ok(envelope) };
    let raw: RawMeta<'_> = crate::strict::from_str(meta.get())
        .map_err(|_| Error::invalid_field("_meta", "_meta must be a JSON object"))?;
    (envelope.progress_token, envelope.trace) = own_entries(&raw)?;
    Ok(envelope)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use serde_json::json;

    fn read(params: serde_json::Value) -> Result<RequestMeta, Error> {
        let raw = serde_json::value::to_raw_value(&params).unwrap();
        read_request_meta(Some(&raw), |_| Ok(()))
    }

    fn field_of(err: &Error) -> &str {
        err.data().and_then(|d| d["field"].as_str()).unwrap_or_default()
    }

    #[test]
    fn a_complete_envelope_is_read() {
        let meta = read(json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/logLevel": "warning",
            "progressToken": 5,
            "traceparent": "00-abc-def-01",
            "io.modelcontextprotocol/somethingFuture": {"x": 1}
        }}))
        .unwrap();
        assert_eq!(meta.protocol_version, "2026-07-28");
        assert!(meta.client_capabilities.supports_form_elicitation());
        assert_eq!(meta.client_info.unwrap().name, "c");
        assert_eq!(meta.log_level, Some(LoggingLevel::Warning));
        assert_eq!(meta.progress_token, Some(ProgressToken::number(5)));
        assert_eq!(meta.trace.traceparent.as_deref(), Some("00-abc-def-01"));
    }

    #[test]
    fn missing_pieces_are_invalid_params_naming_the_field() {
        assert_eq!(read_request_meta(None, |_| Ok(())).unwrap_err().code(), ErrorCode::InvalidParams);
        let err = read(json!({})).unwrap_err();
        assert_eq!((err.code(), field_of(&err)), (ErrorCode::InvalidParams, "_meta"));
        let err = read(json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}})).unwrap_err();
        assert_eq!(field_of(&err), "_meta.io.modelcontextprotocol/protocolVersion");
        let err = read(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})).unwrap_err();
        assert_eq!(field_of(&err), "_meta.io.modelcontextprotocol/clientCapabilities");
        let err = read(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": 20260728,
                                         "io.modelcontextprotocol/clientCapabilities": {}}}))
        .unwrap_err();
        assert_eq!(
            (err.code(), field_of(&err)),
            (ErrorCode::InvalidParams, "_meta.io.modelcontextprotocol/protocolVersion")
        );
        assert_eq!(read(json!([1])).unwrap_err().code(), ErrorCode::InvalidParams);
        assert_eq!(read(json!({"_meta": "x"})).unwrap_err().code(), ErrorCode::InvalidParams);
    }

    #[test]
    fn unsupported_version_is_32022_after_presence_checks() {
        let err = read(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25",
                                         "io.modelcontextprotocol/clientCapabilities": {}}}))
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::UnsupportedProtocolVersion);
        assert_eq!(err.data().unwrap(), &json!({"supported": ["2026-07-28"], "requested": "2025-11-25"}));
        // Missing capabilities outranks an unsupported version.
        let err = read(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01"}})).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidParams);
    }

    /// What one pass reads: the `_meta` entries (to the same envelope or the same error) and
    /// the method's parameters, exactly as the two passes do; where one pass cannot read the
    /// params, the two passes are taken and say why.
    #[test]
    fn one_pass_reads_what_two_passes_read() {
        #[derive(Debug, PartialEq, Deserialize)]
        struct Call {
            name: String,
            #[serde(default)]
            arguments: Option<serde_json::Map<String, serde_json::Value>>,
        }
        let envelope = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                              "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                              "traceparent": "00-abc-def-01"});
        let cases = [
            json!({"_meta": envelope, "name": "echo", "arguments": {"text": "hi"}}),
            json!({"name": "echo", "_meta": envelope, "extra": [1, 2]}),
            json!({"name": "echo"}),
            json!({"name": "echo", "_meta": null}),
            json!({"name": "echo", "_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25",
                                             "io.modelcontextprotocol/clientCapabilities": {}}}),
            json!({"name": "echo", "_meta": {"io.modelcontextprotocol/clientCapabilities": []}}),
        ];
        for params in cases {
            let text = params.to_string();
            let (meta, call) = split_params::<Call>(&text).unwrap();
            let two: Call = crate::strict::from_str(&text).unwrap();
            assert_eq!(call, two, "{text}");
            let one = meta_from(meta.as_ref(), |_| Ok(())).map_err(|e| (e.code(), e.message().to_owned()));
            let raw = serde_json::value::to_raw_value(&params).unwrap();
            let two = read_request_meta(Some(&raw), |_| Ok(())).map_err(|e| (e.code(), e.message().to_owned()));
            assert_eq!(format!("{one:?}"), format!("{two:?}"), "{text}");
        }
        // An escaped member name is the same member.
        let escaped = r#"{"\u005fmeta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}, "name": "e"}"#;
        assert!(split_params::<Call>(escaped).unwrap().0.is_some_and(|m| m.protocol_version.is_some()));
        // What one pass refuses, the two passes report: a repeated or malformed `_meta`, a
        // params that is no object, a member of the wrong type, a repeated member.
        for refused in [
            r#"{"_meta": {}, "_meta": {}, "name": "e"}"#,
            r#"{"_meta": "x", "name": "e"}"#,
            r#"{"_meta": {"traceparent": 1, "traceparent": 2}, "name": "e"}"#,
            r#"["e"]"#,
            r#"{"name": 1}"#,
            r#"{"name": "a", "name": "b"}"#,
            r#"{"name": "e", "arguments": []}"#,
        ] {
            assert!(split_params::<Call>(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn optional_fields_are_type_checked() {
        let base = |k: &str, v: serde_json::Value| {
            let mut m = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                               "io.modelcontextprotocol/clientCapabilities": {}});
            m[k] = v;
            read(json!({ "_meta": m }))
        };
        for (k, v) in [
            ("io.modelcontextprotocol/logLevel", json!("loud")),
            ("io.modelcontextprotocol/logLevel", json!(3)),
            ("io.modelcontextprotocol/clientInfo", json!({"name": "x"})),
            ("progressToken", json!({"a": 1})),
            ("traceparent", json!(1)),
            ("io.modelcontextprotocol/clientCapabilities", json!([])),
            ("io.modelcontextprotocol/clientCapabilities", json!({"elicitation": 3})),
        ] {
            let err = base(k, v.clone()).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidParams, "{k} = {v}");
            assert_eq!(field_of(&err), format!("_meta.{k}"));
        }
    }
}
