//! What every handler macro generates around its definition: the function as written, the
//! marker struct `handlers![...]` finds, the `IntoHandler` impl, and, for a function with
//! errors, stand-ins that keep the rest of the program compiling so each mistake is reported
//! once.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;

use crate::ast::function::Function;
use crate::errors::Errors;

/// The function as the user wrote it (minus the attributes only the macro reads), and beside
/// it a hidden braced struct of the same name. A braced struct lives in the type namespace
/// only, so the function stays a function (callable, shadowable by a `let`) while
/// `handlers![name]` finds the struct. `checked`: the function passed the macro's checks.
pub fn function_and_marker(function: &Function, checked: bool) -> TokenStream {
    let Function { cfg, docs, other, vis, ident, block, output, .. } = function;
    let asyncness = function.is_async.then(|| quote!(async));
    let pats = function.params.iter().map(|p| &p.pat);
    let tys = function.params.iter().map(|p| &p.ty);
    // Spanned at the function's name: the marker then counts as the user's code, and a function
    // never listed in `handlers![...]` is a compile error there (where the lint can see it: not
    // for a library's `pub` functions, which another crate may serve). A function the user
    // marked `allow(dead_code)` or `expect(dead_code)` is knowingly unserved.
    // The function itself is then left alone by the lint, so the mistake is reported once.
    let (lint, quiet) = if allows_dead_code(other) || !checked {
        (quote!(#[allow(dead_code)]), None)
    } else {
        let lint = quote_spanned! {ident.span()=>
            #[deny(dead_code, reason = "a handler is served only when listed in handlers![...]; list it there, or put #[allow(dead_code)] on the function")]
        };
        (lint, Some(quote!(#[allow(dead_code)])))
    };
    let marker = quote_spanned! {ident.span()=>
        #(#cfg)*
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #lint
        #vis struct #ident {}
    };
    quote! {
        #(#cfg)*
        #(#docs)*
        #(#other)*
        #quiet
        #vis #asyncness fn #ident(#(#pats: #tys),*) -> #output #block

        #marker
    }
}

/// Whether `#[allow(dead_code)]` or `#[expect(dead_code)]` (possibly among other lints) is on
/// the function.
fn allows_dead_code(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        (attr.path().is_ident("allow") || attr.path().is_ident("expect"))
            && attr.meta.require_list().is_ok_and(|list| list.tokens.to_string().contains("dead_code"))
    })
}

/// `impl IntoHandler`, which `handlers![...]` calls: `kind` is `tool`, `prompt` or `resource`,
/// `name` what clients know it by (its name, or a resource's URI).
pub fn into_handler(function: &Function, private: &TokenStream, kind: TokenStream, name: &str) -> TokenStream {
    let ident = &function.ident;
    let cfg = &function.cfg;
    let known_as = format!("{kind}:{name}");
    quote! {
        #(#cfg)*
        impl #private::IntoHandler for #ident {
            const NAME: &'static str = #known_as;
            const MARKER: Self = #ident {};

            fn into_handler(self) -> #private::Handler {
                #private::Handler::#kind(self)
            }
        }
    }
}

/// The collected errors, and the function with a stand-in marker and `IntoHandler`, so that
/// its own body is still checked and registering it does not fail a second time.
pub fn fail(function: &Function, private: &TokenStream, errors: Errors) -> TokenStream {
    let compile_errors = errors.into_compile_errors();
    if let Some(receiver) = &function.receiver {
        // Inside an impl block only the method itself may be emitted.
        let Function { docs, other, vis, ident, block, output, .. } = function;
        let asyncness = function.is_async.then(|| quote!(async));
        let pats = function.params.iter().map(|p| &p.pat);
        let tys = function.params.iter().map(|p| &p.ty);
        return quote! {
            #compile_errors
            #(#docs)* #(#other)* #vis #asyncness fn #ident(#receiver, #(#pats: #tys),*) -> #output #block
        };
    }
    // Not checked for registration: the mistake already reported is the one to fix.
    let item = function_and_marker(function, false);
    let ident = &function.ident;
    let cfg = &function.cfg;
    quote! {
        #compile_errors
        #item
        #(#cfg)*
        #[allow(unreachable_code)]
        impl #private::IntoHandler for #ident {
            const MARKER: Self = #ident {};

            fn into_handler(self) -> #private::Handler {
                ::core::panic!("this function did not compile")
            }
        }
    }
}

/// The `completes` and `complete` methods of a prompt or resource definition, dispatching on
/// the argument name to the `completers` arms; nothing when there are none.
pub fn complete_fns(private: &TokenStream, completers: &[TokenStream]) -> TokenStream {
    if completers.is_empty() {
        return quote!();
    }
    quote! {
        fn completes() -> bool {
            true
        }

        fn complete(&self, __request: #private::CompletionRequest)
            -> ::core::option::Option<#private::BoxFuture<'_,
                ::core::result::Result<#private::Completion, #private::Error>>>
        {
            match __request.argument.as_str() {
                #(#completers)*
                _ => ::core::option::Option::None,
            }
        }
    }
}

/// `fn scopes()` of a definition trait, when `scopes(...)` was given.
pub fn scopes_fn(scopes: Option<&[LitStr]>) -> TokenStream {
    match scopes {
        Some(scopes) => quote! {
            fn scopes() -> &'static [&'static str] {
                &[#(#scopes),*]
            }
        },
        None => TokenStream::new(),
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

/// `Some(true)` or `None` as tokens.
pub fn option_bool(value: Option<bool>) -> TokenStream {
    match value {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    }
}
