//! The standard HTTP headers of revision 2026-07-28 (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`) and the `Mcp-Param-{Name}` headers of tools that declare `x-mcp-header`
//! (SEP-2243), checked against the body they summarize. Any header missing, malformed or
//! disagreeing with the body is -32020.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::error::Error;
use crate::model::JsonObject;

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
    match base64_payload(value) {
        Some(encoded) => STANDARD.decode(encoded).ok().and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_owned()),
    }
}

/// The base64 text of a value in the `=?base64?...?=` form (markers lowercase and exact).
fn base64_payload(value: &str) -> Option<&str> {
    value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?="))
}

#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default, rename = "taskId")]
    task_id: Option<std::borrow::Cow<'a, str>>,
}

fn mismatch(header: &str, header_value: &str, body_value: &str) -> Error {
    Error::header_mismatch(format!(
        "Header mismatch: {header} header value '{header_value}' does not match body value '{body_value}'"
    ))
}

impl StandardHeaders {
    /// Checks the headers against the body: `version` from `_meta`, the method, and for
    /// `tools/call`, `prompts/get` and `resources/read` the name or URI in `params` (for
    /// `tasks/get`, `tasks/update` and `tasks/cancel`, the `taskId`).
    pub fn check(&self, version: &str, method: &str, params: Option<&RawValue>) -> Result<(), Error> {
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
        let body_name = match method {
            "tools/call" | "prompts/get" | "resources/read" | "tasks/get" | "tasks/update" | "tasks/cancel" => {
                let named: Named<'_> = params.and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or(Named {
                    name: None,
                    uri: None,
                    task_id: None,
                });
                let value = match method {
                    "resources/read" => named.uri,
                    "tools/call" | "prompts/get" => named.name,
                    _ => named.task_id,
                };
                value.map(|v| v.into_owned())
            }
            _ => None,
        };
        if let Some(body_name) = body_name {
            let raw = self.name.as_deref().ok_or_else(|| Error::header_mismatch("Missing Mcp-Name header"))?;
            let decoded = decode_value(raw).ok_or_else(|| Error::header_mismatch("Malformed Mcp-Name header"))?;
            if decoded != body_name {
                return Err(mismatch("Mcp-Name", &decoded, &body_name));
            }
        }
        Ok(())
    }
}

/// One tool argument mirrored into an `Mcp-Param-{Name}` header: a property of the input
/// schema carrying `"x-mcp-header": "{Name}"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    /// `{Name}`, as declared.
    pub name: String,
    /// Where the argument sits: property names from the root, through `properties` only
    /// (usually one).
    pub path: Vec<String>,
}

/// An argument type `#[arg(header = "...")]` may mirror into an `Mcp-Param-{Name}` header:
/// one whose schema is `"type": "string"`, `"integer"` or `"boolean"`, or an `Option` of one.
///
/// Implement it for your own type when its schema is one of those (a newtype over `String`,
/// say); the schema is checked again when the server is built, so a wrong implementation is a
/// [`BuildError`](crate::BuildError), not a tool that clients drop.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be sent in an `Mcp-Param-*` header",
    label = "`#[arg(header = ...)]` needs a string, integer or boolean argument",
    note = "x-mcp-header goes on `String`, integer and `bool` arguments (or an `Option` of one), never on a \
            `number` (f32, f64); a type of your own whose schema is a string, integer or boolean may implement \
            `mcp_rounds::headers::HeaderParam`"
)]
pub trait HeaderParam {}

macro_rules! header_param {
    ($($ty:ty),* $(,)?) => {$( impl HeaderParam for $ty {} )*};
}

header_param!(String, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl<T: HeaderParam> HeaderParam for Option<T> {}

/// Schema keywords whose values are subschemas (or arrays or maps of them), other than
/// `properties`. An `x-mcp-header` reached through any of them is misplaced: a client cannot
/// tell from the arguments alone which value the header would carry.
const SUBSCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "prefixItems",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
];

/// Whether `name` is an RFC 9110 token (`1*tchar`), the only shape a header name can have.
pub fn is_header_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Reads the `x-mcp-header` declarations of a tool's input schema, or says why they are
/// invalid. Per SEP-2243 one invalid declaration makes the whole tool invalid (clients drop
/// it), so a server refuses to serve it rather than publish it. A declaration must:
///
/// - be a non-empty RFC 9110 token, case-insensitively unique within the schema;
/// - sit on a property reached from the root through `properties` keys only;
/// - annotate a property whose `type` is `"string"`, `"integer"` or `"boolean"` (never
///   `"number"`: decimal text does not round-trip every float).
pub fn param_headers(schema: &JsonObject) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    let mut path = Vec::new();
    walk(schema, &mut path, true, &mut found)?;
    for (i, header) in found.iter().enumerate() {
        if let Some(earlier) = found[..i].iter().find(|h| h.name.eq_ignore_ascii_case(&header.name)) {
            return Err(format!(
                "x-mcp-header \"{}\" (on `{}`) and \"{}\" (on `{}`) name the same header; header names are \
                 case-insensitive",
                earlier.name,
                earlier.path.join("."),
                header.name,
                header.path.join(".")
            ));
        }
    }
    Ok(found)
}

/// Visits one schema object. `reachable`: the path from the root is `properties` keys only,
/// so a declaration here is allowed (except on the root itself, which is no property).
fn walk(
    schema: &JsonObject,
    path: &mut Vec<String>,
    reachable: bool,
    found: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    if let Some(declared) = schema.get("x-mcp-header") {
        let at = if path.is_empty() { "the schema's root".to_owned() } else { format!("`{}`", path.join(".")) };
        if !reachable || path.is_empty() {
            return Err(format!(
                "x-mcp-header on {at} is misplaced: it goes on a property reached from the root through \
                 `properties` only (not through items, $defs, allOf/anyOf/oneOf/not or if/then/else)"
            ));
        }
        let name = declared.as_str().ok_or_else(|| format!("x-mcp-header on {at} must be a string"))?;
        if !is_header_token(name) {
            return Err(format!(
                "x-mcp-header \"{}\" on {at} is not a valid header name: use 1 or more of A-Z a-z 0-9 \
                 ! # $ % & ' * + - . ^ _ ` | ~",
                name.escape_default()
            ));
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            _ => {
                return Err(format!(
                    "x-mcp-header \"{name}\" on {at}: only a property with \"type\": \"string\", \"integer\" or \
                     \"boolean\" can be sent in a header"
                ));
            }
        }
        found.push(ParamHeader { name: name.to_owned(), path: path.clone() });
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (key, property) in properties {
            if let Value::Object(property) = property {
                path.push(key.clone());
                walk(property, path, reachable, found)?;
                path.pop();
            }
        }
    }
    for keyword in SUBSCHEMA_KEYWORDS {
        let mut visit = |value: &Value| match value {
            Value::Object(sub) => walk(sub, path, false, found),
            _ => Ok(()),
        };
        match schema.get(*keyword) {
            Some(Value::Array(subs)) => subs.iter().try_for_each(&mut visit)?,
            // Maps of subschemas (`$defs`, `patternProperties`, `dependentSchemas`).
            Some(Value::Object(map))
                if matches!(*keyword, "$defs" | "definitions" | "patternProperties" | "dependentSchemas") =>
            {
                map.values().try_for_each(&mut visit)?
            }
            Some(value) => visit(value)?,
            None => {}
        }
    }
    Ok(())
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments (SEP-2243).
/// `headers` is `None` off HTTP (stdio), where there is nothing to check.
///
/// For each declaration: an argument with a non-null value needs its header, exactly once;
/// an absent or `null` argument needs the header absent. The header decodes like `Mcp-Name`
/// (strict `=?base64?...?=`, literal otherwise; a literal must be visible ASCII or spaces)
/// and then equals the value: a string exactly, a number numerically, a boolean as
/// `true`/`false`. Headers no declaration names are ignored, as intermediaries forward them.
pub fn check_tool_params(
    headers: Option<&StandardHeaders>,
    declared: &[ParamHeader],
    arguments: Option<&JsonObject>,
) -> Result<(), Error> {
    let Some(headers) = headers else { return Ok(()) };
    declared.iter().try_for_each(|declaration| check_param(&headers.params, declaration, arguments))
}

fn check_param(sent: &[(String, String)], declared: &ParamHeader, arguments: Option<&JsonObject>) -> Result<(), Error> {
    let header = format!("Mcp-Param-{}", declared.name);
    let body = argument_at(arguments, &declared.path);
    let mut values = sent.iter().filter(|(name, _)| name.eq_ignore_ascii_case(&declared.name)).map(|(_, v)| v);
    let (raw, repeated) = (values.next(), values.next().is_some());
    let argument = declared.path.join(".");
    let (raw, body) = match (raw, body) {
        (None, None) => return Ok(()),
        (Some(_), None) => {
            return Err(Error::header_mismatch(format!(
                "Header mismatch: {header} header is present but argument `{argument}` is absent or null"
            )));
        }
        (None, Some(_)) => return Err(Error::header_mismatch(format!("Missing {header} header"))),
        (Some(_), Some(_)) if repeated => {
            return Err(Error::header_mismatch(format!("Malformed {header} header: given more than once")));
        }
        (Some(raw), Some(body)) => (raw, body),
    };
    let malformed = || Error::header_mismatch(format!("Malformed {header} header"));
    let decoded = match base64_payload(raw) {
        Some(_) => decode_value(raw).ok_or_else(malformed)?,
        // Literal text outside visible ASCII should have been sent as base64.
        None if !raw.bytes().all(|b| (b' '..=b'~').contains(&b)) => return Err(malformed()),
        None => raw.clone(),
    };
    let matches = match body {
        Value::String(s) => decoded == *s,
        Value::Bool(b) => decoded == if *b { "true" } else { "false" },
        Value::Number(n) => parse_integer(&decoded).is_some_and(|h| match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => h == i128::from(i),
            (_, Some(u), _) => h == i128::from(u),
            // An integer written as a float (`3.0`); exactness is bounded by ±(2^53−1) anyway.
            (_, _, Some(f)) => f.fract() == 0.0 && h as f64 == f,
            _ => false,
        }),
        // Objects and arrays have no header form.
        _ => false,
    };
    if matches { Ok(()) } else { Err(mismatch(&header, &decoded, &body_text(body))) }
}

/// The value at `path` in the arguments; `None` when absent or `null` (the same to SEP-2243).
fn argument_at<'a>(arguments: Option<&'a JsonObject>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut value = arguments?.get(first)?;
    for key in rest {
        value = value.as_object()?.get(key)?;
    }
    (!value.is_null()).then_some(value)
}

/// A decimal integer as a client writes one: an optional `-` and digits, nothing else.
fn parse_integer(text: &str) -> Option<i128> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || digits.len() > 30 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn body_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
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

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(o) => o,
            _ => panic!("not an object"),
        }
    }

    fn declared(schema: Value) -> Result<Vec<ParamHeader>, String> {
        param_headers(&object(schema))
    }

    #[test]
    fn declarations_are_read_through_properties() {
        let found = declared(serde_json::json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "plain": {"type": "string"},
                "config": {"type": "object", "properties": {
                    "dryRun": {"type": "boolean", "x-mcp-header": "Dry-Run"},
                    "limit": {"type": "integer", "x-mcp-header": "Limit"}
                }}
            }
        }))
        .unwrap();
        let names: Vec<(&str, String)> = found.iter().map(|h| (h.name.as_str(), h.path.join("."))).collect();
        assert_eq!(
            names,
            [
                ("Region", "region".to_owned()),
                ("Dry-Run", "config.dryRun".to_owned()),
                ("Limit", "config.limit".to_owned())
            ]
        );
        assert_eq!(declared(serde_json::json!({"type": "object"})).unwrap(), []);
    }

    #[test]
    fn invalid_declarations_are_refused() {
        let cases = [
            (serde_json::json!({"a": {"type": "string", "x-mcp-header": ""}}), "not a valid header name"),
            (serde_json::json!({"a": {"type": "string", "x-mcp-header": "Has Space"}}), "not a valid header name"),
            (serde_json::json!({"a": {"type": "string", "x-mcp-header": "Line\nBreak"}}), "not a valid header name"),
            (serde_json::json!({"a": {"type": "string", "x-mcp-header": "Ünï"}}), "not a valid header name"),
            (serde_json::json!({"a": {"type": "string", "x-mcp-header": 7}}), "must be a string"),
            (serde_json::json!({"a": {"type": "number", "x-mcp-header": "A"}}), "only a property"),
            (serde_json::json!({"a": {"type": "array", "x-mcp-header": "A"}}), "only a property"),
            (serde_json::json!({"a": {"type": ["string", "null"], "x-mcp-header": "A"}}), "only a property"),
            (serde_json::json!({"a": {"$ref": "#/$defs/A", "x-mcp-header": "A"}}), "only a property"),
            (
                serde_json::json!({"a": {"type": "string", "x-mcp-header": "Region"},
                                   "b": {"type": "string", "x-mcp-header": "REGION"}}),
                "same header",
            ),
            (
                serde_json::json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}),
                "misplaced",
            ),
        ];
        for (properties, problem) in cases {
            let schema = serde_json::json!({"type": "object", "properties": properties});
            let err = declared(schema.clone()).unwrap_err();
            assert!(err.contains(problem), "{schema}: {err}");
        }
        for schema in [
            serde_json::json!({"type": "object", "x-mcp-header": "Root"}),
            serde_json::json!({"type": "object", "$defs": {"A": {"type": "string", "x-mcp-header": "A"}}}),
            serde_json::json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            serde_json::json!({"type": "object", "if": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}),
            serde_json::json!({"type": "object", "additionalProperties": {"type": "string", "x-mcp-header": "A"}}),
        ] {
            let err = declared(schema.clone()).unwrap_err();
            assert!(err.contains("misplaced"), "{schema}: {err}");
        }
    }

    #[test]
    fn a_server_with_an_invalid_declaration_is_not_built() {
        use crate::model::{CallToolResult, Tool};
        use crate::{BuildError, Server, ToolCall, ToolRoute};
        let route = |properties: Value| {
            let schema = object(serde_json::json!({"type": "object", "properties": properties}));
            ToolRoute::new(Tool::new("t", schema), |_: ToolCall| async { Ok(CallToolResult::text("ok").into()) })
        };
        let good = route(serde_json::json!({"region": {"type": "string", "x-mcp-header": "Region"}}));
        assert_eq!(good.param_headers(), [ParamHeader { name: "Region".into(), path: vec!["region".into()] }]);
        assert!(Server::builder("s", "1").tool(good).build().is_ok());
        let bad = route(serde_json::json!({"n": {"type": "number", "x-mcp-header": "N"}}));
        match Server::builder("s", "1").tool(bad).build() {
            Err(BuildError::InvalidParamHeader { tool, problem }) => {
                assert_eq!(tool, "t");
                assert!(problem.contains("\"number\"") || problem.contains("only a property"), "{problem}");
            }
            other => panic!("expected InvalidParamHeader, got {other:?}"),
        }
    }

    fn region() -> Vec<ParamHeader> {
        vec![
            ParamHeader { name: "Region".into(), path: vec!["region".into()] },
            ParamHeader { name: "Limit".into(), path: vec!["limit".into()] },
            ParamHeader { name: "Dry".into(), path: vec!["opts".into(), "dry".into()] },
        ]
    }

    fn call(sent: &[(&str, &str)], arguments: Value) -> Result<(), Error> {
        let headers = StandardHeaders {
            params: sent.iter().map(|(n, v)| (n.to_ascii_lowercase(), (*v).to_owned())).collect(),
            ..StandardHeaders::default()
        };
        check_tool_params(Some(&headers), &region(), Some(&object(arguments)))
    }

    #[test]
    fn param_headers_that_agree_with_the_body_pass() {
        use serde_json::json;
        assert!(call(&[], json!({})).is_ok(), "nothing declared is sent");
        assert!(call(&[], json!({"region": null, "opts": {"dry": null}})).is_ok(), "null is absent");
        assert!(call(&[("Region", "us-west1")], json!({"region": "us-west1"})).is_ok());
        assert!(call(&[("region", "=?base64?SGVsbG8=?=")], json!({"region": "Hello"})).is_ok());
        assert!(call(&[("Region", "SGVsbG8=")], json!({"region": "SGVsbG8="})).is_ok(), "literal");
        assert!(call(&[("Region", "=?base64?SGVsbG8=")], json!({"region": "=?base64?SGVsbG8="})).is_ok());
        let sentinel = format!("=?base64?{}?=", STANDARD.encode("=?base64?abc?="));
        assert!(call(&[("Region", &sentinel)], json!({"region": "=?base64?abc?="})).is_ok());
        let unicode = format!("=?base64?{}?=", STANDARD.encode(" Zürich "));
        assert!(call(&[("Region", &unicode)], json!({"region": " Zürich "})).is_ok());
        assert!(call(&[("Limit", "42")], json!({"limit": 42})).is_ok());
        assert!(call(&[("Limit", "-7")], json!({"limit": -7})).is_ok());
        assert!(call(&[("Limit", "3")], json!({"limit": 3.0})).is_ok(), "numerically");
        assert!(call(&[("Limit", "9007199254740991")], json!({"limit": 9_007_199_254_740_991_u64})).is_ok());
        assert!(call(&[("Dry", "true")], json!({"opts": {"dry": true}})).is_ok());
        assert!(call(&[("Dry", "false")], json!({"opts": {"dry": false}})).is_ok());
        assert!(call(&[("Other", "anything")], json!({})).is_ok(), "undeclared headers are ignored");
        assert!(check_tool_params(None, &region(), Some(&object(json!({"region": "x"})))).is_ok(), "stdio");
    }

    #[test]
    fn param_headers_that_disagree_are_32020() {
        use serde_json::json;
        let cases: [(&[(&str, &str)], Value); 16] = [
            (&[], json!({"region": "test-value"})),
            (&[("Region", "=?base64?SGVsbG8?=")], json!({"region": "Hello"})),
            (&[("Region", "=?base64?SGVs!!!bG8=?=")], json!({"region": "Hello"})),
            (&[("Region", "other")], json!({"region": "Hello"})),
            (&[("Region", "hello")], json!({"region": "Hello"})),
            (&[("Region", "x")], json!({})),
            (&[("Region", "x")], json!({"region": null})),
            (&[("Region", "x"), ("region", "x")], json!({"region": "x"})),
            (&[("Region", "Zürich")], json!({"region": "Zürich"})),
            (&[("Region", "a\tb")], json!({"region": "a\tb"})),
            (&[("Limit", "042x")], json!({"limit": 42})),
            (&[("Limit", "43")], json!({"limit": 42})),
            (&[("Limit", "+42")], json!({"limit": 42})),
            (&[("Dry", "True")], json!({"opts": {"dry": true}})),
            (&[("Dry", "1")], json!({"opts": {"dry": true}})),
            (&[("Dry", "true")], json!({"opts": {"dry": {"nested": 1}}})),
        ];
        for (sent, arguments) in cases {
            let err = call(sent, arguments.clone()).unwrap_err();
            assert_eq!(err.code(), ErrorCode::HeaderMismatch, "{sent:?} {arguments}");
        }
        let err = call(&[], json!({"region": "test-value"})).unwrap_err();
        assert_eq!(err.message(), "Missing Mcp-Param-Region header");
        let err = call(&[("Region", "a")], json!({"region": "b"})).unwrap_err();
        assert_eq!(err.message(), "Header mismatch: Mcp-Param-Region header value 'a' does not match body value 'b'");
    }

    proptest::proptest! {
        /// Whatever the value, the client's encoding (plain when it is safe header text,
        /// base64 otherwise) passes, and any other string does not.
        #[test]
        fn any_string_round_trips(value in "\\PC{0,24}|[ -~]{0,24}", other in "[ -~]{0,8}") {
            let safe = !value.is_empty()
                && value.bytes().all(|b| (b' '..=b'~').contains(&b))
                && !value.starts_with(' ') && !value.ends_with(' ')
                && base64_payload(&value).is_none();
            let sent = if safe { value.clone() } else { format!("=?base64?{}?=", STANDARD.encode(&value)) };
            let arguments = serde_json::json!({"region": value});
            proptest::prop_assert!(call(&[("Region", &sent)], arguments.clone()).is_ok());
            if other != value {
                proptest::prop_assert!(call(&[("Region", &other)], arguments).is_err());
            }
        }

        #[test]
        fn any_integer_round_trips(n in -9_007_199_254_740_991_i64..=9_007_199_254_740_991, d in 1i64..1000) {
            let arguments = serde_json::json!({"limit": n});
            proptest::prop_assert!(call(&[("Limit", &n.to_string())], arguments.clone()).is_ok());
            proptest::prop_assert!(call(&[("Limit", &(n + d).to_string())], arguments).is_err());
        }
    }
}
