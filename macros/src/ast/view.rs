//! `#[view("ui://...", ...)]`, read into a model: the attribute, and the item it is on (a unit
//! struct whose HTML is a file or a literal, or a function that renders it).

use proc_macro2::{Span, TokenStream};
use syn::LitStr;

use super::args::Args;
use super::attrs::{Cache, ResourceAttr};
use super::function::Function;
use crate::errors::Errors;
use crate::krate::Krate;

/// The permissions a view may ask for, as written in the attribute (and as `UiPermissions`'s fields).
pub const PERMISSIONS: &[&str] = &["camera", "microphone", "geolocation", "clipboard_write"];

/// The CSP lists, as written in the attribute and as `UiCsp`'s fields.
pub const CSP_LISTS: &[&str] = &["connect_domains", "resource_domains", "frame_domains", "base_uri_domains"];

pub struct ViewAttr {
    pub krate: Krate,
    pub uri: Option<LitStr>,
    /// `file = "views/board.html"`, relative to the crate's manifest.
    pub file: Option<LitStr>,
    /// `html = "<!doctype html>..."`.
    pub html: Option<LitStr>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Each CSP list given, by its key in [`CSP_LISTS`].
    pub csp: Vec<(&'static str, Vec<LitStr>)>,
    pub permissions: Option<Vec<LitStr>>,
    pub domain: Option<LitStr>,
    pub prefers_border: Option<bool>,
    pub content_hash: Option<(bool, Span)>,
}

const VIEW_KEYS: &[&str] = &[
    "file",
    "html",
    "name",
    "title",
    "description",
    "connect_domains",
    "resource_domains",
    "frame_domains",
    "base_uri_domains",
    "permissions",
    "domain",
    "prefers_border",
    "content_hash",
    "crate",
];

impl ViewAttr {
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> ViewAttr {
        let mut args = Args::parse(tokens, errors);
        let uri = args.literal();
        let mut csp = Vec::new();
        for &list in CSP_LISTS {
            if let Some(entries) = args.list(list, mcp_rounds_grammar::csp::source_problem, errors) {
                csp.push((list, entries));
            }
        }
        let permission = |name: &str| {
            (!PERMISSIONS.contains(&name)).then(|| {
                format!("{name:?} is not a permission a view may ask for; expected one of: {}", PERMISSIONS.join(", "))
            })
        };
        let attr = ViewAttr {
            krate: args.krate(errors),
            uri,
            file: args.string("file", errors),
            html: args.string("html", errors),
            name: args.string("name", errors).map(|s| s.value()),
            title: args.string("title", errors).map(|s| s.value()),
            description: args.string("description", errors).map(|s| s.value()),
            csp,
            permissions: args.list("permissions", permission, errors),
            domain: args.string("domain", errors),
            prefers_border: args.flag("prefers_border", errors).map(|(b, _)| b),
            content_hash: args.flag("content_hash", errors),
        };
        args.finish("view", VIEW_KEYS, errors);
        attr
    }

    /// The resource a view function expands to: its fixed URI, read like any resource's (the
    /// view's title, description and MIME type are the view builder's to set).
    pub fn resource(&self) -> ResourceAttr {
        ResourceAttr {
            krate: self.krate.clone(),
            template: self.uri.clone(),
            name: self.name.clone(),
            title: None,
            description: None,
            mime_type: None,
            list: None,
            ttl_ms: 0,
            cache: Cache::Private,
            scopes: None,
        }
    }

    /// The entries of CSP list `list`, if given.
    pub fn csp_list(&self, list: &str) -> &[LitStr] {
        self.csp.iter().find(|(key, _)| *key == list).map_or(&[], |(_, entries)| entries.as_slice())
    }
}

/// What `#[view]` is on.
#[allow(clippy::large_enum_variant, reason = "one per macro call")]
pub enum ViewItem {
    /// `struct Board;`: the document is `file` or `html`.
    Document(syn::ItemStruct),
    /// A function that renders the document on each read.
    Function(Function),
}

impl ViewItem {
    /// The item, or the error for anything else.
    pub fn parse(item: TokenStream, errors: &mut Errors) -> Result<ViewItem, TokenStream> {
        match syn::parse2::<syn::Item>(item.clone()) {
            Ok(syn::Item::Struct(item))
                if matches!(item.fields, syn::Fields::Unit) && item.generics.params.is_empty() =>
            {
                Ok(ViewItem::Document(item))
            }
            Ok(syn::Item::Fn(item)) => Ok(ViewItem::Function(Function::parse(item, "view", errors))),
            _ => {
                let message = "#[view] goes on a unit struct (`struct Board;`, with file = \"...\" or html = \"...\") \
                               or on a function that renders the HTML";
                Err(quote::quote!(::core::compile_error!(#message); #item))
            }
        }
    }
}
