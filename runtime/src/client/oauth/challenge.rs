//! A `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3), read for what the client needs: where
//! the protected resource metadata is, the scope the request wants, and why it was refused.
//! A header value is a list of challenges, each a scheme and its parameters (RFC 9110 §11.6.1),
//! read as such: a scheme's name inside another challenge's quoted string or token68 is not a
//! scheme.

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
    /// The first `Bearer` challenge among `values` (each a `WWW-Authenticate` header), if any.
    pub(crate) fn read<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
        values.into_iter().find_map(|value| {
            let (_, parameters) =
                challenges(value).into_iter().find(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))?;
            let mut challenge = Challenge::default();
            for (name, text) in parameters {
                let slot = match name.to_ascii_lowercase().as_str() {
                    "resource_metadata" => &mut challenge.resource_metadata,
                    "scope" => &mut challenge.scope,
                    "error" => &mut challenge.error,
                    _ => continue,
                };
                // A parameter named twice: the first one counts.
                slot.get_or_insert(text);
            }
            Some(challenge)
        })
    }

    /// Whether this refusal asks for more scope (a 403 with `insufficient_scope`).
    pub(crate) fn wants_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// A scheme and its parameters.
type Parsed = (String, Vec<(String, String)>);

/// The challenges of one header value, in order.
fn challenges(value: &str) -> Vec<Parsed> {
    let mut found: Vec<Parsed> = Vec::new();
    for item in list_items(value) {
        let item = item.trim_matches([' ', '\t']);
        let end = item.find(|c: char| !is_tchar(c)).unwrap_or(item.len());
        let (token, rest) = item.split_at(end);
        if token.is_empty() {
            continue;
        }
        let after = rest.trim_start_matches([' ', '\t']);
        if let Some(value) = after.strip_prefix('=') {
            // `name = value`: a parameter of the challenge before it.
            if let Some((_, parameters)) = found.last_mut() {
                parameters.push((token.to_owned(), parameter_value(value)));
            }
            continue;
        }
        // A scheme, alone or with its first parameter (or a token68, which says nothing here).
        let mut parameters = Vec::new();
        let first_end = after.find(|c: char| !is_tchar(c)).unwrap_or(after.len());
        let (name, rest) = after.split_at(first_end);
        if let Some(value) = rest.trim_start_matches([' ', '\t']).strip_prefix('=')
            && !name.is_empty()
            && !value.starts_with('=')
        {
            parameters.push((name.to_owned(), parameter_value(value)));
        }
        found.push((token.to_owned(), parameters));
    }
    found
}

/// The elements of a comma-separated list, commas inside quoted strings kept.
fn list_items(value: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (at, c) in value.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                items.push(&value[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&value[start..]);
    items
}

/// A parameter's value: a quoted string unescaped, or a token.
fn parameter_value(text: &str) -> String {
    let text = text.trim_matches([' ', '\t']);
    let Some(quoted) = text.strip_prefix('"') else { return text.to_owned() };
    let mut out = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '"' => break,
            other => out.push(other),
        }
    }
    out
}

/// A character of a token (RFC 9110 §5.6.2).
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
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

    #[test]
    fn a_schemes_name_elsewhere_in_the_list_is_not_a_scheme() {
        // Inside another challenge's quoted string, or as its token68.
        let quoted = r#"Basic realm="Use your Bearer token", Bearer error="invalid_token""#;
        assert_eq!(Challenge::read([quoted]).unwrap().error.as_deref(), Some("invalid_token"));
        let token68 = r#"Basic bearer, Bearer error="invalid_token""#;
        assert_eq!(Challenge::read([token68]).unwrap().error.as_deref(), Some("invalid_token"));
        // A tab before the scheme, and space around `=`.
        let tab = "Basic realm=\"x\",\tBearer error = \"invalid_token\"";
        assert_eq!(Challenge::read([tab]).unwrap().error.as_deref(), Some("invalid_token"));
        // A Bearer with no parameter before another scheme is the first Bearer of the header.
        let bare = r#"Bearer, Basic realm="x""#;
        assert_eq!(Challenge::read([bare, r#"Bearer error="later""#]), Some(Challenge::default()));
    }
}
