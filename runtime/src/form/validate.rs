//! Checking submitted form content against the schema that was sent, field by field.

use serde_json::Value;

use crate::model::{JsonObject, NumberType, PrimitiveSchemaDefinition, RequestedSchema, StringFormat};

/// A field whose value does not fit the schema that was sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}` {reason}")]
pub struct FormViolation {
    /// The field.
    pub field: String,
    /// What is wrong, as a phrase ("is required", "must be at most 10").
    pub reason: String,
}

fn violation(field: &str, reason: impl Into<String>) -> FormViolation {
    FormViolation { field: field.to_owned(), reason: reason.into() }
}

/// Checks `content` against `schema`: required fields present, types, lengths, formats,
/// bounds, and that every choice is one of those offered. Fields the schema does not name are
/// ignored (they never reach the typed form).
pub fn validate(content: &JsonObject, schema: &RequestedSchema) -> Result<(), FormViolation> {
    for name in schema.required.iter().flatten() {
        if content.get(name).is_none_or(Value::is_null) {
            return Err(violation(name, "is required"));
        }
    }
    for (name, field) in &schema.properties {
        match content.get(name) {
            None | Some(Value::Null) => {}
            Some(value) => validate_field(name, value, field)?,
        }
    }
    Ok(())
}

/// Fills in, from `schema`, the default of every field `content` leaves out (absent or null):
/// what a form shows prefilled is what an accepted form carries.
pub fn fill_defaults(content: &mut JsonObject, schema: &RequestedSchema) {
    for (name, field) in &schema.properties {
        if content.get(name).is_some_and(|value| !value.is_null()) {
            continue;
        }
        let default = serde_json::to_value(field).ok().and_then(|mut field| field.get_mut("default").map(Value::take));
        if let Some(default) = default.filter(|d| !d.is_null()) {
            content.insert(name.clone(), default);
        }
    }
}

fn chars_between(field: &str, text: &str, min: Option<u64>, max: Option<u64>) -> Result<(), FormViolation> {
    let count = text.chars().count() as u64;
    if let Some(min) = min.filter(|min| count < *min) {
        return Err(violation(field, format!("must be at least {min} characters")));
    }
    if let Some(max) = max.filter(|max| count > *max) {
        return Err(violation(field, format!("must be at most {max} characters")));
    }
    Ok(())
}

fn one_of<'a>(field: &str, value: &'a Value, allowed: impl Iterator<Item = &'a str>) -> Result<(), FormViolation> {
    let text = value.as_str().ok_or_else(|| violation(field, "must be text"))?;
    let mut allowed = allowed;
    if allowed.any(|a| a == text) {
        Ok(())
    } else {
        Err(violation(field, format!("{text:?} is not one of the choices offered")))
    }
}

fn many_of(
    field: &str,
    value: &Value,
    allowed: &[&str],
    min: Option<u64>,
    max: Option<u64>,
) -> Result<(), FormViolation> {
    let items = value.as_array().ok_or_else(|| violation(field, "must be a list of choices"))?;
    let mut seen: Vec<&str> = Vec::with_capacity(items.len());
    for item in items {
        let text = item.as_str().ok_or_else(|| violation(field, "must be a list of choices"))?;
        if !allowed.contains(&text) {
            return Err(violation(field, format!("{text:?} is not one of the choices offered")));
        }
        if seen.contains(&text) {
            return Err(violation(field, format!("{text:?} is chosen twice")));
        }
        seen.push(text);
    }
    let count = items.len() as u64;
    if let Some(min) = min.filter(|min| count < *min) {
        return Err(violation(field, format!("needs at least {min} choices")));
    }
    if let Some(max) = max.filter(|max| count > *max) {
        return Err(violation(field, format!("allows at most {max} choices")));
    }
    Ok(())
}

/// Checks one field's value against its schema, as [`validate`] does for each field: for a
/// client that asks field by field and asks again until the answer fits.
///
/// ```
/// use mcp_rounds::form::validate_field;
/// use mcp_rounds::model::{NumberSchema, NumberType, PrimitiveSchemaDefinition};
///
/// let mut shots = NumberSchema::default();
/// shots.kind = NumberType::Integer;
/// shots.maximum = Some(4.into());
/// let shots = PrimitiveSchemaDefinition::Number(shots);
/// assert!(validate_field("shots", &2.into(), &shots).is_ok());
/// assert_eq!(validate_field("shots", &9.into(), &shots).unwrap_err().reason, "must be at most 4");
/// ```
pub fn validate_field(field: &str, value: &Value, schema: &PrimitiveSchemaDefinition) -> Result<(), FormViolation> {
    use PrimitiveSchemaDefinition as P;
    match schema {
        P::String(s) => {
            let text = value.as_str().ok_or_else(|| violation(field, "must be text"))?;
            chars_between(field, text, s.min_length, s.max_length)?;
            if let Some(format) = s.format
                && !has_format(text, format)
            {
                return Err(violation(field, format!("must be {}", format_name(format))));
            }
            Ok(())
        }
        P::Number(n) => {
            let number = value.as_f64().ok_or_else(|| violation(field, "must be a number"))?;
            if n.kind == NumberType::Integer && !(value.is_i64() || value.is_u64() || number.fract() == 0.0) {
                return Err(violation(field, "must be a whole number"));
            }
            if let Some(min) = n.minimum.as_ref().and_then(serde_json::Number::as_f64).filter(|min| number < *min) {
                return Err(violation(field, format!("must be at least {min}")));
            }
            if let Some(max) = n.maximum.as_ref().and_then(serde_json::Number::as_f64).filter(|max| number > *max) {
                return Err(violation(field, format!("must be at most {max}")));
            }
            Ok(())
        }
        P::Boolean(_) => value.as_bool().map(|_| ()).ok_or_else(|| violation(field, "must be true or false")),
        P::UntitledSingleSelectEnum(e) => one_of(field, value, e.values.iter().map(String::as_str)),
        P::LegacyTitledEnum(e) => one_of(field, value, e.values.iter().map(String::as_str)),
        P::TitledSingleSelectEnum(e) => one_of(field, value, e.one_of.iter().map(|o| o.value.as_str())),
        P::UntitledMultiSelectEnum(e) => {
            let allowed: Vec<&str> = e.items.values.iter().map(String::as_str).collect();
            many_of(field, value, &allowed, e.min_items, e.max_items)
        }
        P::TitledMultiSelectEnum(e) => {
            let allowed: Vec<&str> = e.items.any_of.iter().map(|o| o.value.as_str()).collect();
            many_of(field, value, &allowed, e.min_items, e.max_items)
        }
    }
}

fn format_name(format: StringFormat) -> &'static str {
    match format {
        StringFormat::Email => "an e-mail address",
        StringFormat::Uri => "an absolute URI",
        StringFormat::Date => "a date (YYYY-MM-DD)",
        StringFormat::DateTime => "a date and time (RFC 3339)",
    }
}

fn has_format(text: &str, format: StringFormat) -> bool {
    match format {
        StringFormat::Email => is_email(text),
        StringFormat::Uri => crate::uri::normalize(text).is_some(),
        StringFormat::Date => is_date(text),
        StringFormat::DateTime => is_date_time(text),
    }
}

fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else { return false };
    !local.is_empty()
        && local.len() <= 64
        && !domain.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn digits(text: &str) -> Option<u32> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
}

fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [year, month, day] = parts.as_slice() else { return false };
    if year.len() != 4 || month.len() != 2 || day.len() != 2 {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(year), digits(month), digits(day)) else { return false };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.split_once(['T', 't']) else { return false };
    if !is_date(date) {
        return false;
    }
    // Time: HH:MM:SS[.fraction] then Z or ±HH:MM.
    let (clock, offset) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, None)
    } else if let Some(i) = time.rfind(['+', '-']) {
        (&time[..i], Some(&time[i + 1..]))
    } else {
        return false;
    };
    let (whole, fraction) = match clock.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (clock, None),
    };
    if fraction.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let hms: Vec<&str> = whole.split(':').collect();
    let [h, m, s] = hms.as_slice() else { return false };
    let ok_clock = [h, m, s].iter().all(|p| p.len() == 2)
        && digits(h).is_some_and(|h| h < 24)
        && digits(m).is_some_and(|m| m < 60)
        && digits(s).is_some_and(|s| s <= 60);
    let ok_offset = offset.is_none_or(|o| {
        let parts: Vec<&str> = o.split(':').collect();
        matches!(parts.as_slice(), [h, m] if h.len() == 2 && m.len() == 2
            && digits(h).is_some_and(|h| h < 24) && digits(m).is_some_and(|m| m < 60))
    });
    ok_clock && ok_offset
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn schema() -> RequestedSchema {
        serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2, "maxLength": 5},
                "email": {"type": "string", "format": "email"},
                "born": {"type": "string", "format": "date"},
                "at": {"type": "string", "format": "date-time"},
                "site": {"type": "string", "format": "uri"},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "height": {"type": "number", "minimum": 0.5},
                "ok": {"type": "boolean"},
                "note": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
                "color": {"type": "string", "enum": ["red", "green"]},
                "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["x", "y", "z"]}}
            },
            "required": ["name", "ok"]
        }))
        .unwrap()
    }

    fn check_one(content: serde_json::Value) -> Result<(), FormViolation> {
        validate(content.as_object().unwrap(), &schema())
    }

    #[test]
    fn valid_content_passes() {
        assert_eq!(
            check_one(json!({
                "name": "Ada", "ok": true, "email": "ada@example.org", "born": "1815-12-10",
                "at": "2026-07-28T10:00:00.5+01:00", "site": "https://example.org/x", "age": 36,
                "height": 1.65, "note": "b", "color": "red", "tags": ["x", "z"], "extra": "ignored"
            })),
            Ok(())
        );
        assert_eq!(check_one(json!({"name": "Ada", "ok": false, "age": 36.0})), Ok(()), "36.0 is a whole number");
    }

    #[test]
    fn every_violation_names_its_field() {
        for (content, field) in [
            (json!({"ok": true}), "name"),
            (json!({"name": null, "ok": true}), "name"),
            (json!({"name": "A", "ok": true}), "name"),
            (json!({"name": "Adalovelace", "ok": true}), "name"),
            (json!({"name": 5, "ok": true}), "name"),
            (json!({"name": "Ada"}), "ok"),
            (json!({"name": "Ada", "ok": "yes"}), "ok"),
            (json!({"name": "Ada", "ok": true, "email": "not-an-email"}), "email"),
            (json!({"name": "Ada", "ok": true, "born": "2026-02-30"}), "born"),
            (json!({"name": "Ada", "ok": true, "at": "2026-07-28 10:00"}), "at"),
            (json!({"name": "Ada", "ok": true, "site": "no scheme"}), "site"),
            (json!({"name": "Ada", "ok": true, "age": 1.5}), "age"),
            (json!({"name": "Ada", "ok": true, "age": 151}), "age"),
            (json!({"name": "Ada", "ok": true, "height": 0.1}), "height"),
            (json!({"name": "Ada", "ok": true, "note": "c"}), "note"),
            (json!({"name": "Ada", "ok": true, "color": "blue"}), "color"),
            (json!({"name": "Ada", "ok": true, "tags": []}), "tags"),
            (json!({"name": "Ada", "ok": true, "tags": ["x", "y", "z"]}), "tags"),
            (json!({"name": "Ada", "ok": true, "tags": ["x", "x"]}), "tags"),
            (json!({"name": "Ada", "ok": true, "tags": ["w"]}), "tags"),
            (json!({"name": "Ada", "ok": true, "tags": "x"}), "tags"),
        ] {
            let err = check_one(content.clone()).unwrap_err();
            assert_eq!(err.field, field, "{content}: {err}");
        }
    }

    #[test]
    fn formats() {
        for good in ["2024-02-29", "2000-02-29", "1999-12-31"] {
            assert!(is_date(good), "{good}");
        }
        for bad in ["2023-02-29", "1900-02-29", "2024-13-01", "2024-1-01", "24-01-01", "2024-01-00", "2024/01/01"] {
            assert!(!is_date(bad), "{bad}");
        }
        for good in ["2026-07-28T10:00:00Z", "2026-07-28t23:59:60z", "2026-07-28T10:00:00.123-05:30"] {
            assert!(is_date_time(good), "{good}");
        }
        for bad in ["2026-07-28T24:00:00Z", "2026-07-28T10:00Z", "2026-07-28T10:00:00", "2026-07-28T10:00:00.Z"] {
            assert!(!is_date_time(bad), "{bad}");
        }
        assert!(is_email("a.b+c@example.co.uk"));
        for bad in ["@x.y", "a@", "a@b", "a b@c.d", "a@.b", "a@b."] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn validation_never_panics_and_only_accepts_offered_choices(note in ".{0,5}", age in any::<i64>()) {
            let result = check_one(json!({"name": "Ada", "ok": true, "note": note, "age": age}));
            if result.is_ok() {
                prop_assert!(note == "a" || note == "b");
                prop_assert!((0..=150).contains(&age));
            }
        }

        #[test]
        fn lengths_count_characters_not_bytes(name in "\\PC{0,8}") {
            let n = name.chars().count();
            let result = check_one(json!({"name": name, "ok": true}));
            prop_assert_eq!(result.is_ok(), (2..=5).contains(&n));
        }
    }
}
