//! The checks of `#[view]`: a URI that names a view, a document where one is expected (read
//! and checked now, as the server builder would, so a mistake is a compile error on the
//! attribute), and no document where a function renders it.

use proc_macro2::Span;

use crate::ast::view::{ViewAttr, ViewItem};
use crate::errors::Errors;
use mcp_rounds_grammar::html::Fetch;

/// The absolute path of the view's file, when it has one that could be read.
pub fn view(attr: &ViewAttr, item: &ViewItem, errors: &mut Errors) -> Option<String> {
    match &attr.uri {
        None => errors.error(Span::call_site(), "#[view] needs its URI first: #[view(\"ui://notes/board\", ...)]"),
        Some(lit) => {
            if let Some(problem) = mcp_rounds_grammar::view::uri_problem(&lit.value()) {
                errors.error(lit.span(), problem);
            }
        }
    }
    match item {
        ViewItem::Function(_) => {
            for given in [&attr.file, &attr.html].into_iter().flatten() {
                errors.error(given.span(), "this function renders the view; `file` and `html` go on a unit struct");
            }
            if let Some((_, span)) = attr.content_hash {
                errors.error(span, "a rendered view has no fixed content to hash; `content_hash` goes on a document");
            }
            None
        }
        ViewItem::Document(item) => match (&attr.file, &attr.html) {
            (Some(file), None) => {
                let path = resolve(&file.value());
                match std::fs::read_to_string(&path) {
                    Ok(html) => document(attr, &html, file.span(), errors),
                    Err(e) => errors.error(file.span(), format!("cannot read {path}: {e}")),
                }
                Some(path)
            }
            (None, Some(html)) => {
                document(attr, &html.value(), html.span(), errors);
                None
            }
            (Some(_), Some(html)) => {
                errors.error(html.span(), "give the document once: `file = \"...\"` or `html = \"...\"`, not both");
                None
            }
            (None, None) => {
                errors.error(
                    item.ident.span(),
                    "a view on a struct needs its document: file = \"views/board.html\" (relative to Cargo.toml) or html = \"...\"",
                );
                None
            }
        },
    }
}

/// `file` relative to the crate being compiled (the directory of its `Cargo.toml`).
fn resolve(file: &str) -> String {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    std::path::Path::new(&root).join(file).display().to_string()
}

fn document(attr: &ViewAttr, html: &str, span: Span, errors: &mut Errors) {
    let values = |list: &str| attr.csp_list(list).iter().map(syn::LitStr::value).collect::<Vec<_>>();
    let (resources, frames, bases) = (values("resource_domains"), values("frame_domains"), values("base_uri_domains"));
    let declared = |fetch: Fetch| match fetch {
        Fetch::Resource => (resources.as_slice(), "resource_domains"),
        Fetch::Frame => (frames.as_slice(), "frame_domains"),
        Fetch::Base => (bases.as_slice(), "base_uri_domains"),
    };
    if let Some(problem) = mcp_rounds_grammar::view::document_problem(html, declared) {
        errors.error(span, problem);
    }
}
