//! A `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3), read for what the client needs: where
//! the protected resource metadata is, the scope the request wants, and why it was refused.

/// What a server's refusal says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// `resource_metadata`: where the protected resource metadata is (RFC 9728 §5.1).
    pub(crate) resource_metadata: Option<String>,
    /// `scope`: what the request needs.
    pub(crate) scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, …
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// The `Bearer` challenge among `values` (each a `WWW-Authenticate` header), if any.
    pub(crate) fn read<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
        values.into_iter().find_map(bearer)
    }

    /// Whether this refusal asks for more scope (a 403 with `insufficient_scope`).
    pub(crate) fn wants_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The parameters of a `Bearer` challenge in one header value, which may hold other schemes.
fn bearer(value: &str) -> Option<Challenge> {
    let at = find_scheme(value, "bearer")?;
    let mut rest = &value[at + "bearer".len()..];
    let mut challenge = Challenge::default();
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        let Some(eq) = rest.find('=') else { break };
        let name = rest[..eq].trim();
        // A name with a space in it is the next scheme's: this challenge has ended.
        if name.is_empty() || name.contains(' ') {
            break;
        }
        rest = rest[eq + 1..].trim_start();
        let (text, after) = if let Some(quoted) = rest.strip_prefix('"') {
            quoted_string(quoted)
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            (rest[..end].trim().to_owned(), &rest[end..])
        };
        rest = after;
        match name.to_ascii_lowercase().as_str() {
            "resource_metadata" => challenge.resource_metadata = Some(text),
            "scope" => challenge.scope = Some(text),
            "error" => challenge.error = Some(text),
            _ => {}
        }
    }
    Some(challenge)
}

/// Where `scheme` starts as a whole word, case-insensitively.
fn find_scheme(value: &str, scheme: &str) -> Option<usize> {
    let lower = value.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find(scheme) {
        let at = from + found;
        let before = lower[..at].chars().next_back();
        let after = lower[at + scheme.len()..].chars().next();
        if before.is_none_or(|c| c == ',' || c == ' ') && after.is_none_or(|c| c == ' ') {
            return Some(at);
        }
        from = at + scheme.len();
    }
    None
}

/// The text of a quoted string (after its opening quote), backslash escapes undone, and what
/// follows its closing quote.
fn quoted_string(text: &str) -> (String, &str) {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    out.push(escaped);
                }
            }
            '"' => return (out, &text[i + 1..]),
            other => out.push(other),
        }
    }
    (out, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_is_read_among_others() {
        let header = r#"Basic realm="x", Bearer error="insufficient_scope", scope="mcp:write a\"b", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp""#;
        let challenge = Challenge::read([header]).unwrap();
        assert_eq!(challenge.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(challenge.scope.as_deref(), Some("mcp:write a\"b"));
        assert_eq!(challenge.resource_metadata.as_deref(), Some("http://h/.well-known/oauth-protected-resource/mcp"));
        assert!(challenge.wants_scope());
        assert_eq!(Challenge::read(["Bearer"]), Some(Challenge::default()));
        assert_eq!(Challenge::read(["Basic realm=\"bearer\""]), None);
        assert_eq!(Challenge::read(["Bearer error=invalid_token"]).unwrap().error.as_deref(), Some("invalid_token"));
    }
}
