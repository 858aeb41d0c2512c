//! `#[prompt]`: the function's `PromptDefinition`, its arguments described once and filled in
//! on every `prompts/get`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use super::handler::{complete_fns, function_and_marker, into_handler, option_str, option_string, scopes_fn};
use crate::ast::attrs::PromptAttr;
use crate::ast::function::Function;

/// The prompt named `name`, for a function and attribute that passed their checks.
pub fn expand(attr: &PromptAttr, function: &Function, name: &str) -> TokenStream {
    let p = attr.krate.private();
    let ident = &function.ident;
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
        let wire = param.wire_name(attr.rename_all.as_deref());
        let desc = option_str(param.description.as_deref());
        arguments.push(at!(span, p =>  <#ty as #p::PromptParam<_>>::argument(#wire, #desc) ));
        states.push(at!(span, p =>  <#ty as #p::PromptParam<_>>::requirements(__requirements); ));
        uses_rounds.push(at!(span, p =>  <#ty as #p::PromptParam<_>>::USES_ROUNDS ));
        if let Some((key, path)) = &param.complete {
            let is_argument = at!(key.span(), p =>
                const _: fn() = || {
                    fn completable<T: #p::CompletableArgument + ?Sized>() {}
                    completable::<#ty>();
                };
            );
            let call = at!(path.span(), p =>  #p::Completer::complete(&#path, __request) );
            completers.push(quote! {
                #wire => {
                    #is_argument
                    ::core::option::Option::Some(#call)
                }
            });
        }
        extract.push(at!(span, p =>
            let #arg = match <#ty as #p::PromptParam<_>>::extract(&mut __get, #wire).await {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(rejection) => return __get.reject(rejection).await,
            };
        ));
    }
    let run = if function.is_async {
        quote!(let __returned = #ident(#(#args_idents),*).await;)
    } else {
        quote!(let __returned = #ident(#(#args_idents),*);)
    };
    let output_span = output.span();
    let into_result = at!(output_span, p =>
        <#output as #p::IntoPromptResult>::into_prompt_result(__returned, &__get.outcome_context())
    );
    uses_rounds.push(at!(output_span, p =>  <#output as #p::IntoPromptResult>::USES_ROUNDS ));
    let complete_fns = complete_fns(&p, &completers);
    let title = option_string(attr.title.as_deref());
    let description = option_string(attr.description.as_deref().or(function.description.as_deref()));
    let count = function.params.len();
    let scopes = scopes_fn(attr.scopes.as_deref());
    let item = function_and_marker(function, true);
    let into_handler = into_handler(function, &p, quote!(prompt), name);
    quote! {
        #item
        #into_handler

        #(#cfg)*
        impl #p::PromptDefinition for #ident {
            fn describe() -> ::core::result::Result<#p::Prompt, ::std::string::String> {
                let __arguments: [::core::option::Option<#p::PromptArgument>; #count] = [#(#arguments),*];
                let __arguments: ::std::vec::Vec<_> = __arguments.into_iter().flatten().collect();
                let mut __prompt = #p::Prompt::new(#name);
                __prompt.title = #title;
                __prompt.description = #description;
                __prompt.arguments = (!__arguments.is_empty()).then_some(__arguments);
                ::core::result::Result::Ok(__prompt)
            }

            fn uses_rounds() -> bool {
                false #(|| #uses_rounds)*
            }

            #scopes

            #complete_fns

            fn requirements(__requirements: &mut #p::Requirements) {
                #(#states)*
            }

            fn get(&self, mut __get: #p::PromptGet) -> #p::BoxFuture<'_,
                ::core::result::Result<#p::Outcome<#p::GetPromptResult>, #p::Error>>
            {
                #p::boxed(async move {
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
