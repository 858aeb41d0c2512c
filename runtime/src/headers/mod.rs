//! The standard HTTP headers of revision 2026-07-28 (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`) and the `Mcp-Param-{Name}` headers of tools that declare `x-mcp-header`
//! (SEP-2243), checked against the body they summarize. Any header missing, malformed or
//! disagreeing with the body is -32020.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::Error;
use crate::method::{Method, Subject};

mod params;

pub use params::{HeaderParam, ParamHeader, check_tool_params, is_header_token, param_header_values, param_headers};

/// The header values of one HTTP request, as received (`None` when absent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StandardHeaders {
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<String>,
    /// `Mcp-Method`.
    pub method: Option<String>,
    /// `Mcp-Name`.
    pub name: Option<String>,
    /// Every `Mcp-Param-{Name}` header, in arrival order: `{Name}` lower-cased (header names
    /// are case-insensitive), the value as received. A repeated header appears once per
    /// occurrence, so that the check can refuse it instead of picking one.
    pub params: Vec<(String, String)>,
}

/// A header value, decoding the `=?base64?...?=` form used for values that are not plain
/// header text. The base64 is strict (standard alphabet, canonical padding) and must decode
/// to UTF-8; `None` when it does not. A value that only starts or only ends like the
/// sentinel is literal.
pub fn decode_value(value: &str) -> Option<String> {
    decoded(value).map(Cow::into_owned)
}

/// A value as a header carries it: as is when it is plain header text (visible ASCII and inner
/// spaces), else, and also when it looks like the sentinel itself, in the `=?base64?...?=`
/// form [`decode_value`] reads (non-ASCII text, control characters and tabs, leading or
/// trailing spaces).
///
/// ```
/// use mcp_rounds::headers::{decode_value, encode_value};
///
/// assert_eq!(encode_value("us-west1"), "us-west1");
/// assert_eq!(encode_value("Zürich"), "=?base64?WsO8cmljaA==?=");
/// assert_eq!(decode_value(&encode_value(" padded ")).as_deref(), Some(" padded "));
/// ```
pub fn encode_value(value: &str) -> Cow<'_, str> {
    let plain = value.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    if plain && !padded && base64_payload(value).is_none() {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("=?base64?{}?=", STANDARD.encode(value)))
    }
}

/// [`decode_value`], a plain value borrowed rather than copied.
fn decoded(value: &str) -> Option<Cow<'_, str>> {
    match base64_payload(value) {
        Some(encoded) => STANDARD.decode(encoded).ok().and_then(|bytes| String::from_utf8(bytes).ok()).map(Cow::Owned),
        None => Some(Cow::Borrowed(value)),
    }
}

/// The base64 text of a value in the `=?base64?...?=` form (markers lowercase and exact).
fn base64_payload(value: &str) -> Option<&str> {
    value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?="))
}

#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "taskId")]
    task_id: Option<Cow<'a, str>>,
}

fn mismatch(header: &str, header_value: &str, body_value: &str) -> Error {
    Error::header_mismatch(format!(
        "Header mismatch: {header} header value '{header_value}' does not match body value '{body_value}'"
    ))
}

impl StandardHeaders {
    /// Checks the headers against the body: `version` from `_meta`, the method, and for a
    /// method that names something (`tools/call`, `prompts/get`, `resources/read`, the tasks
    /// methods: its [`Subject`]) the name, URI or task id in `params`.
    pub fn check(&self, version: &str, method: &str, params: Option<&RawValue>) -> Result<(), Error> {
        self.check_known(version, method, Method::from_name(method), params)
    }

    /// [`check`](Self::check), the method already looked up in the table.
    pub(crate) fn check_known(
        &self,
        version: &str,
        method: &str,
        known: Option<Method>,
        params: Option<&RawValue>,
    ) -> Result<(), Error> {
        self.check_version_and_method(version, method)?;
        let body_name = known.and_then(Method::subject).and_then(|subject| {
            let named: Named<'_> = params.and_then(|p| serde_json::from_str(p.get()).ok())?;
            match subject {
                Subject::Tool | Subject::Prompt => named.name,
                Subject::Resource => named.uri,
                Subject::Task => named.task_id,
            }
        });
        self.check_name(body_name.as_deref())
    }

    /// [`check`](Self::check), the body's name or URI (`body_name`) already read from its
    /// params by the server.
    pub(crate) fn check_named(&self, version: &str, method: &str, body_name: Option<&str>) -> Result<(), Error> {
        self.check_version_and_method(version, method)?;
        self.check_name(body_name)
    }

    fn check_version_and_method(&self, version: &str, method: &str) -> Result<(), Error> {
        let protocol_version = self
            .protocol_version
            .as_deref()
            .ok_or_else(|| Error::header_mismatch("Missing MCP-Protocol-Version header"))?;
        if protocol_version != version {
            return Err(mismatch("MCP-Protocol-Version", protocol_version, version));
        }
        let header_method =
            self.method.as_deref().ok_or_else(|| Error::header_mismatch("Missing Mcp-Method header"))?;
        if header_method != method {
            return Err(mismatch("Mcp-Method", header_method, method));
        }
        Ok(())
    }

    /// `Mcp-Name` against the name or URI the body gives, when it gives one.
    fn check_name(&self, body_name: Option<&str>) -> Result<(), Error> {
        if let Some(body_name) = body_name {
            let raw = self.name.as_deref().ok_or_else(|| Error::header_mismatch("Missing Mcp-Name header"))?;
            let decoded = decoded(raw).ok_or_else(|| Error::header_mismatch("Malformed Mcp-Name header"))?;
            if decoded != body_name {
                return Err(mismatch("Mcp-Name", &decoded, body_name));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn headers(version: &str, method: &str, name: Option<&str>) -> StandardHeaders {
        StandardHeaders {
            protocol_version: Some(version.into()),
            method: Some(method.into()),
            name: name.map(str::to_owned),
            params: Vec::new(),
        }
    }

    fn params(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    #[test]
    fn matching_headers_pass() {
        let p = params(r#"{"name":"get_weather"}"#);
        assert!(
            headers("2026-07-28", "tools/call", Some("get_weather"))
                .check("2026-07-28", "tools/call", Some(&p))
                .is_ok()
        );
        let encoded = format!("=?base64?{}?=", STANDARD.encode("héllo wörld"));
        let p = params(r#"{"name":"héllo wörld"}"#);
        assert!(
            headers("2026-07-28", "prompts/get", Some(&encoded)).check("2026-07-28", "prompts/get", Some(&p)).is_ok()
        );
        let p = params(r#"{"uri":"file:///a b"}"#);
        assert!(
            headers("2026-07-28", "resources/read", Some("file:///a b"))
                .check("2026-07-28", "resources/read", Some(&p))
                .is_ok()
        );
        assert!(headers("2026-07-28", "tools/list", None).check("2026-07-28", "tools/list", None).is_ok());
    }

    #[test]
    fn every_disagreement_is_32020() {
        let p = params(r#"{"name":"bar"}"#);
        for (h, version, method) in [
            (headers("2026-07-28", "tools/call", Some("foo")), "2026-07-28", "tools/call"),
            (headers("2026-07-28", "tools/call", None), "2026-07-28", "tools/call"),
            (headers("2026-07-28", "tools/list", Some("bar")), "2026-07-28", "tools/call"),
            (headers("2025-11-25", "tools/call", Some("bar")), "2026-07-28", "tools/call"),
            (headers("2026-07-28", "tools/call", Some("=?base64?!!?=")), "2026-07-28", "tools/call"),
            (StandardHeaders::default(), "2026-07-28", "tools/call"),
        ] {
            let err = h.check(version, method, Some(&p)).unwrap_err();
            assert_eq!(err.code(), ErrorCode::HeaderMismatch, "{h:?}");
        }
        let err =
            headers("2026-07-28", "tools/call", Some("foo")).check("2026-07-28", "tools/call", Some(&p)).unwrap_err();
        assert_eq!(err.message(), "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'");
    }

    #[test]
    fn mcp_name_must_be_the_task_id_on_tasks_methods() {
        let p = params(r#"{"taskId":"task-123"}"#);
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            assert!(headers("2026-07-28", method, Some("task-123")).check("2026-07-28", method, Some(&p)).is_ok());
            let encoded = format!("=?base64?{}?=", STANDARD.encode("task-123"));
            assert!(headers("2026-07-28", method, Some(&encoded)).check("2026-07-28", method, Some(&p)).is_ok());
            for name in [Some("sep-2663-wrong-task-id-for-routing-header-mismatch"), None, Some("=?base64?dGFzaw?=")] {
                let err = headers("2026-07-28", method, name).check("2026-07-28", method, Some(&p)).unwrap_err();
                assert_eq!(err.code(), ErrorCode::HeaderMismatch, "{method} {name:?}");
            }
        }
        let err =
            headers("2026-07-28", "tasks/get", Some("other")).check("2026-07-28", "tasks/get", Some(&p)).unwrap_err();
        assert_eq!(
            err.message(),
            "Header mismatch: Mcp-Name header value 'other' does not match body value 'task-123'"
        );
    }

    #[test]
    fn base64_is_strict() {
        assert_eq!(decode_value("=?base64?SGVsbG8=?=").as_deref(), Some("Hello"));
        assert_eq!(decode_value("=?base64?SGVsbG8?="), None, "padding is required");
        assert_eq!(decode_value("=?base64?SGVs!!!bG8=?="), None, "alphabet");
        assert_eq!(decode_value("=?base64?SGVsbG9=?="), None, "non-canonical trailing bits");
        assert_eq!(decode_value("=?base64?/w==?="), None, "not UTF-8");
        assert_eq!(decode_value("=?base64?SGVsbG8="), Some("=?base64?SGVsbG8=".into()), "no suffix: literal");
        assert_eq!(decode_value("SGVsbG8=?="), Some("SGVsbG8=?=".into()), "no prefix: literal");
        assert_eq!(decode_value("=?BASE64?SGVsbG8=?="), Some("=?BASE64?SGVsbG8=?=".into()), "markers are exact");
    }
}
