//! Elicitation (`elicitation/create`) as embedded in `inputRequests`: form and URL modes.

use indexmap::IndexMap;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use super::JsonObject;

literal!(
    /// `"form"`.
    FormMode = "form"
);
literal!(
    /// `"url"`.
    UrlMode = "url"
);
literal!(
    /// `"object"`.
    ObjectType = "object"
);
literal!(
    /// `"string"`.
    StringType = "string"
);
literal!(
    /// `"boolean"`.
    BooleanType = "boolean"
);
literal!(
    /// `"array"`.
    ArrayType = "array"
);

/// The parameters of an embedded `elicitation/create`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Ask the user to fill in a form.
    Form(ElicitRequestFormParams),
    /// Send the user to a URL for an out-of-band step.
    Url(ElicitRequestUrlParams),
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        // A missing mode means form mode.
        match value.get("mode").and_then(Value::as_str) {
            Some("url") => serde_json::from_value(value).map(ElicitRequestParams::Url),
            _ => serde_json::from_value(value).map(ElicitRequestParams::Form),
        }
        .map_err(de::Error::custom)
    }
}

/// Form-mode elicitation: a message and a flat schema of primitive fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// Always `"form"` when sent.
    #[serde(default)]
    pub mode: FormMode,
    /// What the user is asked.
    pub message: String,
    /// The fields.
    pub requested_schema: RequestedSchema,
}

/// URL-mode elicitation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitRequestUrlParams {
    /// Always `"url"`.
    pub mode: UrlMode,
    /// Why the user should open the URL.
    pub message: String,
    /// Where to send the user; no credentials or personal data in it.
    pub url: String,
}

/// The restricted schema of a form: a flat object of primitive fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestedSchema {
    /// `$schema`, if declared.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: ObjectType,
    /// The fields, in display order.
    pub properties: IndexMap<String, PrimitiveSchemaDefinition>,
    /// The names of the fields that must be filled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

/// One field of a form.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// Free text.
    String(StringSchema),
    /// A number or an integer.
    Number(NumberSchema),
    /// A yes/no.
    Boolean(BooleanSchema),
    /// One of a list of strings.
    UntitledSingleSelectEnum(UntitledSingleSelectEnumSchema),
    /// One of a list of options with display titles.
    TitledSingleSelectEnum(TitledSingleSelectEnumSchema),
    /// Any of a list of strings.
    UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema),
    /// Any of a list of options with display titles.
    TitledMultiSelectEnum(TitledMultiSelectEnumSchema),
    /// The older `enum` + `enumNames` form (to be removed from the protocol).
    LegacyTitledEnum(LegacyTitledEnumSchema),
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use PrimitiveSchemaDefinition as P;
        let value = Value::deserialize(deserializer)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
        let has = |k: &str| value.get(k).is_some();
        let titled_items = value.get("items").is_some_and(|i| i.get("anyOf").is_some());
        match kind.as_str() {
            "string" if has("oneOf") => serde_json::from_value(value).map(P::TitledSingleSelectEnum),
            "string" if has("enumNames") => serde_json::from_value(value).map(P::LegacyTitledEnum),
            "string" if has("enum") => serde_json::from_value(value).map(P::UntitledSingleSelectEnum),
            "string" => serde_json::from_value(value).map(P::String),
            "number" | "integer" => serde_json::from_value(value).map(P::Number),
            "boolean" => serde_json::from_value(value).map(P::Boolean),
            "array" if titled_items => serde_json::from_value(value).map(P::TitledMultiSelectEnum),
            "array" => serde_json::from_value(value).map(P::UntitledMultiSelectEnum),
            other => {
                return Err(de::Error::custom(format_args!(
                    "unsupported form field type {other:?}: expected string, number, integer, boolean or array"
                )));
            }
        }
        .map_err(de::Error::custom)
    }
}

/// A string field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// A format the value must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The formats a form string may declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringFormat {
    /// An e-mail address.
    #[serde(rename = "email")]
    Email,
    /// An absolute URI.
    #[serde(rename = "uri")]
    Uri,
    /// A calendar date, `YYYY-MM-DD`.
    #[serde(rename = "date")]
    Date,
    /// An RFC 3339 date and time.
    #[serde(rename = "date-time")]
    DateTime,
}

/// `"number"` or `"integer"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// A whole number.
    Integer,
}

/// A numeric field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Smallest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// Largest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Number>,
}

/// A boolean field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A single choice among plain strings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Pre-selected choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A value with its display title.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TitledOption {
    /// The value sent back.
    #[serde(rename = "const")]
    pub value: String,
    /// What the user sees.
    pub title: String,
}

/// A single choice among titled options.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    pub one_of: Vec<TitledOption>,
    /// Pre-selected choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `items` of an untitled multi-select.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UntitledItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// Any number of choices among plain strings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: UntitledItems,
    /// Pre-selected choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// The `items` of a titled multi-select.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledItems {
    /// The choices.
    pub any_of: Vec<TitledOption>,
}

/// Any number of choices among titled options.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledItems,
    /// Pre-selected choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// `enum` with parallel `enumNames` (kept for older clients; to be removed from the protocol).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display names, parallel to `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Pre-selected choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form) or agreed to open the URL (URL mode).
    Accept,
    /// Explicitly said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The client's answer to an elicitation, sent in `inputResponses`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode, accept only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}

impl ElicitResult {
    /// The user submitted the form with `content` (or agreed to open the URL: `None`).
    pub fn accept(content: Option<JsonObject>) -> Self {
        ElicitResult { action: ElicitAction::Accept, content }
    }

    /// The user said no.
    pub fn decline() -> Self {
        ElicitResult { action: ElicitAction::Decline, content: None }
    }

    /// The user dismissed the request without choosing.
    pub fn cancel() -> Self {
        ElicitResult { action: ElicitAction::Cancel, content: None }
    }
}
