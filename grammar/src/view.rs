//! What an MCP Apps view must be, checked by the `#[view]` macro on a literal and by the
//! server builder on everything else: its URI, and its HTML against the CSP it declares.
//!
//! The HTML check is a lint: it catches, when the view is built, what would break in a host
//! (a file loaded by a relative URL, an origin the CSP forgets). It is not a security
//! boundary, and passing it proves nothing about what the view can do: the boundary is the
//! host, which enforces the CSP the view declares and renders it in a sandboxed frame.

use alloc::format;
use alloc::string::String;

use crate::html::{self, Fetch};

/// Why `uri` cannot name a view, if it cannot: it is `ui://` and a name, with no query,
/// fragment or template variable (the query is where the server puts its content hash).
///
/// ```
/// use mcp_rounds_grammar::view::uri_problem;
///
/// assert_eq!(uri_problem("ui://notes/board"), None);
/// assert!(uri_problem("https://notes.example/board").is_some());
/// ```
pub fn uri_problem(uri: &str) -> Option<&'static str> {
    let Some(rest) = uri.strip_prefix("ui://") else { return Some("a view's URI starts with ui://") };
    if rest.is_empty() || rest.starts_with('/') {
        return Some("a view's URI names it after ui://, as in ui://notes/board");
    }
    if rest.contains(['?', '#', '{']) {
        return Some("a view's URI has no query, fragment or template variable");
    }
    if rest.bytes().any(|b| b.is_ascii_control() || b == b' ') {
        return Some("a view's URI has no spaces or control characters");
    }
    None
}

/// Why `html` cannot be served as a view, if it cannot: it is not one document, or it loads
/// something a host will not let it (a file by a relative URL, or an origin its CSP does not
/// declare). `declared(fetch)` gives the origins the view declares for that kind of fetch and
/// the name its caller knows that list by, for the message.
///
/// A lint for mistakes, not a security check (see [the module](self)): the host's enforcement
/// of the declared CSP is what holds a view to it.
///
/// ```
/// use mcp_rounds_grammar::view::document_problem;
///
/// let page = r#"<!doctype html><script src="https://cdn.example.com/x.js"></script>"#;
/// let none: &[&str] = &[];
/// assert!(document_problem(page, |_| (none, "resourceDomains")).unwrap().contains("resourceDomains"));
/// assert_eq!(document_problem(page, |_| (&["https://cdn.example.com"][..], "resourceDomains")), None);
/// ```
pub fn document_problem<'a, S: AsRef<str> + 'a>(
    html: &str,
    declared: impl Fn(Fetch) -> (&'a [S], &'a str),
) -> Option<String> {
    if let Some(problem) = html::document_problem(html) {
        return Some(format!("its HTML is not one self-contained document: {problem}"));
    }
    for reference in html::references(html) {
        if reference.is_relative() {
            return Some(format!(
                "{reference} loads a file relative to the view, which a host cannot serve: inline it, or use an absolute URL its csp declares"
            ));
        }
        let Some(origin) = reference.origin() else { continue };
        let (sources, list) = declared(reference.fetch);
        if !html::origin_allowed(&origin, sources.iter().map(AsRef::as_ref)) {
            return Some(format!("{reference} loads from {origin}, which its csp does not declare: add it to {list}"));
        }
    }
    None
}
