//! What a view's HTML must be (MCP Apps): one self-contained document. A host renders it from
//! a string in a sandboxed frame with no base URL, so anything it loads by a relative URL is
//! lost, and anything it loads from elsewhere is blocked unless its CSP declares the origin.
//!
//! This is a lint, not a security boundary: it catches those mistakes when the view is built,
//! instead of in a host. What a view can reach is decided by the host, which enforces the CSP
//! the view declares and renders it in a sandbox; markup this scanner misreads is still held
//! to that policy.
//!
//! It is a scanner, not a parser: it reads tags and their attributes the way a browser's
//! tokenizer does (comments, quoted values, the raw text of `<script>` and `<style>`), and the
//! URLs in CSS, which is all the checks need, and it never fails on malformed markup.

mod css;
mod scan;
#[cfg(test)]
mod tests;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use scan::{Tag, scan};

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

/// How a URL is written in CSS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Css {
    /// `url(...)`.
    Url,
    /// `@import "..."` or `@import url(...)`.
    Import,
}

/// A URL the document loads, where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The element, lowercased (`script`).
    pub element: String,
    /// The attribute (`src`), or `None` for the text of a `<style>` element.
    pub attribute: Option<&'static str>,
    /// How the URL is written when it is in CSS.
    pub css: Option<Css>,
    /// The URL as written, trimmed (CSS escapes resolved).
    pub url: String,
    /// What it is fetched as.
    pub fetch: Fetch,
}

impl Reference {
    /// The URL as a browser reads it: without ASCII tabs and newlines, and with `\` read as
    /// `/` (so `https:\\cdn.example` is `https://cdn.example`).
    pub fn resolved(&self) -> String {
        self.url.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).map(|c| if c == '\\' { '/' } else { c }).collect()
    }

    /// Whether the URL is relative (scheme-relative included): it names a file beside the
    /// view, which no host can serve.
    pub fn is_relative(&self) -> bool {
        let url = self.resolved();
        if url.is_empty() || url.starts_with('#') {
            return false;
        }
        match url.split_once(':') {
            Some((scheme, _)) => !is_scheme(scheme),
            None => true,
        }
    }

    /// The URL's origin (`https://cdn.example.com`), when it is an absolute http(s) or ws(s) URL.
    pub fn origin(&self) -> Option<String> {
        let url = self.resolved();
        let (scheme, rest) = url.split_once(':')?;
        if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https" | "ws" | "wss") {
            return None;
        }
        // A browser takes any number of slashes after these schemes, none included, for `//`.
        let rest = rest.trim_start_matches('/');
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        Some(format!("{scheme}://{}", &rest[..end]))
    }
}

/// Where the reference is written, for messages: `<img src="a.png">`,
/// `<div style="... url(a.png) ...">`, `<style> @import "a.css"`.
impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Reference { element, url, .. } = self;
        let css = match self.css {
            Some(Css::Url) => format!("url({url})"),
            Some(Css::Import) => format!("@import \"{url}\""),
            None => url.clone(),
        };
        match self.attribute {
            None => write!(f, "<{element}> {css}"),
            Some(attribute) if self.css.is_some() || attribute == "srcset" => {
                write!(f, "<{element} {attribute}=\"... {css} ...\">")
            }
            Some(attribute) => write!(f, "<{element} {attribute}=\"{css}\">"),
        }
    }
}

pub(crate) fn is_scheme(text: &str) -> bool {
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

/// SVG elements whose `href` (or the older `xlink:href`) fetches what it names when it is not
/// a fragment of the document.
const SVG_LINKS: &[&str] =
    &["image", "use", "feimage", "script", "pattern", "lineargradient", "radialgradient", "filter"];

/// Attributes whose value is CSS that may hold `url(...)`: `style`, and SVG's presentation
/// attributes that take a paint server, filter, clip, mask or marker.
const CSS_ATTRIBUTES: &[&str] =
    &["style", "fill", "stroke", "filter", "clip-path", "mask", "marker-start", "marker-mid", "marker-end"];

/// Every URL the document loads from its markup: `src` of scripts, images, media and frames,
/// `srcset` of images, `poster` of videos, `href` of stylesheets, icons, preloads, `<base>`
/// and SVG's images, uses and gradients (`xlink:href` too), `data` of objects, and CSS
/// `url(...)` and `@import` in `<style>` and `style` attributes.
///
/// ```
/// use mcp_rounds_grammar::html::{Fetch, references};
///
/// let found = references(r#"<!doctype html><script src="app.js"></script><img src='https://x.example/a.png'>"#);
/// assert_eq!(found[0].url, "app.js");
/// assert!(found[0].is_relative());
/// assert_eq!(found[1].origin().as_deref(), Some("https://x.example"));
/// assert_eq!(found[1].fetch, Fetch::Resource);
/// ```
pub fn references(html: &str) -> Vec<Reference> {
    let mut found = Vec::new();
    scan(html, |tag| {
        let Tag::Element { name, attributes, text } = tag else { return };
        let value = |wanted: &str| attributes.iter().find(|(n, _)| n == wanted).map(|(_, v)| v.trim());
        let mut add = |attribute, css, url: &str, fetch| {
            let url = url.trim().into();
            found.push(Reference { element: name.clone(), attribute, css, url, fetch });
        };
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
            add(Some(attribute), None, url, fetch);
        }
        if matches!(name.as_str(), "img" | "source")
            && let Some(candidates) = value("srcset")
        {
            for url in srcset(candidates) {
                add(Some("srcset"), None, url, Fetch::Resource);
            }
        }
        if name == "video"
            && let Some(url) = value("poster")
        {
            add(Some("poster"), None, url, Fetch::Resource);
        }
        if SVG_LINKS.contains(&name.as_str()) {
            for attribute in ["href", "xlink:href"] {
                if let Some(url) = value(attribute) {
                    add(Some(attribute), None, url, Fetch::Resource);
                }
            }
        }
        for &attribute in CSS_ATTRIBUTES {
            for (form, url) in value(attribute).map(css::urls).unwrap_or_default() {
                add(Some(attribute), Some(form), &url, Fetch::Resource);
            }
        }
        if name == "style" {
            for (form, url) in css::urls(text) {
                add(None, Some(form), &url, Fetch::Resource);
            }
        }
    });
    found
}

/// The URLs of a `srcset` list, as a browser splits it: each candidate is a URL (a run of
/// non-blanks, whose trailing commas end the candidate) and descriptors up to the next comma.
fn srcset(list: &str) -> Vec<&str> {
    let mut urls = Vec::new();
    let mut rest = list;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        if rest.is_empty() {
            return urls;
        }
        let (url, after) = rest.split_at(rest.find(|c: char| c.is_ascii_whitespace()).unwrap_or(rest.len()));
        let trimmed = url.trim_end_matches(',');
        urls.push(trimmed);
        rest = after;
        if trimmed.len() == url.len() {
            let mut depth = 0_usize;
            let end = rest.find(|c| {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                c == ',' && depth == 0
            });
            rest = end.map_or("", |end| &rest[end..]);
        }
    }
}

/// Whether `origin` (`https://cdn.example.com[:port]`) is allowed by one of `sources`, matched
/// as CSP matches them: an exact origin, a `*.` wildcard that matches any subdomain (not the
/// domain itself), or a scheme alone (which a view may not declare: see
/// [`source_problem`](crate::csp::source_problem)).
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
                        Some(suffix) => host.len() > suffix.len() + 1 && host.ends_with(&format!(".{suffix}")),
                        None => host == pattern,
                    }
            }
        }
    })
}
