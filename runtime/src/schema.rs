//! JSON Schema from Rust types (through schemars, JSON Schema 2020-12), shaped the way MCP
//! clients expect: an optional value is an optional property of its own type, never
//! `"type": ["T", "null"]`, which strict clients reject.

use schemars::transform::{Transform, transform_subschemas};
use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::JsonObject;

/// Removes `null` from the schema of every property that is not required, in place and in
/// every subschema.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OptionalWithoutNull;

impl Transform for OptionalWithoutNull {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(object) = schema.as_object_mut() else { return };
        let required: Vec<String> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                if !required.contains(name) {
                    strip_null(property);
                }
            }
        }
    }
}

/// `{"type": ["string", "null"]}` → `{"type": "string"}`; `{"anyOf": [S, {"type": "null"}]}` → S.
pub(crate) fn strip_null(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else { return };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.pop().expect("one type");
            object.insert("type".into(), only);
        }
    }
    let null_branch = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    let merge = match object.get("anyOf").and_then(Value::as_array) {
        Some(branches) if branches.len() == 2 && branches.iter().any(null_branch) => {
            branches.iter().find(|b| !null_branch(b)).cloned()
        }
        _ => None,
    };
    if let Some(Value::Object(inner)) = merge {
        object.remove("anyOf");
        for (k, v) in inner {
            object.entry(k).or_insert(v);
        }
    }
}

/// A generator for schemas of values the server reads (arguments).
pub fn input_generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().for_deserialize().with_transform(OptionalWithoutNull).into_generator()
}

/// A generator for schemas of values the server writes (structured output). `None` is
/// written as `null`, so here an optional value keeps `null` in its schema: structured
/// content must validate against the output schema.
#[doc(hidden)]
pub fn output_generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().for_serialize().into_generator()
}

/// The root schema of `T` as a JSON object, without `$schema` (2020-12 is the default dialect).
pub(crate) fn root_schema<T: JsonSchema + ?Sized>(generator: &mut SchemaGenerator) -> JsonObject {
    let schema = generator.root_schema_for::<T>();
    let mut object = match schema.to_value() {
        Value::Object(object) => object,
        // `true` (anything) as an object schema.
        _ => JsonObject::new(),
    };
    object.remove("$schema");
    object
}

/// Whether a value of `T` may be left out: it deserializes from `null` (an `Option`, `()`,
/// `serde_json::Value`). Decided by the type's own `Deserialize`, not by its name.
pub(crate) fn accepts_null<T: DeserializeOwned>() -> bool {
    serde_json::from_value::<T>(Value::Null).is_ok()
}

/// Builds a tool's input schema one parameter at a time.
#[doc(hidden)]
pub struct InputSchema {
    generator: SchemaGenerator,
    properties: JsonObject,
    required: Vec<String>,
    whole: Option<(JsonObject, &'static str)>,
    problems: Vec<String>,
}

impl std::fmt::Debug for InputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputSchema").field("properties", &self.properties).finish_non_exhaustive()
    }
}

impl Default for InputSchema {
    fn default() -> Self {
        InputSchema {
            generator: input_generator(),
            properties: JsonObject::new(),
            required: Vec::new(),
            whole: None,
            problems: Vec::new(),
        }
    }
}

impl InputSchema {
    /// Adds the argument `name` of type `T`, required unless `T` accepts `null`.
    pub fn argument<T: JsonSchema + DeserializeOwned>(&mut self, name: &str, description: Option<&str>) {
        if name.is_empty() {
            self.problems.push(
                "an argument parameter has no name: bind it to an identifier or give it #[arg(rename = \"...\")]"
                    .into(),
            );
            return;
        }
        if self.properties.contains_key(name) {
            self.problems.push(format!("two parameters are both named `{name}`"));
            return;
        }
        let mut schema = self.generator.subschema_for::<T>().to_value();
        let optional = accepts_null::<T>();
        if optional {
            strip_null(&mut schema);
        }
        // Beside a `$ref` too: 2020-12 allows sibling keywords, and the description is of this use.
        if let (Some(text), Value::Object(object)) = (description, &mut schema) {
            object.insert("description".into(), text.into());
        }
        self.properties.insert(name.to_owned(), schema);
        if !optional {
            self.required.push(name.to_owned());
        }
    }

    /// Marks the argument `name` (added just before) with `"x-mcp-header": header`: clients
    /// on HTTP then repeat its value in an `Mcp-Param-{header}` header. The bound keeps it to
    /// types whose schema a header can carry; the declaration as a whole is checked when the
    /// server is built.
    pub fn header<T: crate::headers::HeaderParam>(&mut self, name: &str, header: &str) {
        match self.properties.get_mut(name) {
            Some(Value::Object(property)) => {
                // SEP-2243 does not follow `$ref` to find the annotated type, so a named type
                // (a newtype or unit enum) is inlined at this one property.
                let target = property.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"));
                if let Some(Value::Object(definition)) = target.and_then(|t| self.generator.definitions().get(t)) {
                    let definition = definition.clone();
                    property.remove("$ref");
                    for (key, value) in definition {
                        property.entry(key).or_insert(value);
                    }
                }
                property.insert("x-mcp-header".into(), header.into());
            }
            _ => self.problems.push(format!("#[arg(header = \"{header}\")] is on `{name}`, which is no argument")),
        }
    }

    /// Takes every argument from one struct `T` (see [`Args`](crate::Args)).
    pub fn whole<T: JsonSchema>(&mut self) {
        let schema = root_schema::<T>(&mut self.generator);
        let name = std::any::type_name::<T>();
        if self.whole.is_some() {
            self.problems.push("only one Args<T> parameter is allowed".into());
        } else if schema.get("type").and_then(Value::as_str) != Some("object") {
            self.problems.push(format!("Args<{name}> must describe an object (a struct with named fields or a map)"));
        }
        self.whole = Some((schema, name));
    }

    /// The finished schema, or what is wrong with the parameters.
    pub fn finish(mut self) -> Result<JsonObject, String> {
        if let Some((_, name)) = &self.whole
            && !self.properties.is_empty()
        {
            let names: Vec<&str> = self.properties.keys().map(String::as_str).collect();
            self.problems.push(format!(
                "Args<{name}> takes all arguments, so parameter(s) {} must move into {name}",
                names.join(", ")
            ));
        }
        if !self.problems.is_empty() {
            return Err(self.problems.join("; "));
        }
        if let Some((schema, _)) = self.whole {
            return Ok(schema);
        }
        let mut schema = JsonObject::new();
        schema.insert("type".into(), "object".into());
        if !self.properties.is_empty() {
            schema.insert("properties".into(), Value::Object(self.properties));
        }
        if !self.required.is_empty() {
            schema.insert("required".into(), self.required.into());
        }
        schema.insert("additionalProperties".into(), false.into());
        let definitions = self.generator.take_definitions(true);
        if !definitions.is_empty() {
            schema.insert("$defs".into(), Value::Object(definitions));
        }
        Ok(schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Place {
        /// The city.
        city: String,
        /// Optional country.
        country: Option<String>,
        #[serde(rename = "zipCode")]
        zip_code: Option<u32>,
    }

    #[test]
    fn options_are_optional_properties_of_their_type() {
        let mut input = InputSchema::default();
        input.argument::<String>("title", Some("The title."));
        input.argument::<Option<u32>>("limit", None);
        input.argument::<Place>("place", None);
        let schema = Value::Object(input.finish().unwrap());
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["title", "place"]));
        assert_eq!(schema["properties"]["title"], json!({"type": "string", "description": "The title."}));
        assert_eq!(schema["properties"]["limit"]["type"], "integer");
        assert_eq!(schema["additionalProperties"], false);
        let place = &schema["$defs"]["Place"];
        assert_eq!(place["properties"]["country"]["type"], "string", "{place}");
        assert_eq!(place["properties"]["zipCode"]["type"], "integer", "serde renames are honoured: {place}");
        assert_eq!(place["required"], json!(["city"]));
        assert_eq!(place["properties"]["city"]["description"], "The city.");
    }

    #[test]
    fn no_arguments_is_a_closed_empty_object() {
        let schema = InputSchema::default().finish().unwrap();
        assert_eq!(Value::Object(schema), json!({"type": "object", "additionalProperties": false}));
    }

    #[test]
    fn whole_struct_arguments() {
        let mut input = InputSchema::default();
        input.whole::<Place>();
        let schema = Value::Object(input.finish().unwrap());
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["country"]["type"], "string");
        assert!(schema.get("$schema").is_none());

        let mut mixed = InputSchema::default();
        mixed.whole::<Place>();
        mixed.argument::<String>("extra", None);
        assert!(mixed.finish().unwrap_err().contains("extra"));

        let mut scalar = InputSchema::default();
        scalar.whole::<String>();
        assert!(scalar.finish().unwrap_err().contains("must describe an object"));
    }

    #[test]
    fn header_arguments_carry_x_mcp_header() {
        let mut input = InputSchema::default();
        input.argument::<String>("region", None);
        input.header::<String>("region", "Region");
        input.argument::<Option<u32>>("limit", None);
        input.header::<Option<u32>>("limit", "Limit");
        let schema = Value::Object(input.finish().unwrap());
        assert_eq!(schema["properties"]["region"], json!({"type": "string", "x-mcp-header": "Region"}));
        assert_eq!(schema["properties"]["limit"]["x-mcp-header"], "Limit");
        assert_eq!(schema["properties"]["limit"]["type"], "integer");

        let mut missing = InputSchema::default();
        missing.header::<String>("nothing", "X");
        assert!(missing.finish().unwrap_err().contains("no argument"));
    }

    #[test]
    fn duplicate_and_nameless_arguments_are_reported() {
        let mut input = InputSchema::default();
        input.argument::<String>("a", None);
        input.argument::<String>("a", None);
        input.argument::<String>("", None);
        let err = input.finish().unwrap_err();
        assert!(err.contains("named `a`") && err.contains("no name"), "{err}");
    }
}
