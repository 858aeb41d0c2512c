//! Which revision a request belongs to: one carrying the 2026-07-28 `_meta` is stateless
//! wherever it arrives; an `initialize` without it opens a 2025-11-25 session.

use serde::Deserialize;
use serde_json::value::RawValue;

pub(crate) use crate::dispatch::encode::Era;
use crate::version::SUPPORTED_PROTOCOL_VERSIONS;

/// Whether a request's params carry the 2026-07-28 envelope.
pub(crate) fn is_modern(params: Option<&RawValue>) -> bool {
    #[derive(Deserialize)]
    struct ParamsMeta<'a> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Meta<'a> {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
        version: Option<&'a RawValue>,
    }
    let Some(params) = params else { return false };
    let Ok(ParamsMeta { meta: Some(meta) }) = serde_json::from_str::<ParamsMeta<'_>>(params.get()) else {
        return false;
    };
    serde_json::from_str::<Meta<'_>>(meta.get()).is_ok_and(|m| m.version.is_some_and(|v| v.get() != "null"))
}

/// Whether a version header (HTTP's `MCP-Protocol-Version`) names this revision.
pub(crate) fn is_modern_header(version: Option<&str>) -> bool {
    version.is_some_and(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.into()).unwrap()
    }

    #[test]
    fn only_the_2026_envelope_counts_as_modern() {
        assert!(is_modern(Some(&raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#))));
        assert!(!is_modern(Some(&raw(r#"{"_meta":{"progressToken":1}}"#))));
        assert!(!is_modern(Some(&raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}"#))));
        assert!(!is_modern(Some(&raw(r#"{"name":"x"}"#))));
        assert!(!is_modern(Some(&raw("[1]"))));
        assert!(!is_modern(None));
        assert!(is_modern_header(Some("2026-07-28")) && !is_modern_header(Some("2025-11-25")));
    }
}
