//! The stateless envelope: the `_meta` every request carries, read and validated before
//! anything else about the request is believed.
//!
//! Order matters and follows the revision (and the conformance suite): a missing or
//! malformed `_meta` field is -32602, then an unsupported version is -32022. Method lookup
//! comes after both, so even an unknown method with a bad envelope reports the envelope.

use serde::Deserialize;
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

#[derive(Deserialize)]
struct RawMeta<'a> {
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
    let Some(meta) = present(outer.meta) else {
        return Err(Error::invalid_field(
            "_meta",
            format!("Missing _meta: it must carry {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY}"),
        ));
    };
    let raw: RawMeta<'_> = crate::strict::from_str(meta.get())
        .map_err(|_| Error::invalid_field("_meta", "_meta must be a JSON object"))?;

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
    let (progress_token, trace) = own_entries(&raw)?;
    Ok(RequestMeta { protocol_version, client_capabilities, client_info, log_level, progress_token, trace })
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
