//! What a view and a tool's link to one must be before the server is built, and the content
//! hash a fixed document is served under.
//!
//! The markup check is a lint that catches mistakes at build time, not a security boundary:
//! the host's enforcement of the declared CSP, and its sandbox, is.

use mcp_rounds_grammar::csp::source_problem;
use mcp_rounds_grammar::html::Fetch;
use mcp_rounds_grammar::view;
use sha2::{Digest, Sha256};

use crate::error::BuildError;
use crate::model::{LEGACY_RESOURCE_URI_KEY, Tool, ToolUi, UiResourceMeta};
use crate::resource::ResourceRoute;

/// The error for view `uri`.
pub(crate) fn invalid(uri: &str, problem: impl Into<String>) -> BuildError {
    BuildError::InvalidView { view: uri.to_owned(), problem: problem.into() }
}

/// The view's URI, normalized (see [`uri_problem`](mcp_rounds_grammar::view::uri_problem)).
pub(crate) fn uri(uri: &str, name: &str) -> Result<String, BuildError> {
    let shown = if uri.is_empty() { name } else { uri };
    if let Some(problem) = view::uri_problem(uri) {
        return Err(invalid(shown, problem));
    }
    crate::uri::normalize(uri).ok_or_else(|| invalid(shown, "not a URI"))
}

/// Every CSP source is an origin a view may declare (see
/// [`source_problem`](mcp_rounds_grammar::csp::source_problem)): no scheme alone, no wildcard
/// over a public suffix.
pub(crate) fn csp(meta: &UiResourceMeta, uri: &str) -> Result<(), BuildError> {
    let mut sources = meta.csp.iter().flat_map(|declared| declared.sources());
    match sources.find_map(|(field, source)| Some((field, source_problem(source)?))) {
        Some((field, problem)) => Err(invalid(uri, format!("csp {field}: {problem}"))),
        None => Ok(()),
    }
}

/// Why `html` cannot be served as a view declaring `meta`, if it cannot (see
/// [`document_problem`](mcp_rounds_grammar::view::document_problem)). A lint: what holds the
/// view to its CSP is the host.
pub(crate) fn document_problem(html: &str, meta: &UiResourceMeta) -> Option<String> {
    let csp = meta.csp.as_ref();
    view::document_problem(html, |fetch| {
        let (declared, list) = match fetch {
            Fetch::Resource => (csp.and_then(|c| c.resource_domains.as_deref()), "resourceDomains"),
            Fetch::Frame => (csp.and_then(|c| c.frame_domains.as_deref()), "frameDomains"),
            Fetch::Base => (csp.and_then(|c| c.base_uri_domains.as_deref()), "baseUriDomains"),
        };
        (declared.unwrap_or_default(), list)
    })
}

/// A fixed document passes [`document_problem`].
pub(crate) fn document(html: &str, meta: &UiResourceMeta, uri: &str) -> Result<(), BuildError> {
    document_problem(html, meta).map_or(Ok(()), |problem| Err(invalid(uri, problem)))
}

/// `uri` with the hash of `html`: the same in every process that serves the same build.
pub(crate) fn versioned(uri: &str, html: &str) -> String {
    let digest = Sha256::digest(html.as_bytes());
    let hash: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("{uri}?v={hash}")
}

/// Points `tool`'s link at the URI its view is served under (with the current content hash),
/// writing the legacy key beside it; `view` finds a view by URI.
pub(crate) fn link_tool<'a>(
    tool: &mut Tool,
    view: impl Fn(&str) -> Option<&'a ResourceRoute>,
) -> Result<(), BuildError> {
    let Some(meta) = tool.meta.as_mut() else { return Ok(()) };
    let Some(ui) = meta.get("ui") else { return Ok(()) };
    let problem = |problem: String| BuildError::InvalidTool { tool: tool.name.clone(), problem };
    let mut ui: ToolUi = serde_json::from_value(ui.clone())
        .map_err(|e| problem(format!("_meta.ui is not what MCP Apps defines: {e}")))?;
    if ui.visibility.as_ref().is_some_and(Vec::is_empty) {
        return Err(problem("_meta.ui.visibility is empty: name \"model\", \"app\" or both".into()));
    }
    if let Some(linked) = &ui.resource_uri {
        let found = crate::uri::normalize(linked).and_then(|uri| view(&uri));
        let listing = found
            .and_then(|route| route.view.as_ref())
            .ok_or_else(|| BuildError::UnknownView { tool: tool.name.clone(), view: linked.clone() })?;
        ui.resource_uri = Some(listing.uri.clone());
        meta.insert(LEGACY_RESOURCE_URI_KEY.to_owned(), listing.uri.clone().into());
    }
    meta.insert("ui".to_owned(), serde_json::to_value(&ui).expect("plain data serializes"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::UiCsp;

    #[test]
    fn a_document_loads_only_what_its_csp_declares() {
        let mut meta = UiResourceMeta::default();
        let page = |body: &str| format!("<!doctype html><html><body>{body}</body></html>");
        assert_eq!(document_problem(&page("<p>hi</p><img src='data:image/png;base64,AA'>"), &meta), None);
        let relative = document_problem(&page("<script src=\"app.js\"></script>"), &meta).unwrap();
        assert!(relative.contains("<script src=\"app.js\">") && relative.contains("relative"), "{relative}");
        let cdn = page("<script src=\"https://cdn.example.com/lib.js\"></script>");
        let undeclared = document_problem(&cdn, &meta).unwrap();
        assert!(
            undeclared.contains("https://cdn.example.com") && undeclared.contains("resourceDomains"),
            "{undeclared}"
        );
        meta.csp = Some(UiCsp { resource_domains: Some(vec!["https://*.example.com".into()]), ..Default::default() });
        assert_eq!(document_problem(&cdn, &meta), None);
        let frame = document_problem(&page("<iframe src=\"https://maps.example.com\"></iframe>"), &meta).unwrap();
        assert!(frame.contains("frameDomains"), "{frame}");
        assert!(document_problem("<p>a fragment</p>", &meta).unwrap().contains("<!doctype html>"));
    }

    #[test]
    fn a_csp_source_is_refused_with_its_reason() {
        let check = |field: fn(&mut UiCsp) -> &mut Option<Vec<String>>, sources: &[&str]| {
            let mut declared = UiCsp::default();
            *field(&mut declared) = Some(sources.iter().map(|s| s.to_string()).collect());
            let meta = UiResourceMeta { csp: Some(declared), ..Default::default() };
            csp(&meta, "ui://v/a").map_err(|e| e.to_string())
        };
        let scheme = check(|c| &mut c.connect_domains, &["https://api.example.com", "wss:"]).unwrap_err();
        assert!(scheme.contains("csp connectDomains: \"wss:\" is a scheme alone"), "{scheme}");
        let suffix = check(|c| &mut c.resource_domains, &["https://*.github.io"]).unwrap_err();
        assert!(suffix.contains("resourceDomains") && suffix.contains("directly above github.io"), "{suffix}");
        assert_eq!(check(|c| &mut c.frame_domains, &["https://*.maps.example.co.uk"]), Ok(()));
    }

    #[test]
    fn the_hash_follows_the_content() {
        let a = versioned("ui://notes/board", "<!doctype html>a");
        assert!(a.starts_with("ui://notes/board?v=") && a.len() == "ui://notes/board?v=".len() + 12, "{a}");
        assert_eq!(a, versioned("ui://notes/board", "<!doctype html>a"));
        assert_ne!(a, versioned("ui://notes/board", "<!doctype html>b"));
    }

    #[test]
    fn a_view_uri_is_ui_and_names_something() {
        assert_eq!(uri("ui://notes/board", "b").unwrap(), "ui://notes/board");
        for bad in ["https://x/board", "ui://", "ui:///x", "ui://notes/board?v=1", "ui://notes/{id}", ""] {
            assert!(uri(bad, "b").is_err(), "{bad}");
        }
    }
}
