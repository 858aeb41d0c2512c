//! The `Mcp-Param-{Name}` headers of tools that declare `x-mcp-header` (SEP-2243): reading
//! the declarations from an input schema, and checking the headers of a call against its
//! arguments.

use serde_json::Value;

use super::{StandardHeaders, base64_payload, decode_value, mismatch};
use crate::error::Error;
use crate::model::JsonObject;

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

/// Whether `name` is an RFC 9110 token (`1*tchar`), the only shape a header name can have (the
/// same rule `#[arg(header = ...)]` applies when it compiles).
pub fn is_header_token(name: &str) -> bool {
    mcp_rounds_grammar::is_header_name(name)
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

/// The `Mcp-Param-{Name}` headers a client sends with a `tools/call`: one per declaration
/// whose argument is present and not null, the value written as the server reads it (a string
/// as is, an integer in decimal, a boolean as `true`/`false`) and then encoded for a header
/// (see [`encode_value`](super::encode_value)). An argument that has no header form (an
/// object, an array) is left out.
pub fn param_header_values(declared: &[ParamHeader], arguments: Option<&JsonObject>) -> Vec<(String, String)> {
    declared
        .iter()
        .filter_map(|declaration| {
            let text = match argument_at(arguments, &declaration.path)? {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", declaration.name), super::encode_value(&text).into_owned()))
        })
        .collect()
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
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    use super::*;
    use crate::ErrorCode;

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
