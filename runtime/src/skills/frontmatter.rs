//! The YAML frontmatter of a `SKILL.md`, as the JSON object the extension carries: every field
//! the author wrote, typed as a YAML 1.2 reader types it (what clients compare it with), so
//! `version: 1.0` is the number 1 and `date: 2026-01-02` stays a string.

use serde_json::{Map, Number, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// The frontmatter of `text`: a `---` line first (after an optional byte-order mark), YAML,
/// then a closing `---` line. What is wrong is said in words fit for a log line.
pub(crate) fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("SKILL.md must begin with a `---` line opening its YAML frontmatter")?;
    let yaml = closing(rest).ok_or("the YAML frontmatter is never closed by a `---` line")?;
    let mut documents =
        YamlLoader::load_from_str(yaml).map_err(|e| format!("the YAML frontmatter does not parse: {e}"))?;
    match documents.pop() {
        Some(Yaml::Hash(hash)) if documents.is_empty() => {
            let mut object = Map::new();
            for (key, value) in hash {
                object.insert(key_of(&key)?, json(value)?);
            }
            Ok(object)
        }
        _ => Err("the YAML frontmatter must be a mapping of fields".into()),
    }
}

/// The YAML between the opening line and the first line that is `---` (trailing blanks
/// allowed), or `None` when no such line follows.
fn closing(rest: &str) -> Option<&str> {
    let mut start = 0;
    loop {
        let line_end = rest[start..].find('\n').map_or(rest.len(), |i| start + i);
        let line = rest[start..line_end].trim_end_matches('\r');
        if line.trim_end_matches([' ', '\t']) == "---" {
            // The YAML ends before this line's newline (and its carriage return).
            let end = start.saturating_sub(1);
            let yaml = &rest[..end];
            return Some(yaml.strip_suffix('\r').unwrap_or(yaml));
        }
        if line_end == rest.len() {
            return None;
        }
        start = line_end + 1;
    }
}

fn key_of(key: &Yaml) -> Result<String, String> {
    match key {
        Yaml::String(s) | Yaml::Real(s) => Ok(s.clone()),
        Yaml::Integer(i) => Ok(i.to_string()),
        Yaml::Boolean(b) => Ok(b.to_string()),
        Yaml::Null => Ok("null".into()),
        _ => Err("a frontmatter key must be a plain scalar".into()),
    }
}

fn json(value: Yaml) -> Result<Value, String> {
    Ok(match value {
        Yaml::String(s) => Value::String(s),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(text) => {
            let number = parse_real(&text)
                .and_then(Number::from_f64)
                .ok_or_else(|| format!("the frontmatter number {text} has no JSON form"))?;
            Value::Number(number)
        }
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Null => Value::Null,
        Yaml::Array(items) => Value::Array(items.into_iter().map(json).collect::<Result<_, _>>()?),
        Yaml::Hash(hash) => {
            let mut object = Map::new();
            for (key, value) in hash {
                object.insert(key_of(&key)?, json(value)?);
            }
            Value::Object(object)
        }
        Yaml::Alias(_) => return Err("YAML aliases are not supported in frontmatter".into()),
        Yaml::BadValue => return Err("the YAML frontmatter has a value that cannot be read".into()),
    })
}

/// A YAML 1.2 float: what `f64` parses, and the `.inf`/`.nan` spellings (which JSON cannot
/// carry, so they are refused by the caller).
fn parse_real(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|f| f.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_keep_the_types_a_yaml_1_2_reader_gives_them() {
        let text = "---\nname: tps-report-writing\ndescription: \"Write TPS reports: cover sheet first\"\n\
                    version: 1.0\ncount: 3\nbeta: yes\nreleased: 2026-01-02\nlicense: ~\n\
                    metadata:\n  team: initech\n  tags: [a, b]\n---\n# TPS\n";
        let frontmatter = parse(text).unwrap();
        assert_eq!(
            Value::Object(frontmatter),
            json!({
                "name": "tps-report-writing",
                "description": "Write TPS reports: cover sheet first",
                "version": 1.0,
                "count": 3,
                "beta": "yes",
                "released": "2026-01-02",
                "license": null,
                "metadata": {"team": "initech", "tags": ["a", "b"]},
            })
        );
    }

    #[test]
    fn line_endings_byte_order_marks_and_blanks_after_the_fence_are_accepted() {
        let crlf = "\u{feff}---\r\nname: a\r\ndescription: b\r\n--- \t\r\nbody";
        assert_eq!(Value::Object(parse(crlf).unwrap()), json!({"name": "a", "description": "b"}));
        let at_end = "---\nname: a\ndescription: b\n---";
        assert_eq!(Value::Object(parse(at_end).unwrap()), json!({"name": "a", "description": "b"}));
        // An alias reads as the value it names, as in other YAML readers.
        let aliased = "---\na: &x 1\nb: *x\n---\n";
        assert_eq!(Value::Object(parse(aliased).unwrap()), json!({"a": 1, "b": 1}));
    }

    #[test]
    fn malformed_frontmatter_is_refused_with_a_reason() {
        let cases = [
            ("# no frontmatter\n", "must begin with a `---` line"),
            ("---\nname: a\n", "never closed"),
            ("---\n- a\n- b\n---\n", "must be a mapping"),
            ("---\nname: [unclosed\n---\n", "does not parse"),
            ("---\nx: .inf\n---\n", "no JSON form"),
            ("---\n---\n", "must be a mapping"),
        ];
        for (text, reason) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.contains(reason), "{text:?}: {error}");
        }
    }
}
