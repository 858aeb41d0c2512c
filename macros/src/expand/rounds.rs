//! `#[derive(Rounds)]`: resuming a round from the signed state, and one `ask_<round>`
//! constructor per round taking its data and its questions. Rounds with mistakes still get the
//! trait and the constructors (bodies never run), so the tool using them reports nothing more.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use crate::ast::rounds::{RoundField, RoundVariant, RoundsInput};

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

/// Whether a field receives an answer. In a round without any `#[answer]`, a field carrying a
/// misspelt attribute was meant to (the stand-in then has the constructor the user expects).
fn is_answer(field: &RoundField, variant_fields: &[RoundField]) -> bool {
    field.answer.is_some() || (field.has_unknown_attribute && variant_fields.iter().all(|f| f.answer.is_none()))
}

/// Whether the input needs the stand-ins although nothing of its own is wrong: a misspelt
/// `#[answer]`, which the compiler reports.
pub fn needs_fallback(input: &RoundsInput) -> bool {
    input
        .variants
        .iter()
        .flatten()
        .filter_map(|v| v.fields.as_ref())
        .any(|fields| fields.iter().all(|f| f.answer.is_none()) && fields.iter().any(|f| f.has_unknown_attribute))
}

/// The `ask_<round>` constructor of one round; `body` builds the `Ask` (or stands in for it).
fn asker(
    input: &RoundsInput,
    variant: &RoundVariant,
    fields: &[RoundField],
    p: &TokenStream,
    stand_in: bool,
) -> TokenStream {
    let vis = &input.vis;
    let round = variant.ident.to_string();
    let single_use = match variant.single_use {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    };
    let mut params = Vec::new();
    let mut steps = Vec::new();
    let mut carries = Vec::new();
    for field in fields {
        let (ident, ty) = (&field.ident, &field.ty);
        let span = ty.span();
        if is_answer(field, fields) {
            let key = field.answer.as_ref().map_or_else(|| ident.to_string(), |k| k.value());
            params.push(at!(span, p =>  #ident: <#ty as #p::Answer>::Request ));
            steps.push(quote!(.request(#key, #ident)));
        } else {
            let key = ident.to_string();
            params.push(quote!(#ident: #ty));
            carries.push(at!(span, p =>
                let __ask = <#ty as #p::RoundData>::carry_into(&#ident, __ask, #key);
            ));
        }
    }
    let body = if stand_in {
        quote!(::core::unreachable!("these rounds did not compile"))
    } else {
        quote! {
            let __ask = #p::Ask::new(#round, #single_use);
            #(#carries)*
            __ask #(#steps)*
        }
    };
    let asker = format_ident!("ask_{}", snake(&round));
    let doc = format!("Asks the questions of round `{round}`, carrying its data to the retry.");
    quote! {
        #[doc = #doc]
        // `enum AskName { Name { .. } }` makes `AskName::ask_name`, which is what it means.
        #[allow(clippy::too_many_arguments, clippy::self_named_constructors, unused_variables)]
        #vis fn #asker(#(#params),*) -> #p::Ask<Self> {
            #body
        }
    }
}

/// The rounds, for an input that passed its checks.
pub fn expand(input: &RoundsInput) -> TokenStream {
    let p = input.krate.private();
    let name = &input.ident;
    let mut arms = Vec::new();
    let mut askers = Vec::new();
    for variant in input.variants.iter().flatten() {
        let Some(fields) = &variant.fields else { continue };
        let ident = &variant.ident;
        let round = ident.to_string();
        let build = fields.iter().map(|field| {
            let (field_ident, ty) = (&field.ident, &field.ty);
            let span = ty.span();
            match &field.answer {
                Some(key) => at!(span, p =>
                    #field_ident: <#ty as #p::Answer>::take_from(__answers, #key)?
                ),
                None => {
                    let key = field_ident.to_string();
                    at!(span, p =>
                        #field_ident: <#ty as #p::RoundData>::carried_from(&mut __data, #key)?
                    )
                }
            }
        });
        arms.push(quote! {
            #round => ::core::result::Result::Ok(Self::#ident { #(#build,)* }),
        });
        askers.push(asker(input, variant, fields, &p, false));
    }
    quote! {
        impl #p::Rounds for #name {
            fn resume(
                __round: &str,
                #[allow(unused_mut)] mut __data: #p::JsonObject,
                __answers: &mut #p::AnswerSet<'_>,
            ) -> ::core::result::Result<Self, #p::Error> {
                match __round {
                    #(#arms)*
                    _ => ::core::result::Result::Err(#p::unknown_round(__round)),
                }
            }
        }

        impl #name {
            #(#askers)*
        }
    }
}

/// Stand-ins for rounds with mistakes: the trait, and a constructor for every round that has
/// named fields.
pub fn fallback(input: &RoundsInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let p = input.krate.private();
    let name = &input.ident;
    let askers = input
        .variants
        .iter()
        .flatten()
        .filter_map(|variant| variant.fields.as_ref().map(|fields| asker(input, variant, fields, &p, true)));
    quote! {
        #[allow(unreachable_code, unused_variables)]
        impl #p::Rounds for #name {
            fn resume(
                __round: &str,
                __data: #p::JsonObject,
                __answers: &mut #p::AnswerSet<'_>,
            ) -> ::core::result::Result<Self, #p::Error> {
                ::core::unreachable!("these rounds did not compile")
            }
        }

        impl #name {
            #(#askers)*
        }
    }
}
