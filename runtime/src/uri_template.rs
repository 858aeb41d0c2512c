//! RFC 6570 URI templates, the subset resources need: `{var}` (one path segment's worth of
//! unreserved characters) and `{+var}` (reserved expansion, may span `/`).
//!
//! Matching is strict on purpose: a variable never matches an encoded `/`, a `.` or `..`
//! segment, a control character, a backslash or more than [`MAX_VALUE_BYTES`]; so a value
//! taken from a URI can be used as a file name or a key without another check for traversal.

use std::fmt;

use mcp_rounds_grammar::template as grammar;
use percent_encoding::percent_decode_str;

/// Longest decoded value a variable may take.
pub const MAX_VALUE_BYTES: usize = 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var { name: String, reserved: bool },
}

/// A parsed URI template.
#[derive(Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

/// Why a template string is not a template this framework supports.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid URI template {template:?}: {reason}")]
pub struct TemplateError {
    template: String,
    reason: String,
}

impl fmt::Debug for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UriTemplate({:?})", self.source)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn simple_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'%')
}

fn reserved_char(b: u8) -> bool {
    simple_char(b) || b":/?#[]@!$&'()*+,;=".contains(&b)
}

impl UriTemplate {
    /// Parses a template (the same grammar `#[resource]` checks when it compiles).
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let parsed =
            grammar::parse(template).map_err(|reason| TemplateError { template: template.to_owned(), reason })?;
        let mut parts: Vec<Part> = parsed
            .into_iter()
            .map(|part| match part {
                grammar::Part::Literal(text) => Part::Literal(text),
                grammar::Part::Var { name, reserved } => Part::Var { name, reserved },
            })
            .collect();
        // Literals compare against normalized URIs, so normalize the template's text too.
        if let Some(Part::Literal(first)) = parts.first_mut()
            && let Some(colon) = first.find(':')
        {
            let lowered = first[..colon].to_ascii_lowercase();
            first.replace_range(..colon, &lowered);
        }
        Ok(UriTemplate { source: template.to_owned(), parts })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// True when the template has no variables (a fixed URI).
    pub fn is_fixed(&self) -> bool {
        self.variables().next().is_none()
    }

    /// How specific the template is: the number of literal bytes. More specific templates are
    /// tried first.
    pub(crate) fn literal_len(&self) -> usize {
        self.parts.iter().map(|p| if let Part::Literal(l) = p { l.len() } else { 0 }).sum()
    }

    /// The decoded variable values, in order, if the (normalized) URI matches.
    pub fn matches(&self, uri: &str) -> Option<Vec<String>> {
        let mut values = Vec::with_capacity(self.parts.len());
        self.match_from(0, uri, &mut values).then_some(values)
    }

    fn match_from(&self, part: usize, uri: &str, values: &mut Vec<String>) -> bool {
        let Some(current) = self.parts.get(part) else { return uri.is_empty() };
        match current {
            Part::Literal(literal) => {
                uri.strip_prefix(literal.as_str()).is_some_and(|rest| self.match_from(part + 1, rest, values))
            }
            Part::Var { reserved, .. } => {
                let allowed = if *reserved { reserved_char } else { simple_char };
                // A value longer than this, even fully percent-encoded, is refused when decoded:
                // a hostile URI of megabytes is not scanned end by end.
                let longest = uri.bytes().take(3 * MAX_VALUE_BYTES + 1).position(|b| !allowed(b));
                let longest = longest.unwrap_or(uri.len().min(3 * MAX_VALUE_BYTES + 1));
                // Longest first, backing off until the rest of the template matches; a value is
                // decoded only for an end the rest matches from, so each end tried costs the
                // rest's literal, not a copy of the value.
                for end in (1..=longest).rev() {
                    let raw = &uri[..end];
                    if !raw_is_whole(raw) {
                        continue;
                    }
                    let slot = values.len();
                    values.push(String::new());
                    if self.match_from(part + 1, &uri[end..], values)
                        && let Some(value) = decode_value(raw, *reserved)
                    {
                        values[slot] = value;
                        return true;
                    }
                    values.truncate(slot);
                }
                false
            }
        }
    }

    /// The URI for these values (in variable order), percent-encoding what must be encoded.
    pub fn expand(&self, values: &[&str]) -> String {
        let mut out = String::new();
        let mut values = values.iter();
        for part in &self.parts {
            match part {
                Part::Literal(l) => out.push_str(l),
                Part::Var { reserved, .. } => {
                    let value = values.next().copied().unwrap_or_default();
                    for b in value.bytes() {
                        let keep = if *reserved { reserved_char(b) && b != b'%' } else { simple_char(b) && b != b'%' };
                        if keep {
                            out.push(b as char);
                        } else {
                            out.push_str(&format!("%{b:02X}"));
                        }
                    }
                }
            }
        }
        out
    }
}

/// A raw value must not end inside a percent escape.
fn raw_is_whole(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    let n = bytes.len();
    !(bytes[n - 1] == b'%' || (n >= 2 && bytes[n - 2] == b'%'))
}

fn decode_value(raw: &str, reserved: bool) -> Option<String> {
    let upper = raw.to_ascii_uppercase();
    if upper.contains("%2F") || upper.contains("%5C") {
        return None;
    }
    let value = percent_decode_str(raw).decode_utf8().ok()?.into_owned();
    if value.is_empty() || value.len() > MAX_VALUE_BYTES || value.contains('\\') || value.chars().any(char::is_control)
    {
        return None;
    }
    let dot_segment = |s: &str| s == "." || s == "..";
    if reserved {
        if value.split('/').any(dot_segment) {
            return None;
        }
    } else if value.contains('/') || dot_segment(&value) {
        return None;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(s: &str) -> UriTemplate {
        UriTemplate::parse(s).unwrap()
    }

    #[test]
    fn simple_variables_match_one_segment() {
        let template = t("notes://projects/{project}/notes/{id}");
        assert_eq!(template.variables().collect::<Vec<_>>(), ["project", "id"]);
        assert_eq!(template.matches("notes://projects/alpha/notes/n-1"), Some(vec!["alpha".into(), "n-1".into()]));
        assert_eq!(template.matches("notes://projects/a%20b/notes/x"), Some(vec!["a b".into(), "x".into()]));
        assert_eq!(template.matches("notes://projects/a/b/notes/x"), None);
        assert_eq!(template.matches("notes://projects/a%2Fb/notes/x"), None, "encoded slash never matches");
        assert_eq!(template.matches("notes://projects/../notes/x"), None);
        assert_eq!(template.matches("notes://projects/%2E%2E/notes/x"), None);
        assert_eq!(template.matches("notes://projects//notes/x"), None, "empty values never match");
        assert_eq!(template.matches("notes://projects/a%00/notes/x"), None, "control characters never match");
        assert_eq!(template.matches("notes://projects/a/notes/x/extra"), None);
    }

    #[test]
    fn reserved_variables_span_segments_but_not_dot_segments() {
        let template = t("file:///srv/{+path}");
        assert_eq!(template.matches("file:///srv/a/b/c.md"), Some(vec!["a/b/c.md".into()]));
        assert_eq!(template.matches("file:///srv/a/../../etc/passwd"), None);
        assert_eq!(template.matches("file:///srv/./a"), None);
        assert_eq!(template.matches("file:///srv/a%2F..%2Fb"), None);
        assert_eq!(template.matches("file:///srv/a\\b"), None);
        let suffixed = t("docs://{+path}.md");
        assert_eq!(suffixed.matches("docs://guide/intro.md"), Some(vec!["guide/intro".into()]), "backtracks to fit");
    }

    #[test]
    fn long_values_never_match() {
        let template = t("n://{id}");
        assert!(template.matches(&format!("n://{}", "a".repeat(MAX_VALUE_BYTES))).is_some());
        assert!(template.matches(&format!("n://{}", "a".repeat(MAX_VALUE_BYTES + 1))).is_none());
    }

    #[test]
    fn unsupported_templates_are_refused() {
        for bad in
            ["n://{", "n://}", "n://{}", "n://{a b}", "n://{?q}", "n://{#f}", "n://{a}{b}", "n://{a}/{a}", "n://{x:3}"]
        {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
        assert!(t("config://app").is_fixed());
    }

    #[test]
    fn expand_encodes_and_round_trips() {
        let template = t("notes://{project}/{+path}");
        let uri = template.expand(&["a b", "x/y z"]);
        assert_eq!(uri, "notes://a%20b/x/y%20z");
        assert_eq!(template.matches(&uri), Some(vec!["a b".into(), "x/y z".into()]));
    }

    proptest! {
        #[test]
        fn expanded_values_match_back(a in "[^/\\\\\\x00-\\x1f\\x7f-\\u{9f}]{1,30}", b in "[a-z0-9 _-]{1,10}(/[a-z0-9 _-]{1,10}){0,3}") {
            prop_assume!(a != "." && a != "..");
            let template = t("x://{a}/files/{+b}");
            let uri = template.expand(&[&a, &b]);
            let normalized = crate::uri::normalize(&uri).unwrap();
            prop_assert_eq!(template.matches(&normalized), Some(vec![a.clone(), b.clone()]));
        }

        #[test]
        fn matching_never_panics(uri in "x://[ -~]{0,60}") {
            let _ = t("x://{a}/files/{+b}").matches(&uri);
        }
    }
}
