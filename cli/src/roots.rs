//! Roots as the revision wants them: `file://` URIs, from what a person types.

use crate::failure::{Failure, usage};

/// A root as the revision wants it: a `file://` URI as given, or a directory as the `file://`
/// URI of its absolute path (percent-encoded); anything else is refused.
pub fn root_uri(root: &str) -> Result<String, Failure> {
    if root.contains("://") {
        return match root.strip_prefix("file://") {
            Some(_) => Ok(root.to_owned()),
            None => Err(usage(format!("--root `{root}`: a root is a directory or a file:// URI"))),
        };
    }
    let path = std::path::absolute(root).map_err(|e| usage(format!("--root `{root}`: {e}")))?;
    let path = path.to_str().ok_or_else(|| usage(format!("--root `{root}`: not UTF-8")))?;
    let mut uri = String::from("file://");
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => uri.push(byte as char),
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    Ok(uri)
}

#[cfg(test)]
mod tests {
    use super::root_uri;

    #[test]
    fn roots_are_file_uris() {
        assert_eq!(root_uri("/tmp/my notes").unwrap(), "file:///tmp/my%20notes");
        assert_eq!(root_uri("file:///srv/x").unwrap(), "file:///srv/x");
        let refused = root_uri("https://example.com/repo").unwrap_err().to_string();
        assert_eq!(refused, "--root `https://example.com/repo`: a root is a directory or a file:// URI");
    }
}
