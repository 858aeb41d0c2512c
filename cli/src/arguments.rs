//! `KEY=VALUE` arguments, typed by the tool's input schema: numbers, booleans, enums, and JSON
//! for objects and arrays; each mistake named by its argument.

use mcp_rounds::model::{JsonObject, Prompt, Tool};
use serde_json::{Map, Value};

use crate::failure::{Failure, usage};

/// Splits `KEY=VALUE` at the first `=`.
pub fn split(pair: &str) -> Result<(&str, &str), Failure> {
    match pair.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, value)),
        _ => Err(usage(format!("`{pair}` is not KEY=VALUE"))),
    }
}

/// The arguments of a call of `tool`: `--args` as the base, each pair typed by the schema and
/// added, then every required argument checked.
pub fn tool_arguments(tool: &Tool, pairs: &[String], json: Option<&str>) -> Result<JsonObject, Failure> {
    let mut arguments = match json {
        None => Map::new(),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(object)) => object,
            Ok(_) => return Err(usage("--args must be a JSON object")),
            Err(e) => return Err(usage(format!("--args is not JSON: {e}"))),
        },
    };
    let schema = &tool.input_schema;
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut given = std::collections::HashSet::new();
    for pair in pairs {
        let (key, text) = split(pair)?;
        let property = match properties {
            // A schema that names no properties takes anything.
            None => None,
            Some(properties) => match properties.get(key) {
                Some(property) => Some(property),
                None if allows_others(schema) => None,
                None => {
                    let known = listing(properties.keys().map(String::as_str));
                    return Err(usage(format!(
                        "tool `{}` has no argument `{key}` (its arguments: {known})",
                        tool.name
                    )));
                }
            },
        };
        let value = match property {
            Some(property) => typed(text, property, schema)
                .map_err(|expected| usage(format!("argument `{key}`: {expected}, not `{text}`")))?,
            None => untyped(text),
        };
        if !given.insert(key) {
            return Err(usage(format!("argument `{key}` is given twice")));
        }
        arguments.insert(key.to_owned(), value);
    }
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        if !arguments.contains_key(name) {
            let about = properties.and_then(|p| p.get(name)).map(describe).unwrap_or_default();
            return Err(usage(format!("tool `{}` needs argument `{name}`{about}", tool.name)));
        }
    }
    Ok(arguments)
}

/// The arguments of `prompt`: every one text, every name one the prompt declares.
pub fn prompt_arguments(
    prompt: &Prompt,
    pairs: &[String],
) -> Result<std::collections::BTreeMap<String, String>, Failure> {
    let declared = prompt.arguments.as_deref().unwrap_or_default();
    let mut arguments = std::collections::BTreeMap::new();
    for pair in pairs {
        let (key, value) = split(pair)?;
        if !declared.iter().any(|a| a.name == key) {
            let known = listing(declared.iter().map(|a| a.name.as_str()));
            return Err(usage(format!("prompt `{}` has no argument `{key}` (its arguments: {known})", prompt.name)));
        }
        arguments.insert(key.to_owned(), value.to_owned());
    }
    if let Some(missing) = declared.iter().find(|a| a.required == Some(true) && !arguments.contains_key(&a.name)) {
        let about = missing.description.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
        return Err(usage(format!("prompt `{}` needs argument `{}`{about}", prompt.name, missing.name)));
    }
    Ok(arguments)
}

/// Names for a message: comma-separated, or `none`.
pub fn listing<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
}

/// Pairs of a completion's context.
pub fn context(pairs: &[String]) -> Result<std::collections::BTreeMap<String, String>, Failure> {
    pairs.iter().map(|pair| split(pair).map(|(k, v)| (k.to_owned(), v.to_owned()))).collect()
}

fn allows_others(schema: &JsonObject) -> bool {
    matches!(schema.get("additionalProperties"), Some(Value::Bool(true) | Value::Object(_)))
}

/// A value with no schema: JSON when it reads as JSON, else the text.
fn untyped(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// ` (integer, 1 to 5): How many.` for an error message.
fn describe(property: &Value) -> String {
    let kind = property.get("type").map(|t| match t {
        Value::String(t) => t.clone(),
        Value::Array(types) => types.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ => String::new(),
    });
    let description = property.get("description").and_then(Value::as_str).map(|d| format!(": {d}"));
    format!(
        "{}{}",
        kind.filter(|k| !k.is_empty()).map(|k| format!(" ({k})")).unwrap_or_default(),
        description.unwrap_or_default()
    )
}

/// `text` as the value `property` describes, or what was expected.
fn typed(text: &str, property: &Value, root: &JsonObject) -> Result<Value, String> {
    let property = resolve(property, root);
    if let Some(allowed) = property.get("enum").and_then(Value::as_array) {
        return one_of(text, allowed);
    }
    if let Some(constant) = property.get("const") {
        return one_of(text, std::slice::from_ref(constant));
    }
    for branches in ["anyOf", "oneOf"] {
        if let Some(branches) = property.get(branches).and_then(Value::as_array) {
            let mut expected = Vec::new();
            for branch in branches {
                match typed(text, branch, root) {
                    Ok(value) => return Ok(value),
                    Err(e) => expected.push(e),
                }
            }
            expected.dedup();
            return Err(expected.join(", or "));
        }
    }
    let types: Vec<&str> = match property.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(untyped(text)),
    };
    let mut expected = Vec::new();
    for kind in &types {
        if let Some(value) = as_type(text, kind) {
            return Ok(value);
        }
        expected.push(match *kind {
            "integer" => "a whole number",
            "number" => "a number",
            "boolean" => "true or false",
            "object" => "a JSON object",
            "array" => "a JSON array",
            "null" => "null",
            _ => "text",
        });
    }
    Err(format!("expected {}", expected.join(" or ")))
}

fn as_type(text: &str, kind: &str) -> Option<Value> {
    match kind {
        "string" => Some(Value::String(text.to_owned())),
        "integer" => text.parse::<i64>().map(Value::from).or_else(|_| text.parse::<u64>().map(Value::from)).ok(),
        "number" => serde_json::from_str::<serde_json::Number>(text.trim()).ok().map(Value::Number),
        "boolean" => match text {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "null" => (text == "null").then_some(Value::Null),
        "object" => serde_json::from_str::<Value>(text).ok().filter(Value::is_object),
        "array" => serde_json::from_str::<Value>(text).ok().filter(Value::is_array),
        _ => None,
    }
}

fn one_of(text: &str, allowed: &[Value]) -> Result<Value, String> {
    for value in allowed {
        let fits = match value {
            Value::String(s) => s == text,
            other => serde_json::from_str::<Value>(text).is_ok_and(|v| &v == other),
        };
        if fits {
            return Ok(value.clone());
        }
    }
    let names: Vec<String> = allowed.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).collect();
    Err(format!("expected one of {}", names.join(", ")))
}

/// A local `$ref` (`#/$defs/…` or `#/definitions/…`) resolved in the tool's own schema; no
/// other reference is ever followed.
fn resolve<'a>(property: &'a Value, root: &'a JsonObject) -> &'a Value {
    let mut current = property;
    for _ in 0..8 {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else { break };
        let Some(path) = reference.strip_prefix("#/") else { break };
        let mut target = None::<&Value>;
        for (i, segment) in path.split('/').enumerate() {
            let segment = segment.replace("~1", "/").replace("~0", "~");
            target = if i == 0 { root.get(&segment) } else { target.and_then(|t| t.get(&segment)) };
        }
        match target {
            Some(found) => current = found,
            None => break,
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value) -> Tool {
        Tool::new("t", serde_json::from_value(schema).unwrap())
    }

    fn call(schema: Value, pairs: &[&str]) -> Result<Value, String> {
        let pairs: Vec<String> = pairs.iter().map(|p| p.to_string()).collect();
        tool_arguments(&tool(schema), &pairs, None).map(Value::Object).map_err(|e| e.to_string())
    }

    #[test]
    fn values_take_the_type_their_schema_gives() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
            "s": {"type": "string"}, "o": {"type": "object"}, "a": {"type": "array"},
            "maybe": {"type": ["integer", "null"]}, "color": {"$ref": "#/$defs/Color"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string", "enum": ["all"]}]}},
            "$defs": {"Color": {"type": "string", "enum": ["red", "green"]}}});
        let pairs =
            ["n=-3", "x=2.5", "b=true", "s=a=b", "o={\"k\":1}", "a=[1]", "maybe=null", "color=green", "either=all"];
        assert_eq!(
            call(schema, &pairs).unwrap(),
            json!({"n": -3, "x": 2.5, "b": true, "s": "a=b", "o": {"k": 1}, "a": [1], "maybe": null,
                   "color": "green", "either": "all"})
        );
    }

    #[test]
    fn a_value_that_does_not_fit_names_its_argument() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"},
            "color": {"type": "string", "enum": ["red", "green"]}}});
        assert_eq!(call(schema.clone(), &["n=two"]).unwrap_err(), "argument `n`: expected a whole number, not `two`");
        assert_eq!(
            call(schema.clone(), &["color=blue"]).unwrap_err(),
            "argument `color`: expected one of red, green, not `blue`"
        );
        assert_eq!(
            call(schema.clone(), &["m=1"]).unwrap_err(),
            "tool `t` has no argument `m` (its arguments: n, color)"
        );
        assert_eq!(call(schema, &["n"]).unwrap_err(), "`n` is not KEY=VALUE");
    }

    #[test]
    fn a_missing_required_argument_is_named_with_what_it_is() {
        let schema = json!({"type": "object", "required": ["title"],
            "properties": {"title": {"type": "string", "description": "Part of the title."}}});
        assert_eq!(call(schema, &[]).unwrap_err(), "tool `t` needs argument `title` (string): Part of the title.");
    }

    #[test]
    fn pairs_add_to_the_json_arguments() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}});
        let arguments = tool_arguments(&tool(schema), &["b=2".into()], Some(r#"{"a": 1, "b": 0}"#)).unwrap();
        assert_eq!(Value::Object(arguments), json!({"a": 1, "b": 2}));
    }
}
