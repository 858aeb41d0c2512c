//! `#[derive(Rounds)]`: an enum whose variants are the rounds of a multi-round tool.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

use crate::attr::Args;
use crate::errors::Errors;

fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.char_indices() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Expands `#[derive(Rounds)]`.
pub fn expand(input: DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        errors.error_spanned(&input.generics, "rounds cannot be generic: the state names a round and its data");
    }
    let Data::Enum(data) = &input.data else {
        errors.error(name.span(), "#[derive(Rounds)] goes on an enum: each variant is one round of the tool");
        return errors.into_compile_errors();
    };
    if data.variants.is_empty() {
        errors.error(name.span(), "a tool with rounds needs at least one round (variant)");
    }
    let vis = &input.vis;
    let mut arms = Vec::new();
    let mut askers = Vec::new();
    for variant in &data.variants {
        let ident = &variant.ident;
        let round = ident.to_string();
        let mut single_use = quote!(::core::option::Option::None);
        for attr in variant.attrs.iter().filter(|a| a.path().is_ident("round")) {
            match attr.meta.require_list() {
                Ok(list) => {
                    let mut args = Args::parse(list.tokens.clone(), &mut errors);
                    if let Some((value, _)) = args.flag("single_use", &mut errors) {
                        single_use = quote!(::core::option::Option::Some(#value));
                    }
                    args.finish("round", &["single_use"], &mut errors);
                }
                Err(e) => errors.push(e),
            }
        }
        let Fields::Named(fields) = &variant.fields else {
            errors.error_spanned(
                variant,
                "a round is a variant with named fields: the data it carries, and #[answer] fields for what it asks",
            );
            continue;
        };
        let mut build = Vec::new();
        let mut params = Vec::new();
        let mut steps = Vec::new();
        let mut carries = Vec::new();
        let mut keys = std::collections::HashSet::new();
        let mut answers = 0;
        for field in &fields.named {
            let field_ident = field.ident.as_ref().expect("named fields");
            let ty = &field.ty;
            let span = ty.span();
            let answer = field.attrs.iter().find(|a| a.path().is_ident("answer"));
            match answer {
                Some(attr) => {
                    answers += 1;
                    let mut key = field_ident.to_string();
                    if let syn::Meta::List(list) = &attr.meta {
                        let mut args = Args::parse(list.tokens.clone(), &mut errors);
                        if let Some(lit) = args.string("key", &mut errors) {
                            key = lit.value();
                        }
                        args.finish("answer", &["key"], &mut errors);
                    }
                    if !keys.insert(key.clone()) {
                        errors.error(field_ident.span(), format!("two answers of round `{round}` use the key `{key}`"));
                    }
                    build.push(quote_spanned! {span=>
                        #field_ident: <#ty as ::mcp_rounds::__private::Answer>::take_from(__answers, #key)?
                    });
                    params.push(quote_spanned! {span=>
                        #field_ident: <#ty as ::mcp_rounds::__private::Answer>::Request
                    });
                    steps.push(quote!(.request(#key, #field_ident)));
                }
                None => {
                    let key = field_ident.to_string();
                    build.push(quote_spanned! {span=>
                        #field_ident: <#ty as ::mcp_rounds::__private::RoundData>::carried_from(&mut __data, #key)?
                    });
                    params.push(quote!(#field_ident: #ty));
                    carries.push(quote_spanned! {span=>
                        let __ask = <#ty as ::mcp_rounds::__private::RoundData>::carry_into(&#field_ident, __ask, #key);
                    });
                }
            }
        }
        if answers == 0 {
            errors.error(
                ident.span(),
                format!("round `{round}` asks nothing: mark the fields that receive answers with #[answer]"),
            );
        }
        arms.push(quote! {
            #round => ::core::result::Result::Ok(Self::#ident { #(#build,)* }),
        });
        let asker = format_ident!("ask_{}", snake(&round));
        let doc = format!("Asks the questions of round `{round}`, carrying its data to the retry.");
        askers.push(quote! {
            #[doc = #doc]
            // `enum AskName { Name { .. } }` makes `AskName::ask_name`, which is what it means.
            #[allow(clippy::too_many_arguments, clippy::self_named_constructors)]
            #vis fn #asker(#(#params),*) -> ::mcp_rounds::Ask<Self> {
                let __ask = ::mcp_rounds::Ask::new(#round, #single_use);
                #(#carries)*
                __ask #(#steps)*
            }
        });
    }
    if !errors.is_empty() {
        return errors.into_compile_errors();
    }
    quote! {
        impl ::mcp_rounds::__private::Rounds for #name {
            fn resume(
                __round: &str,
                #[allow(unused_mut)] mut __data: ::mcp_rounds::model::JsonObject,
                __answers: &mut ::mcp_rounds::__private::AnswerSet<'_>,
            ) -> ::core::result::Result<Self, ::mcp_rounds::Error> {
                match __round {
                    #(#arms)*
                    _ => ::core::result::Result::Err(::mcp_rounds::__private::unknown_round(__round)),
                }
            }
        }

        impl #name {
            #(#askers)*
        }
    }
}
