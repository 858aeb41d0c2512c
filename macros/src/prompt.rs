//! `#[prompt]`: a function becomes a prompt template.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::attr::Args;
use crate::errors::Errors;
use crate::signature::{Function, Kind, option_str, option_string};

const KEYS: &[&str] = &["name", "title", "description", "rename_all", "scopes"];

/// Expands `#[prompt(...)] fn ...`.
pub fn expand(attr: TokenStream, item: ItemFn) -> TokenStream {
    let mut errors = Errors::default();
    let function = Function::parse(item, Kind { attribute: "prompt" }, &mut errors);
    let mut args = Args::parse(attr, &mut errors);
    if let Some(literal) = args.literal() {
        errors.error(literal.span(), "write the prompt's name as `name = \"...\"`");
    }
    let name = match args.string("name", &mut errors) {
        Some(lit) if lit.value().trim().is_empty() => {
            errors.error(lit.span(), "a prompt name cannot be empty");
            String::new()
        }
        Some(lit) => lit.value(),
        None => function.ident.to_string().trim_start_matches("r#").to_owned(),
    };
    let title = args.string("title", &mut errors).map(|s| s.value());
    let description =
        args.string("description", &mut errors).map(|s| s.value()).or_else(|| function.description.clone());
    let rename_all = args.case("rename_all", &mut errors);
    let scopes = args.scopes(&mut errors);
    args.finish("prompt", KEYS, &mut errors);

    let ident = &function.ident;
    if !errors.is_empty() {
        return function.fail(errors);
    }

    let cfg = &function.cfg;
    let output = &function.output;
    let args_idents = function.arg_idents();
    let mut arguments = Vec::new();
    let mut states = Vec::new();
    let mut extract = Vec::new();
    let mut uses_rounds = Vec::new();
    let mut completers = Vec::new();
    for (param, arg) in function.params.iter().zip(&args_idents) {
        let ty = &param.ty;
        let span = ty.span();
        let wire = param.wire_name(rename_all.as_deref());
        let desc = option_str(param.description.as_deref());
        arguments
            .push(quote_spanned! {span=> <#ty as ::mcp_rounds::__private::PromptParam<_>>::argument(#wire, #desc) });
        states.push(quote_spanned! {span=>
            <#ty as ::mcp_rounds::__private::PromptParam<_>>::requirements(__requirements);
        });
        uses_rounds.push(quote_spanned! {span=> <#ty as ::mcp_rounds::__private::PromptParam<_>>::USES_ROUNDS });
        if let Some((key, path)) = &param.complete {
            let is_argument = quote_spanned! {key.span()=>
                const _: fn() = || {
                    fn completable<T: ::mcp_rounds::__private::CompletableArgument + ?Sized>() {}
                    completable::<#ty>();
                };
            };
            let call = quote_spanned! {path.span()=>
                ::mcp_rounds::__private::Completer::complete(&#path, __request)
            };
            completers.push(quote! {
                #wire => {
                    #is_argument
                    ::core::option::Option::Some(#call)
                }
            });
        }
        extract.push(quote_spanned! {span=>
            let #arg = match <#ty as ::mcp_rounds::__private::PromptParam<_>>::extract(&mut __get, #wire).await {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(rejection) => return __get.reject(rejection).await,
            };
        });
    }
    let run = if function.is_async {
        quote!(let __returned = #ident(#(#args_idents),*).await;)
    } else {
        quote!(let __returned = #ident(#(#args_idents),*);)
    };
    let output_span = output.span();
    let into_result = quote_spanned! {output_span=>
        <#output as ::mcp_rounds::__private::IntoPromptResult>::into_prompt_result(__returned, &__get.outcome_context())
    };
    uses_rounds
        .push(quote_spanned! {output_span=> <#output as ::mcp_rounds::__private::IntoPromptResult>::USES_ROUNDS });
    let complete_fns = crate::signature::complete_fns(&completers);
    let title = option_string(title.as_deref());
    let description = option_string(description.as_deref());
    let count = function.params.len();
    let scopes = crate::attr::scopes_fn(scopes.as_deref());
    let item = function.function_and_marker();
    let into_handler = function.handler_impl(quote!(prompt));
    quote! {
        #item
        #into_handler

        #(#cfg)*
        impl ::mcp_rounds::__private::PromptDefinition for #ident {
            fn describe() -> ::core::result::Result<::mcp_rounds::__private::Prompt, ::std::string::String> {
                let __arguments: [::core::option::Option<::mcp_rounds::model::PromptArgument>; #count] = [#(#arguments),*];
                let __arguments: ::std::vec::Vec<_> = __arguments.into_iter().flatten().collect();
                ::core::result::Result::Ok(::mcp_rounds::__private::Prompt {
                    name: ::std::string::String::from(#name),
                    title: #title,
                    description: #description,
                    arguments: (!__arguments.is_empty()).then_some(__arguments),
                    icons: ::core::option::Option::None,
                    meta: ::core::option::Option::None,
                })
            }

            fn uses_rounds() -> bool {
                false #(|| #uses_rounds)*
            }

            #scopes

            #complete_fns

            fn requirements(__requirements: &mut ::mcp_rounds::__private::Requirements) {
                #(#states)*
            }

            fn get(&self, __get: ::mcp_rounds::__private::PromptGet) -> ::mcp_rounds::__private::BoxFuture<'_,
                ::core::result::Result<::mcp_rounds::__private::Outcome<::mcp_rounds::__private::GetPromptResult>,
                ::mcp_rounds::__private::Error>>
            {
                ::mcp_rounds::__private::boxed(async move {
                    let mut __get = __get;
                    #(#extract)*
                    if let ::core::result::Result::Err(rejection) = __get.finish() {
                        return __get.reject(rejection).await;
                    }
                    __get.begin_single_use().await?;
                    #run
                    let __outcome = #into_result;
                    __get.settle(__outcome).await
                })
            }
        }
    }
}
