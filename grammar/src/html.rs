//! What a view's HTML must be (MCP Apps): one self-contained document. A host renders it from
//! a string in a sandboxed frame with no base URL, so anything it loads by a relative URL is
//! lost, and anything it loads from elsewhere is blocked unless its CSP declares the origin.
//!
//! This is a scanner, not a parser: it reads tags and their attributes the way a browser's
//! tokenizer does (comments, quoted values, the raw text of `<script>` and `<style>`), which
//! is all the checks need, and it never fails on malformed markup.

use alloc::string::String;
use alloc::vec::Vec;

/// What a URL in a view's markup is fetched as, which decides the CSP field that must allow
/// its origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fetch {
    /// Scripts, styles, images, fonts and media: `resourceDomains`.
    Resource,
    /// A nested frame: `frameDomains`.
    Frame,
    /// `<base href>`: `baseUriDomains`.
    Base,
}

/// A URL the document loads, where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The element, lowercased (`script`).
    pub element: String,
    /// The attribute (`src`).
    pub attribute: &'static str,
    /// The URL as written, trimmed.
    pub url: String,
    /// What it is fetched as.
    pub fetch: Fetch,
}

impl Reference {
    /// Whether the URL is relative (scheme-relative included): it names a file beside the
    /// view, which no host can serve.
    pub fn is_relative(&self) -> bool {
        let url = self.url.as_str();
        if url.is_empty() || url.starts_with('#') {
            return false;
        }
        match url.split_once(':') {
            Some((scheme, _)) => !is_scheme(scheme),
            None => true,
        }
    }

    /// The URL's origin (`https://cdn.example.com`), when it is an absolute http(s) or ws(s) URL.
    pub fn origin(&self) -> Option<&str> {
        let url = self.url.as_str();
        let (scheme, rest) = url.split_once("://")?;
        if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https" | "ws" | "wss") {
            return None;
        }
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        Some(&url[..scheme.len() + 3 + end])
    }
}

fn is_scheme(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// Why `html` is not one HTML document, if it is not: it must begin with `<!doctype html>`
/// and hold a single `<html>` element.
///
/// ```
/// use mcp_rounds_grammar::html::document_problem;
///
/// assert_eq!(document_problem("<!DOCTYPE html><html><body>hi</body></html>"), None);
/// assert!(document_problem("<div>hi</div>").is_some());
/// ```
pub fn document_problem(html: &str) -> Option<&'static str> {
    let start = html.trim_start_matches('\u{feff}').trim_start();
    if !start.get(..14).is_some_and(|s| s.eq_ignore_ascii_case("<!doctype html")) {
        return Some("it does not begin with <!doctype html>");
    }
    let mut doctypes = 0;
    let mut roots = 0;
    scan(html, |tag| match tag {
        Tag::Doctype => doctypes += 1,
        Tag::Element { name, .. } if name == "html" => roots += 1,
        Tag::Element { .. } => {}
    });
    if doctypes > 1 || roots > 1 {
        return Some("it holds more than one document (a second <!doctype> or <html>)");
    }
    None
}

/// Every URL the document loads from its markup: `src` of scripts, images, media and frames,
/// `href` of stylesheets, icons, preloads and `<base>`, `data` of objects.
///
/// ```
/// use mcp_rounds_grammar::html::{Fetch, references};
///
/// let found = references(r#"<!doctype html><script src="app.js"></script><img src='https://x.example/a.png'>"#);
/// assert_eq!(found[0].url, "app.js");
/// assert!(found[0].is_relative());
/// assert_eq!(found[1].origin(), Some("https://x.example"));
/// assert_eq!(found[1].fetch, Fetch::Resource);
/// ```
pub fn references(html: &str) -> Vec<Reference> {
    let mut found = Vec::new();
    scan(html, |tag| {
        let Tag::Element { name, attributes } = tag else { return };
        let value = |wanted: &str| attributes.iter().find(|(n, _)| n == wanted).map(|(_, v)| v.trim());
        let loaded = match name.as_str() {
            "script" | "img" | "source" | "video" | "audio" | "track" | "embed" | "input" => {
                Some(("src", Fetch::Resource))
            }
            "iframe" | "frame" => Some(("src", Fetch::Frame)),
            "object" => Some(("data", Fetch::Resource)),
            "base" => Some(("href", Fetch::Base)),
            "link" => {
                let rel = value("rel").unwrap_or_default().to_ascii_lowercase();
                let loads = rel.split_ascii_whitespace().any(|r| {
                    matches!(r, "stylesheet" | "icon" | "preload" | "modulepreload" | "manifest" | "prefetch")
                });
                loads.then_some(("href", Fetch::Resource))
            }
            _ => None,
        };
        if let Some((attribute, fetch)) = loaded
            && let Some(url) = value(attribute)
        {
            found.push(Reference { element: name.clone(), attribute, url: url.into(), fetch });
        }
    });
    found
}

/// Whether `origin` (`https://cdn.example.com[:port]`) is allowed by one of `sources`, CSP
/// sources as [`is_csp_source`](crate::csp::is_csp_source) accepts them: a scheme alone, an
/// exact origin, or a `*.` wildcard that matches any subdomain (not the domain itself).
///
/// ```
/// use mcp_rounds_grammar::html::origin_allowed;
///
/// assert!(origin_allowed("https://a.cdn.example", ["https://*.cdn.example"]));
/// assert!(!origin_allowed("https://cdn.example", ["https://*.cdn.example"]));
/// assert!(origin_allowed("https://anything.example", ["https:"]));
/// ```
pub fn origin_allowed<'a>(origin: &str, sources: impl IntoIterator<Item = &'a str>) -> bool {
    let origin = origin.to_ascii_lowercase();
    let Some((scheme, host)) = origin.split_once("://") else { return false };
    sources.into_iter().any(|source| {
        let source = source.to_ascii_lowercase();
        match source.split_once("://") {
            None => source.strip_suffix(':') == Some(scheme),
            Some((s, pattern)) => {
                s == scheme
                    && match pattern.strip_prefix("*.") {
                        Some(suffix) => host.len() > suffix.len() + 1 && host.ends_with(&alloc::format!(".{suffix}")),
                        None => host == pattern,
                    }
            }
        }
    })
}

enum Tag {
    Doctype,
    Element { name: String, attributes: Vec<(String, String)> },
}

/// Calls `each` for every doctype and start tag, skipping comments, end tags and the raw text
/// of elements whose content is not markup.
fn scan(html: &str, mut each: impl FnMut(Tag)) {
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(offset) = html[i..].find('<') {
        i += offset + 1;
        let rest = &html[i..];
        if rest.starts_with("!--") {
            i += rest.find("-->").map_or(rest.len(), |end| end + 3);
        } else if rest.starts_with('!') || rest.starts_with('?') || rest.starts_with('/') {
            if rest.get(..8).is_some_and(|s| s.eq_ignore_ascii_case("!doctype")) {
                each(Tag::Doctype);
            }
            i += rest.find('>').map_or(rest.len(), |end| end + 1);
        } else if bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
            let (name, attributes, end) = start_tag(rest);
            i += end;
            if matches!(name.as_str(), "script" | "style" | "textarea" | "title" | "xmp" | "noscript") {
                let close = alloc::format!("</{name}");
                i += find_ignoring_case(&html[i..], &close).unwrap_or(html.len() - i);
            }
            each(Tag::Element { name, attributes });
        }
    }
}

/// The name and attributes of the start tag `rest` begins with (after its `<`), and where it ends.
fn start_tag(rest: &str) -> (String, Vec<(String, String)>, usize) {
    let bytes = rest.as_bytes();
    let name_end = rest.find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>').unwrap_or(rest.len());
    let name = rest[..name_end].to_ascii_lowercase();
    let mut attributes = Vec::new();
    let mut i = name_end;
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'>' {
            return (name, attributes, (i + 1).min(bytes.len()));
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let attribute = rest[start..i].to_ascii_lowercase();
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if let Some(&quote @ (b'"' | b'\'')) = bytes.get(i) {
                let end = rest[i + 1..].find(quote as char).map_or(rest.len(), |e| i + 1 + e);
                value.push_str(&rest[i + 1..end]);
                i = (end + 1).min(rest.len());
            } else {
                let start = i;
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                    i += 1;
                }
                value.push_str(&rest[start..i]);
            }
        }
        if attribute.is_empty() {
            i += 1;
        } else {
            attributes.push((attribute, value));
        }
    }
}

fn find_ignoring_case(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    (0..=h.len().checked_sub(n.len())?).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_text_and_comments_hide_their_markup() {
        let html = r#"<!doctype html><html><head>
            <!-- <script src="commented.js"></script> -->
            <script>const s = "<img src='in-a-string.png'>"; document.write("<html>");</script>
            <style>a::before { content: "<iframe src=x>" }</style>
            <link rel="stylesheet" href = "https://cdn.example.com/a.css">
            <link rel=canonical href="https://example.com/">
            </head><body><iframe src=https://maps.example.com/embed></iframe><a href="other.html">x</a></body></html>"#;
        assert_eq!(document_problem(html), None);
        let found = references(html);
        let urls: Vec<_> = found.iter().map(|r| (r.url.as_str(), r.fetch)).collect();
        assert_eq!(
            urls,
            [("https://cdn.example.com/a.css", Fetch::Resource), ("https://maps.example.com/embed", Fetch::Frame)]
        );
        assert_eq!(found[1].origin(), Some("https://maps.example.com"));
    }

    #[test]
    fn a_view_is_exactly_one_document() {
        assert!(document_problem("").is_some());
        assert!(document_problem("<html><body></body></html>").is_some());
        assert!(document_problem("<!doctype html><html></html><!doctype html><html></html>").is_some());
        assert_eq!(document_problem("\u{feff}\n  <!DOCTYPE HTML><p>fine</p>"), None);
    }

    #[test]
    fn relative_urls_are_told_from_absolute_ones() {
        let reference =
            |url: &str| Reference { element: "img".into(), attribute: "src", url: url.into(), fetch: Fetch::Resource };
        for relative in ["app.js", "./a.png", "/static/a.css", "img/x.png?v=1", "//cdn.example/x"] {
            assert!(reference(relative).is_relative(), "{relative}");
        }
        for absolute in ["https://x.example/a.js", "data:image/png;base64,AAAA", "blob:abc", "#top"] {
            assert!(!reference(absolute).is_relative(), "{absolute}");
        }
        assert_eq!(reference("HTTPS://X.example:8443/a?b#c").origin(), Some("HTTPS://X.example:8443"));
        assert_eq!(reference("data:,x").origin(), None);
    }

    #[test]
    fn origins_match_sources_as_csp_does() {
        assert!(origin_allowed("https://cdn.example.com", ["https://cdn.example.com"]));
        assert!(!origin_allowed("http://cdn.example.com", ["https://cdn.example.com"]));
        assert!(!origin_allowed("https://cdn.example.com:8443", ["https://cdn.example.com"]));
        assert!(origin_allowed("wss://live.example.com", ["wss:"]));
        assert!(!origin_allowed("https://evil.com", ["https://*.example.com"]));
        assert!(!origin_allowed("https://evilexample.com", ["https://*.example.com"]));
    }
}
