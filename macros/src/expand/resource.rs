//! `#[resource("...")]`: the function's `ResourceDefinition`, a fixed resource or a URI
//! template whose variables become the function's arguments.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use super::handler::{complete_fns, function_and_marker, into_handler, option_string, scopes_fn};
use crate::ast::attrs::{Cache, ResourceAttr};
use crate::ast::function::Function;

/// The resource, for a function and attribute that passed their checks; `variables` are the
/// template's.
pub fn expand(attr: &ResourceAttr, function: &Function, variables: &[String]) -> TokenStream {
    let template = attr.template.as_ref().expect("checked: a resource has its URI");
    let definition = definition(attr, function, variables);
    let into_handler = into_handler(function, &attr.krate.private(), quote!(resource), &template.value());
    quote! {
        #definition
        #into_handler
    }
}

/// The function, its marker and its `ResourceDefinition`: everything but how `handlers![...]`
/// registers it (as a resource, or as the view it renders).
pub fn definition(attr: &ResourceAttr, function: &Function, variables: &[String]) -> TokenStream {
    let p = attr.krate.private();
    let ident = &function.ident;
    let template = attr.template.as_ref().expect("checked: a resource has its URI");
    let cfg = &function.cfg;
    let output = &function.output;
    let args_idents = function.arg_idents();
    let take_variables = variables.iter().map(|variable| {
        let binding = format_ident!("__var_{}", variable);
        quote!(let #binding = __variables.next().unwrap_or_default();)
    });
    let mut completers = Vec::new();
    for param in &function.params {
        if let (Some((_, path)), Some(variable)) = (&param.complete, &param.rust_name) {
            let call = at!(path.span(), p =>  #p::Completer::complete(&#path, __request) );
            completers.push(quote!(#variable => ::core::option::Option::Some(#call),));
        }
    }
    let complete_fns = complete_fns(&p, &completers);
    let mut extract = Vec::new();
    let mut states = Vec::new();
    for (param, arg) in function.params.iter().zip(&args_idents) {
        let ty = &param.ty;
        let span = ty.span();
        match param.rust_name.as_deref().filter(|n| variables.iter().any(|v| v == n)) {
            Some(variable) => {
                let binding = format_ident!("__var_{}", variable);
                extract.push(at!(span, p =>
                    let #arg = match <#ty as #p::TemplateValue>::parse_value(#binding) {
                        ::core::option::Option::Some(value) => value,
                        ::core::option::Option::None => {
                            return ::core::result::Result::Err(#p::Error::resource_not_found(&__uri));
                        }
                    };
                ));
            }
            None => {
                states.push(at!(span, p =>  <#ty as #p::ResourceParam>::requirements(__requirements); ));
                extract.push(at!(span, p =>
                    const {
                        ::core::assert!(
                            !<#ty as #p::ResourceParam>::USES_ROUNDS,
                            "resources have no rounds: Round, Claim and IdempotencyKey go on tools and prompts"
                        )
                    };
                    let #arg = match <#ty as #p::ResourceParam>::extract(&mut __parts).await {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(rejection) => {
                            return ::core::result::Result::Err(#p::rejected(rejection));
                        }
                    };
                ));
            }
        }
    }
    let run = if function.is_async {
        quote!(let __returned = #ident(#(#args_idents),*).await;)
    } else {
        quote!(let __returned = #ident(#(#args_idents),*);)
    };
    let mime_const = match &attr.mime_type {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let into_result = at!(output.span(), p =>
        <#output as #p::IntoReadResult>::into_read_result(__returned, &__uri, #mime_const, __cache)
    );
    let (lists, list_fn) = match &attr.list {
        Some((_, path)) => (
            quote!(true),
            quote! {
                fn list(&self, __context: #p::RequestContext)
                    -> ::core::option::Option<#p::BoxFuture<'_,
                        ::core::result::Result<::std::vec::Vec<#p::Resource>, #p::Error>>>
                {
                    ::core::option::Option::Some(#p::ListResources::list(&#path, __context))
                }
            },
        ),
        None => (quote!(false), quote!()),
    };
    let name = attr.name.clone().unwrap_or_else(|| function.ident.to_string());
    let title = option_string(attr.title.as_deref());
    let description = option_string(attr.description.as_deref().or(function.description.as_deref()));
    let mime = option_string(attr.mime_type.as_deref());
    let ttl_ms = attr.ttl_ms;
    let scope = match attr.cache {
        Cache::Public => quote!(Public),
        Cache::Private => quote!(Private),
    };
    let scopes = scopes_fn(attr.scopes.as_deref());
    let item = function_and_marker(function, true);
    quote! {
        #item

        #(#cfg)*
        impl #p::ResourceDefinition for #ident {
            fn describe() -> ::core::result::Result<#p::ResourceDescriptor, ::std::string::String> {
                ::core::result::Result::Ok(#p::ResourceDescriptor {
                    template: #p::UriTemplate::parse(#template).map_err(|e| e.to_string())?,
                    name: ::std::string::String::from(#name),
                    title: #title,
                    description: #description,
                    mime_type: #mime,
                    cache: #p::CacheHints::new(#ttl_ms, #p::CacheScope::#scope),
                })
            }

            fn requirements(__requirements: &mut #p::Requirements) {
                #(#states)*
            }

            fn lists() -> bool {
                #lists
            }

            #scopes

            #list_fn

            #complete_fns

            fn read(&self, __read: #p::ResourceRead) -> #p::BoxFuture<'_,
                ::core::result::Result<#p::Outcome<#p::ReadResourceResult>, #p::Error>>
            {
                // Taken apart before the future, which then holds the parts alone.
                #[allow(unused_mut, unused_variables)]
                let (__uri, __variables, mut __parts) = __read.into_parts();
                #p::boxed(async move {
                    #[allow(unused_mut, unused_variables)]
                    let mut __variables = __variables.into_iter();
                    let __cache = #p::CacheHints::new(#ttl_ms, #p::CacheScope::#scope);
                    #(#take_variables)*
                    #(#extract)*
                    #run
                    #into_result
                })
            }
        }
    }
}
