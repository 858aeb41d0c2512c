//! URI normalization: two spellings of the same URI compare equal, and nothing is compared
//! before it is normalized.
//!
//! The normalization is the safe part of RFC 3986 §6.2.2: the scheme is lowercased, percent
//! escapes are uppercased, and escapes of unreserved characters are decoded. Escapes of
//! anything else (notably `%2F`, an encoded `/`) stay escaped so they keep their meaning.

/// Longest URI accepted anywhere, in bytes.
pub const MAX_URI_BYTES: usize = 8 * 1024;

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The normalized form of `uri`, or `None` if it is not a URI: no scheme, whitespace or
/// control characters, a broken percent escape, or longer than [`MAX_URI_BYTES`].
pub fn normalize(uri: &str) -> Option<String> {
    if uri.len() > MAX_URI_BYTES {
        return None;
    }
    let colon = uri.find(':')?;
    let scheme = &uri[..colon];
    let mut chars = scheme.bytes();
    if !chars.next().is_some_and(|b| b.is_ascii_alphabetic())
        || !chars.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    {
        return None;
    }
    let mut out = String::with_capacity(uri.len());
    out.push_str(&scheme.to_ascii_lowercase());
    let rest = &uri.as_bytes()[colon..];
    let mut i = 0;
    while i < rest.len() {
        let b = rest[i];
        if b.is_ascii_control() || b == b' ' {
            return None;
        }
        if b == b'%' {
            let (h, l) = (hex(*rest.get(i + 1)?)?, hex(*rest.get(i + 2)?)?);
            let decoded = h * 16 + l;
            if is_unreserved(decoded) {
                out.push(decoded as char);
            } else {
                out.push('%');
                out.push(char::from(b"0123456789ABCDEF"[h as usize]));
                out.push(char::from(b"0123456789ABCDEF"[l as usize]));
            }
            i += 3;
            continue;
        }
        if b.is_ascii() {
            out.push(b as char);
        } else {
            // An IRI's non-ASCII characters become their UTF-8 escapes (RFC 3987 §3.1), so
            // `ü` and `%C3%BC` are the same URI.
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 0xf)]));
        }
        i += 1;
    }
    Some(out)
}

/// Whether `uri` is `subscribed` or below it (`notes://a/b` is below `notes://a`).
pub fn covers(subscribed: &str, uri: &str) -> bool {
    uri == subscribed
        || uri.strip_prefix(subscribed).is_some_and(|rest| rest.starts_with('/') || subscribed.ends_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn equivalent_spellings_normalize_alike() {
        assert_eq!(normalize("NOTES://n/%61bc").unwrap(), "notes://n/abc");
        assert_eq!(normalize("notes://n/a%2fb").unwrap(), "notes://n/a%2Fb", "an encoded slash stays encoded");
        assert_eq!(normalize("file:///srv/notes/%2e%2e/x").unwrap(), "file:///srv/notes/../x");
        assert_eq!(normalize("notes://ü/ß").unwrap(), "notes://%C3%BC/%C3%9F");
        assert_eq!(normalize("notes://%c3%bc").unwrap(), normalize("notes://ü").unwrap());
    }

    #[test]
    fn non_uris_are_refused() {
        for bad in ["", "no-scheme", "1abc://x", "a b://x", "x://a b", "x://a\nb", "x://%zz", "x://%4", ":x"] {
            assert_eq!(normalize(bad), None, "{bad:?}");
        }
        assert_eq!(normalize(&format!("x://{}", "a".repeat(MAX_URI_BYTES))), None);
    }

    proptest! {
        #[test]
        fn normalizing_is_idempotent(s in "[a-z]{1,5}:[ -~]{0,40}") {
            if let Some(once) = normalize(&s) {
                prop_assert_eq!(normalize(&once), Some(once.clone()));
            }
        }
    }

    #[test]
    fn sub_resources_are_covered_by_path_segments() {
        assert!(covers("notes://a", "notes://a"));
        assert!(covers("notes://a", "notes://a/b"));
        assert!(covers("notes://a/", "notes://a/b"));
        assert!(!covers("notes://a", "notes://ab"));
        assert!(!covers("notes://a/b", "notes://a"));
    }
}
