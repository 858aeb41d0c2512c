//! `#[resource("scheme://...")]`: a function becomes a fixed resource or a URI template.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::attr::Args;
use crate::errors::Errors;
use crate::signature::{Function, Kind, option_string};

const KEYS: &[&str] = &["name", "title", "description", "mime_type", "list", "ttl_ms", "cache", "scopes"];

/// Expands `#[resource("uri", ...)] fn ...`.
pub fn expand(attr: TokenStream, item: ItemFn) -> TokenStream {
    let mut errors = Errors::default();
    let function = Function::parse(item, Kind { attribute: "resource" }, &mut errors);
    let mut args = Args::parse(attr, &mut errors);
    let template = args.literal();
    let mut variables = Vec::new();
    match &template {
        None => errors.error(
            proc_macro2::Span::call_site(),
            "#[resource] needs its URI first: #[resource(\"config://app\")] or #[resource(\"notes://{id}\")]",
        ),
        Some(lit) => match crate::template::variables(&lit.value()) {
            Ok(found) => variables = found,
            Err(reason) => errors.error(lit.span(), format!("invalid URI template: {reason}")),
        },
    }
    let name = args.string("name", &mut errors).map(|s| s.value()).unwrap_or_else(|| function.ident.to_string());
    let title = args.string("title", &mut errors).map(|s| s.value());
    let description =
        args.string("description", &mut errors).map(|s| s.value()).or_else(|| function.description.clone());
    let mime_type = args.string("mime_type", &mut errors).map(|s| s.value());
    let list = args.path("list", &mut errors);
    if let (Some((key, _)), Some(_)) = (&list, &template)
        && variables.is_empty()
    {
        errors.error(key.span(), "`list` enumerates the resources of a URI template; a fixed URI lists itself");
    }
    let ttl_ms = args.integer("ttl_ms", &mut errors).unwrap_or(0);
    let scope = match args.string("cache", &mut errors) {
        None => quote!(Private),
        Some(lit) => match lit.value().as_str() {
            "public" => quote!(Public),
            "private" => quote!(Private),
            other => {
                errors.error(lit.span(), format!("`cache` is \"public\" or \"private\", not \"{other}\""));
                quote!(Private)
            }
        },
    };
    let scopes = args.scopes(&mut errors);
    args.finish("resource", KEYS, &mut errors);

    // Every variable needs a parameter of the same name; parameters that are not variables
    // must be extractors, which the type system checks.
    if let Some(lit) = &template {
        for variable in &variables {
            if !function.params.iter().any(|p| p.rust_name.as_deref() == Some(variable.as_str())) {
                errors.error(
                    lit.span(),
                    format!(
                        "URI template variable `{{{variable}}}` has no parameter; add a parameter named `{variable}`"
                    ),
                );
            }
        }
    }
    for param in &function.params {
        if let Some(rename) = &param.rename {
            errors.error(rename.span(), "resource parameters take their names from the URI template; remove `rename`");
        }
        let is_variable = param.rust_name.as_ref().is_some_and(|n| variables.contains(n));
        if let (Some((key, _)), false) = (&param.complete, is_variable) {
            errors.error(
                key.span(),
                "only URI template variables have completions; `complete` goes on a parameter named like one",
            );
        }
    }

    let ident = &function.ident;
    if !errors.is_empty() {
        return function.fail(errors);
    }
    let template = template.expect("checked above");

    let cfg = &function.cfg;
    let output = &function.output;
    let args_idents = function.arg_idents();
    let mut take_variables = Vec::new();
    for variable in &variables {
        let binding = quote::format_ident!("__var_{}", variable);
        take_variables.push(quote! {
            let #binding = __variables.next().unwrap_or_default();
        });
    }
    let mut extract = Vec::new();
    let mut states = Vec::new();
    let mut completers = Vec::new();
    for param in &function.params {
        if let (Some((_, path)), Some(variable)) = (&param.complete, &param.rust_name) {
            let call = quote_spanned! {path.span()=>
                ::mcp_rounds::__private::Completer::complete(&#path, __request)
            };
            completers.push(quote!(#variable => ::core::option::Option::Some(#call),));
        }
    }
    let complete_fns = crate::signature::complete_fns(&completers);
    for (param, arg) in function.params.iter().zip(&args_idents) {
        let ty = &param.ty;
        let span = ty.span();
        match param.rust_name.as_deref().filter(|n| variables.iter().any(|v| v == n)) {
            Some(variable) => {
                let binding = quote::format_ident!("__var_{}", variable);
                extract.push(quote_spanned! {span=>
                    let #arg = match <#ty as ::mcp_rounds::__private::TemplateValue>::parse_value(#binding) {
                        ::core::option::Option::Some(value) => value,
                        ::core::option::Option::None => return ::core::result::Result::Err(
                            ::mcp_rounds::__private::Error::resource_not_found(&__uri)),
                    };
                });
            }
            None => {
                states.push(quote_spanned! {span=>
                    <#ty as ::mcp_rounds::__private::ResourceParam>::requirements(__requirements);
                });
                extract.push(quote_spanned! {span=>
                    const {
                        ::core::assert!(
                            !<#ty as ::mcp_rounds::__private::ResourceParam>::USES_ROUNDS,
                            "resources have no rounds: Round, Claim and IdempotencyKey go on tools and prompts"
                        )
                    };
                    let #arg = match <#ty as ::mcp_rounds::__private::ResourceParam>::extract(&mut __parts).await {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(rejection) => {
                            return ::core::result::Result::Err(::mcp_rounds::__private::rejected(rejection));
                        }
                    };
                });
            }
        }
    }
    let run = if function.is_async {
        quote!(let __returned = #ident(#(#args_idents),*).await;)
    } else {
        quote!(let __returned = #ident(#(#args_idents),*);)
    };
    let output_span = output.span();
    let mime_const = match &mime_type {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let into_result = quote_spanned! {output_span=>
        <#output as ::mcp_rounds::__private::IntoReadResult>::into_read_result(__returned, &__uri, #mime_const, __cache)
    };
    let (lists, list_fn) = match &list {
        Some((_, path)) => (
            quote!(true),
            quote! {
                fn list(&self, __context: ::mcp_rounds::__private::RequestContext)
                    -> ::core::option::Option<::mcp_rounds::__private::BoxFuture<'_,
                        ::core::result::Result<::std::vec::Vec<::mcp_rounds::__private::Resource>, ::mcp_rounds::__private::Error>>>
                {
                    ::core::option::Option::Some(::mcp_rounds::__private::ListResources::list(&#path, __context))
                }
            },
        ),
        None => (quote!(false), quote!()),
    };
    let name = &name;
    let title = option_string(title.as_deref());
    let description = option_string(description.as_deref());
    let mime = option_string(mime_type.as_deref());
    let scopes = crate::attr::scopes_fn(scopes.as_deref());
    let item = function.function_and_marker();
    let into_handler = function.handler_impl(quote!(resource));
    quote! {
        #item
        #into_handler

        #(#cfg)*
        impl ::mcp_rounds::__private::ResourceDefinition for #ident {
            fn describe() -> ::core::result::Result<::mcp_rounds::__private::ResourceDescriptor, ::std::string::String> {
                ::core::result::Result::Ok(::mcp_rounds::__private::ResourceDescriptor {
                    template: ::mcp_rounds::__private::UriTemplate::parse(#template).map_err(|e| e.to_string())?,
                    name: ::std::string::String::from(#name),
                    title: #title,
                    description: #description,
                    mime_type: #mime,
                    cache: ::mcp_rounds::__private::CacheHints {
                        ttl_ms: #ttl_ms,
                        cache_scope: ::mcp_rounds::__private::CacheScope::#scope,
                    },
                })
            }

            fn requirements(__requirements: &mut ::mcp_rounds::__private::Requirements) {
                #(#states)*
            }

            fn lists() -> bool {
                #lists
            }

            #scopes

            #list_fn

            #complete_fns

            fn read(&self, __read: ::mcp_rounds::__private::ResourceRead) -> ::mcp_rounds::__private::BoxFuture<'_,
                ::core::result::Result<::mcp_rounds::__private::Outcome<::mcp_rounds::__private::ReadResourceResult>,
                ::mcp_rounds::__private::Error>>
            {
                ::mcp_rounds::__private::boxed(async move {
                    #[allow(unused_mut, unused_variables)]
                    let (__uri, __variables, mut __parts) = __read.into_parts();
                    #[allow(unused_mut, unused_variables)]
                    let mut __variables = __variables.into_iter();
                    let __cache = ::mcp_rounds::__private::CacheHints {
                        ttl_ms: #ttl_ms,
                        cache_scope: ::mcp_rounds::__private::CacheScope::#scope,
                    };
                    #(#take_variables)*
                    #(#extract)*
                    #run
                    #into_result
                })
            }
        }
    }
}
