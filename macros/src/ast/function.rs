//! An annotated function, read into what the three handler macros share: its parameters (with
//! their `#[arg(...)]`), its return type, its docs, and the parts of its signature a handler
//! cannot have, kept for the checks to point at.

use proc_macro2::TokenStream;
use quote::format_ident;
use syn::ext::IdentExt as _;
use syn::{Attribute, Block, FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Type, Visibility};

use super::args::Args;
use crate::docs::{doc_text, is_doc};
use crate::errors::Errors;

/// One parameter.
pub struct Param {
    /// The pattern as written (`name`, `State(db)`).
    pub pat: Box<Pat>,
    /// The type.
    pub ty: Box<Type>,
    /// The identifier when the pattern is one, without `r#`.
    pub rust_name: Option<String>,
    /// `#[arg(rename = "...")]`.
    pub rename: Option<LitStr>,
    /// From `///` or `#[arg(description = "...")]`.
    pub description: Option<String>,
    /// `#[arg(complete = path)]`: the key (for spans) and the completer.
    pub complete: Option<(Ident, syn::Path)>,
    /// `#[arg(header = "Name")]`: the `x-mcp-header` of a tool argument.
    pub header: Option<LitStr>,
}

impl Param {
    /// The name clients use: the rename, or the identifier through `rename_all`.
    pub fn wire_name(&self, rename_all: Option<&str>) -> String {
        if let Some(rename) = &self.rename {
            return rename.value();
        }
        match (&self.rust_name, rename_all) {
            (Some(name), Some(case)) => crate::case::rename(name, case).unwrap_or_else(|| name.clone()),
            (Some(name), None) => name.clone(),
            (None, _) => String::new(),
        }
    }
}

/// An annotated function.
pub struct Function {
    /// `#[cfg]` and `#[cfg_attr]`: they apply to everything generated.
    pub cfg: Vec<Attribute>,
    /// `///` comments, copied onto the generated item.
    pub docs: Vec<Attribute>,
    /// Every other attribute, kept on the function itself.
    pub other: Vec<Attribute>,
    /// The doc text.
    pub description: Option<String>,
    /// Visibility.
    pub vis: Visibility,
    /// Name.
    pub ident: Ident,
    /// `async fn`.
    pub is_async: bool,
    /// Parameters.
    pub params: Vec<Param>,
    /// The return type (`()` when none is written).
    pub output: Type,
    /// The return type as written, when one is.
    pub written_output: Option<Type>,
    /// The body.
    pub block: Box<Block>,
    /// `self`, when the attribute is (wrongly) on a method, where no struct can be declared.
    pub receiver: Option<syn::Receiver>,
    /// The signature, for the checks of what a handler cannot be (`const`, generics, ...).
    pub signature: syn::Signature,
}

impl Function {
    /// Reads a function; what cannot be read (an `#[arg(...)]` that does not parse) is
    /// reported, the rest is left to the checks.
    pub fn parse(item: ItemFn, attribute: &str, errors: &mut Errors) -> Function {
        let mut params = Vec::new();
        let mut receiver = None;
        for input in &item.sig.inputs {
            match input {
                FnArg::Receiver(found) => receiver = Some(found.clone()),
                FnArg::Typed(typed) => params.push(parse_param(typed, attribute, errors)),
            }
        }
        let (output, written_output) = match &item.sig.output {
            ReturnType::Default => (syn::parse_quote!(()), None),
            ReturnType::Type(_, ty) => ((**ty).clone(), Some((**ty).clone())),
        };
        let mut cfg = Vec::new();
        let mut docs = Vec::new();
        let mut other = Vec::new();
        for attr in item.attrs {
            if is_doc(&attr) {
                docs.push(attr);
            } else if attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr") {
                cfg.push(attr);
            } else {
                other.push(attr);
            }
        }
        Function {
            description: doc_text(&docs),
            cfg,
            docs,
            other,
            vis: item.vis,
            ident: item.sig.ident.clone(),
            is_async: item.sig.asyncness.is_some(),
            params,
            output,
            written_output,
            block: item.block,
            receiver,
            signature: item.sig,
        }
    }

    /// The identifiers the generated code binds the parameters' values to.
    pub fn arg_idents(&self) -> Vec<Ident> {
        (0..self.params.len()).map(|i| format_ident!("__arg{}", i)).collect()
    }
}

fn parse_param(typed: &syn::PatType, attribute: &str, errors: &mut Errors) -> Param {
    let mut description = doc_text(&typed.attrs);
    let mut rename = None;
    let mut complete = None;
    let mut header = None;
    for attr in &typed.attrs {
        if is_doc(attr) {
            continue;
        }
        if !attr.path().is_ident("arg") {
            errors.error_spanned(
                attr,
                "only `///` comments and #[arg(rename = \"...\", description = \"...\", complete = ..., \
                 header = \"...\")] go on parameters",
            );
            continue;
        }
        let tokens: TokenStream = match attr.meta.require_list() {
            Ok(list) => list.tokens.clone(),
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let mut args = Args::parse(tokens, errors);
        rename = args.string("rename", errors);
        if let Some(text) = args.string("description", errors) {
            description = Some(text.value());
        }
        complete = args.path("complete", errors);
        header = args.string("header", errors);
        if let (Some(lit), false) = (&header, attribute == "tool") {
            errors.error(
                lit.span(),
                format!(
                    "#[{attribute}] parameters are not sent in headers; `header` (x-mcp-header) goes on #[tool] \
                     arguments"
                ),
            );
        }
        args.finish("arg", &["rename", "description", "complete", "header"], errors);
    }
    let rust_name = match &*typed.pat {
        Pat::Ident(p) => Some(p.ident.unraw().to_string()),
        _ => None,
    };
    Param { pat: typed.pat.clone(), ty: typed.ty.clone(), rust_name, rename, description, complete, header }
}
