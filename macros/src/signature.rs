//! The shape of an annotated function, read once and checked once: what the three macros
//! share.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt as _;
use syn::{
    Attribute, Block, FnArg, GenericArgument, Ident, ItemFn, LitStr, Pat, PathArguments, ReturnType, Type, Visibility,
};

use crate::attr::Args;
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
    /// The body.
    pub block: Box<Block>,
    /// `self`, when the attribute is (wrongly) on a method, where no struct can be declared.
    pub receiver: Option<syn::Receiver>,
}

/// What kind of function the macro is on, for messages.
#[derive(Clone, Copy)]
pub struct Kind {
    /// `tool`, `resource` or `prompt`.
    pub attribute: &'static str,
}

impl Function {
    /// Reads a function, reporting everything a handler cannot be.
    pub fn parse(item: ItemFn, kind: Kind, errors: &mut Errors) -> Function {
        let what = kind.attribute;
        let sig = &item.sig;
        if let Some(c) = &sig.constness {
            errors.error(c.span, format!("a #[{what}] function cannot be `const`"));
        }
        if let Some(u) = &sig.unsafety {
            errors.error(u.span, format!("a #[{what}] function cannot be `unsafe`"));
        }
        if let Some(abi) = &sig.abi {
            errors.error_spanned(abi, format!("a #[{what}] function cannot have an ABI"));
        }
        if let Some(v) = &sig.variadic {
            errors.error_spanned(v, format!("a #[{what}] function cannot be variadic"));
        }
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            errors.error_spanned(
                &sig.generics,
                format!(
                    "a #[{what}] function cannot be generic: clients call it with JSON, so every type must be known; \
                     use concrete types"
                ),
            );
        }

        let mut params = Vec::new();
        let mut receiver = None;
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(found) => {
                    receiver = Some(found.clone());
                    errors.error_spanned(
                        found,
                        format!(
                            "#[{what}] goes on free functions, not methods: move it out of the impl block and take \
                             what you need as parameters (shared state arrives as State<T>)"
                        ),
                    );
                }
                FnArg::Typed(typed) => {
                    check_owned(&typed.ty, errors, what);
                    let mut description = doc_text(&typed.attrs);
                    let mut rename = None;
                    let mut complete = None;
                    let mut header = None;
                    for attr in &typed.attrs {
                        if is_doc(attr) {
                            continue;
                        }
                        if attr.path().is_ident("arg") {
                            let tokens = match attr.meta.require_list() {
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
                            if let (Some(lit), false) = (&header, what == "tool") {
                                errors.error(
                                    lit.span(),
                                    format!(
                                        "#[{what}] parameters are not sent in headers; `header` (x-mcp-header) goes \
                                         on #[tool] arguments"
                                    ),
                                );
                            }
                            args.finish("arg", &["rename", "description", "complete", "header"], errors);
                        } else {
                            errors.error_spanned(
                                attr,
                                "only `///` comments and #[arg(rename = \"...\", description = \"...\", complete = ..., \
                                 header = \"...\")] go on parameters",
                            );
                        }
                    }
                    let rust_name = match &*typed.pat {
                        Pat::Ident(p) => Some(p.ident.unraw().to_string()),
                        _ => None,
                    };
                    params.push(Param {
                        pat: typed.pat.clone(),
                        ty: typed.ty.clone(),
                        rust_name,
                        rename,
                        description,
                        complete,
                        header,
                    });
                }
            }
        }

        let output = match &sig.output {
            ReturnType::Default => syn::parse_quote!(()),
            ReturnType::Type(_, ty) => {
                check_return(ty, errors, what);
                (**ty).clone()
            }
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
            block: item.block,
            receiver,
        }
    }

    /// The identifiers the generated code binds the parameters' values to.
    pub fn arg_idents(&self) -> Vec<Ident> {
        (0..self.params.len()).map(|i| format_ident!("__arg{}", i)).collect()
    }
    /// The function as the user wrote it (minus the attributes only the macro reads), and
    /// beside it a hidden braced struct of the same name. A braced struct lives in the type
    /// namespace only, so the function stays a function (callable, shadowable by a `let`)
    /// while `handlers![name]` finds the struct.
    pub fn function_and_marker(&self) -> TokenStream {
        let Function { cfg, docs, other, vis, ident, block, output, .. } = self;
        let asyncness = self.is_async.then(|| quote!(async));
        let pats = self.params.iter().map(|p| &p.pat);
        let tys = self.params.iter().map(|p| &p.ty);
        // Spanned at the function's name: the marker then counts as the user's code, and the
        // dead-code lint says so when the function is never registered.
        let marker = quote_spanned! {ident.span()=>
            #(#cfg)*
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #vis struct #ident {}
        };
        quote! {
            #(#cfg)*
            #(#docs)*
            #(#other)*
            #vis #asyncness fn #ident(#(#pats: #tys),*) -> #output #block

            #marker
        }
    }

    /// What is emitted when the function has errors: the function (so its own code is still
    /// checked) and the marker with a stand-in implementation, so that registering it does not
    /// fail a second time.
    pub fn fallback(&self, definition: TokenStream) -> TokenStream {
        if let Some(receiver) = &self.receiver {
            // Inside an impl block only the method itself may be emitted.
            let Function { docs, other, vis, ident, block, output, .. } = self;
            let asyncness = self.is_async.then(|| quote!(async));
            let pats = self.params.iter().map(|p| &p.pat);
            let tys = self.params.iter().map(|p| &p.ty);
            return quote! { #(#docs)* #(#other)* #vis #asyncness fn #ident(#receiver, #(#pats: #tys),*) -> #output #block };
        }
        let marker = self.function_and_marker();
        let ident = &self.ident;
        let cfg = &self.cfg;
        quote! {
            #marker
            #(#cfg)*
            #[allow(unreachable_code)]
            impl ::mcp_rounds::__private::IntoHandler for #ident {
                fn into_handler(self) -> ::mcp_rounds::__private::Handler {
                    #definition
                }
            }
        }
    }

    /// Emits the collected errors and the stand-in items, for a function that cannot expand.
    pub fn fail(&self, errors: Errors) -> TokenStream {
        let compile_errors = errors.into_compile_errors();
        let fallback = self.fallback(quote!(::core::panic!("this function did not compile")));
        quote! {
            #compile_errors
            #fallback
        }
    }

    /// `impl IntoHandler`, which `handlers![...]` calls.
    pub fn handler_impl(&self, kind: TokenStream) -> TokenStream {
        let ident = &self.ident;
        let cfg = &self.cfg;
        quote! {
            #(#cfg)*
            impl ::mcp_rounds::__private::IntoHandler for #ident {
                fn into_handler(self) -> ::mcp_rounds::__private::Handler {
                    ::mcp_rounds::__private::Handler::#kind(self)
                }
            }
        }
    }
}

fn check_owned(ty: &Type, errors: &mut Errors, what: &str) {
    match ty {
        Type::Reference(r) => errors.error_spanned(
            r,
            format!("#[{what}] parameters must be owned values: use `String` for `&str`, `Vec<T>` for `&[T]`"),
        ),
        Type::ImplTrait(t) => {
            errors.error_spanned(t, format!("#[{what}] parameters need a concrete type, not `impl Trait`"))
        }
        Type::Infer(t) => errors.error_spanned(t, "write the parameter's type"),
        Type::Paren(p) => check_owned(&p.elem, errors, what),
        Type::Group(g) => check_owned(&g.elem, errors, what),
        Type::Array(a) => check_owned(&a.elem, errors, what),
        Type::Slice(s) => check_owned(&s.elem, errors, what),
        Type::Tuple(t) => t.elems.iter().for_each(|e| check_owned(e, errors, what)),
        Type::Path(p) => {
            for segment in &p.path.segments {
                if let PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        match arg {
                            GenericArgument::Type(t) => check_owned(t, errors, what),
                            GenericArgument::Lifetime(l) => errors.error_spanned(
                                l,
                                format!("#[{what}] parameters must be owned values without lifetimes"),
                            ),
                            _ => {}
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

fn check_return(ty: &Type, errors: &mut Errors, what: &str) {
    match ty {
        Type::ImplTrait(t) => errors.error_spanned(
            t,
            format!(
                "a #[{what}] function must name its return type; use `async fn` instead of returning `impl Future`"
            ),
        ),
        Type::Reference(r) if !matches!(&r.lifetime, Some(l) if l.ident == "static") => {
            errors.error_spanned(r, format!("a #[{what}] function must return an owned value (or `&'static str`)"))
        }
        _ => {}
    }
}

/// `Some("text")` or `None` as tokens.
pub fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// `Some(String::from("text"))` or `None` as tokens.
pub fn option_string(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(::std::string::String::from(#text))),
        None => quote!(::core::option::Option::None),
    }
}

/// The `completes` and `complete` methods of a prompt or resource definition, dispatching on
/// the argument name to the `completers` arms; nothing when there are none.
pub fn complete_fns(completers: &[TokenStream]) -> TokenStream {
    if completers.is_empty() {
        return quote!();
    }
    quote! {
        fn completes() -> bool {
            true
        }

        fn complete(&self, __request: ::mcp_rounds::__private::CompletionRequest)
            -> ::core::option::Option<::mcp_rounds::__private::BoxFuture<'_,
                ::core::result::Result<::mcp_rounds::__private::Completion, ::mcp_rounds::__private::Error>>>
        {
            match __request.argument.as_str() {
                #(#completers)*
                _ => ::core::option::Option::None,
            }
        }
    }
}
