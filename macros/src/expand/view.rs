//! `#[view]`: the item's `ViewDefinition`, built with the runtime's public `View` builder. A
//! document is embedded with `include_str!` (so editing it rebuilds the crate); a function
//! becomes a resource whose reads the view stamps.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::handler::into_handler;
use crate::ast::view::{CSP_LISTS, ViewAttr, ViewItem};

/// The view, for an attribute and item that passed their checks; `path` is the document's file.
pub fn expand(attr: &ViewAttr, item: &ViewItem, path: Option<&str>) -> TokenStream {
    let p = attr.krate.private();
    let uri = attr.uri.as_ref().expect("checked: a view has its URI");
    let calls = builder_calls(attr, &p);
    match item {
        ViewItem::Document(item) => {
            let ident = &item.ident;
            let name = attr.name.clone().unwrap_or_else(|| ident.to_string());
            let document = match (path, &attr.html) {
                (Some(path), _) => quote!(::core::include_str!(#path)),
                (None, Some(html)) => quote!(#html),
                (None, None) => unreachable!("checked: a document view has its file or HTML"),
            };
            let known_as = format!("view:{}", uri.value());
            let lint = quote_spanned! {ident.span()=>
                #[deny(dead_code, reason = "a view is served only when listed in handlers![...]; list it there, or put #[allow(dead_code)] on it")]
            };
            quote! {
                #lint
                #item

                impl #p::ViewDefinition for #ident {
                    fn view(self) -> #p::View {
                        #p::View::document(#uri, #name, #document) #calls
                    }
                }

                impl #p::IntoHandler for #ident {
                    const NAME: &'static str = #known_as;
                    const MARKER: Self = #ident;

                    fn into_handler(self) -> #p::Handler {
                        #p::Handler::view(self)
                    }
                }
            }
        }
        ViewItem::Function(function) => {
            let ident = &function.ident;
            let cfg = &function.cfg;
            let definition = super::resource::definition(&attr.resource(), function, &[]);
            let into_handler = into_handler(function, &p, quote!(view), &uri.value());
            quote! {
                #definition
                #into_handler

                #(#cfg)*
                impl #p::ViewDefinition for #ident {
                    fn view(self) -> #p::View {
                        #p::View::from_resource(self) #calls
                    }
                }
            }
        }
    }
}

/// `.title(..)`, `.csp(..)` and the rest, for what the attribute declares.
fn builder_calls(attr: &ViewAttr, p: &TokenStream) -> TokenStream {
    let mut calls = Vec::new();
    if let Some(title) = &attr.title {
        calls.push(quote!(.title(#title)));
    }
    if let Some(description) = &attr.description {
        calls.push(quote!(.description(#description)));
    }
    if !attr.csp.is_empty() {
        let lists = CSP_LISTS.iter().filter(|list| !attr.csp_list(list).is_empty()).map(|list| {
            let field = syn::Ident::new(list, proc_macro2::Span::call_site());
            let entries = attr.csp_list(list);
            quote!(__csp.#field = ::core::option::Option::Some(::std::vec![#(::std::string::String::from(#entries)),*]);)
        });
        calls.push(quote!(.csp({ let mut __csp = #p::UiCsp::default(); #(#lists)* __csp })));
    }
    if let Some(permissions) = &attr.permissions {
        let asked = permissions.iter().map(|lit| {
            let field = syn::Ident::new(&lit.value(), lit.span());
            quote!(__permissions.#field = ::core::option::Option::Some(#p::JsonObject::new());)
        });
        calls.push(
            quote!(.permissions({ let mut __permissions = #p::UiPermissions::default(); #(#asked)* __permissions })),
        );
    }
    if let Some(domain) = &attr.domain {
        calls.push(quote!(.domain(#domain)));
    }
    if let Some(prefers) = attr.prefers_border {
        calls.push(quote!(.prefers_border(#prefers)));
    }
    if let Some((hashed, _)) = attr.content_hash {
        calls.push(quote!(.content_hash(#hashed)));
    }
    quote!(#(#calls)*)
}

/// The errors, and the item with a stand-in `IntoHandler`, so that listing it in
/// `handlers![...]` does not fail a second time.
pub fn fail(item: &ViewItem, p: &TokenStream, errors: crate::errors::Errors) -> TokenStream {
    match item {
        ViewItem::Function(function) => super::handler::fail(function, p, errors),
        ViewItem::Document(item) => {
            let compile_errors = errors.into_compile_errors();
            let ident = &item.ident;
            quote! {
                #compile_errors
                #[allow(dead_code)]
                #item
                #[allow(unreachable_code)]
                impl #p::IntoHandler for #ident {
                    const MARKER: Self = #ident;

                    fn into_handler(self) -> #p::Handler {
                        ::core::panic!("this view did not compile")
                    }
                }
            }
        }
    }
}
