//! `#[derive(Form)]` and `#[derive(FormChoice)]`: the schema a form asks with, reading the
//! answer back into the struct, and the typed field names `FormRequest::choices` takes. A form
//! with mistakes still gets its `FIELDS` and trait impls as stand-ins, so code using it reports
//! nothing more.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::handler::option_str;
use crate::ast::form::{Applies, ChoiceInput, DefaultKind, FormFieldInput, FormInput};
use crate::check::form::{FORMATS, choice_value, wire_name};

/// The typed field names: a hidden struct with one `FieldKey` per field, and `Form::FIELDS`.
fn fields_struct(input: &FormInput, fields: &[FormFieldInput], p: &TokenStream) -> (TokenStream, syn::Ident) {
    let name = &input.ident;
    let vis = &input.vis;
    let fields_struct = format_ident!("__{}FormFields", name);
    let field_docs = format!("The fields of [`{name}`], for `FormRequest::choices`.");
    let key_fields = fields.iter().map(|f| {
        let (ident, ty) = (&f.ident, &f.ty);
        quote!(pub #ident: #p::FieldKey<#name, #ty>)
    });
    let key_values = fields.iter().map(|f| {
        let ident = &f.ident;
        let wire = wire_name(f, input.rename_all.as_deref());
        quote!(#ident: #p::FieldKey::new(#wire))
    });
    let tokens = quote! {
        #[doc = #field_docs]
        #[doc(hidden)]
        #[allow(non_camel_case_types, missing_docs)]
        #vis struct #fields_struct {
            #(#key_fields,)*
        }

        impl #name {
            /// The form's fields, to name one in `FormRequest::choices`.
            #[allow(dead_code)]
            #vis const FIELDS: #fields_struct = #fields_struct { #(#key_values,)* };
        }
    };
    (tokens, fields_struct)
}

/// The form, for an input that passed its checks.
pub fn form(input: &FormInput) -> TokenStream {
    let p = input.krate.private();
    let fields = input.fields.as_deref().unwrap_or_default();
    let mut schema_fields = Vec::new();
    let mut take_fields = Vec::new();
    let mut checks = Vec::new();
    for field in fields {
        let (ident, ty) = (&field.ident, &field.ty);
        let ty_span = ty.span();
        let kind = quote!(<#ty as #p::FormField>::KIND);
        let mut options = Vec::new();
        for (key, value, span, applies) in &field.integers {
            let (check, what) = match applies {
                Applies::Text => (quote!(is_text), "text"),
                Applies::Multi => (quote!(is_multi), "several-choice"),
            };
            let message = format!("`{key}` applies to {what} fields only");
            checks.push(quote_spanned! {*span=> ::core::assert!(#kind.#check(), #message); });
            let field_name = format_ident!("{}", key);
            options.push(quote!(#field_name: ::core::option::Option::Some(#value)));
        }
        for (key, value, span) in &field.numbers {
            let message = format!("`{key}` applies to number fields only");
            checks.push(quote_spanned! {*span=> ::core::assert!(#kind.is_numeric(), #message); });
            let field_name = format_ident!("{}", key);
            options.push(quote!(#field_name: ::core::option::Option::Some(#value)));
        }
        if let Some(format) = &field.format
            && let Some((_, variant)) = FORMATS.iter().find(|(name, _)| *name == format.value())
        {
            let variant = format_ident!("{}", variant);
            checks.push(quote_spanned! {format.span()=>
                ::core::assert!(#kind.is_text(), "`format` applies to text fields only");
            });
            options.push(quote!(format: ::core::option::Option::Some(#p::StringFormat::#variant)));
        }
        if let Some((Some(default), key, Some(value))) = &field.default {
            let (check, what) = match default {
                DefaultKind::Text => (
                    quote!(matches!(#kind, #p::FieldKind::Text | #p::FieldKind::Choice)),
                    "a text default fits text and choice fields only",
                ),
                DefaultKind::Boolean => {
                    (quote!(matches!(#kind, #p::FieldKind::Boolean)), "a true/false default fits boolean fields only")
                }
                DefaultKind::Number => (quote!(#kind.is_numeric()), "a number default fits number fields only"),
                DefaultKind::List => (quote!(#kind.is_multi()), "a list default fits several-choice fields only"),
            };
            checks.push(quote_spanned! {key.span()=> ::core::assert!(#check, #what); });
            options.push(quote!(default: ::core::option::Option::Some(#p::serde_json::json!(#value))));
        }
        let wire = wire_name(field, input.rename_all.as_deref());
        let title = option_str(field.title.as_deref());
        let description = option_str(field.description.as_deref());
        schema_fields.push(at!(ty_span, p =>
            <#ty as #p::FormField>::describe_into(
                &mut __schema,
                #wire,
                &#p::FieldOptions {
                    title: #title,
                    description: #description,
                    #(#options,)*
                    ..::core::default::Default::default()
                },
                __choices,
            )?;
        ));
        take_fields.push(at!(ty_span, p =>
            #ident: <#ty as #p::FormField>::take_from(__content, #wire)?
        ));
    }
    let (fields_tokens, fields_struct) = fields_struct(input, fields, &p);
    let form_impl = form_impl(
        input,
        &p,
        &fields_struct,
        quote! {
            let mut __schema = #p::SchemaBuilder::default();
            #(#schema_fields)*
            ::core::result::Result::Ok(__schema.finish())
        },
        quote!(::core::result::Result::Ok(Self { #(#take_fields,)* })),
    );
    quote! {
        #fields_tokens

        #form_impl

        const _: () = {
            #(#checks)*
        };
    }
}

/// Stand-ins for a form with mistakes: its fields as far as they were read, and a `Form` impl
/// that is never run.
pub fn form_fallback(input: &FormInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let p = input.krate.private();
    let fields = input.fields.as_deref().unwrap_or_default();
    let (fields_tokens, fields_struct) = fields_struct(input, fields, &p);
    let unreachable = quote!(::core::unreachable!("this form did not compile"));
    let form_impl = form_impl(input, &p, &fields_struct, unreachable.clone(), unreachable);
    quote! {
        #fields_tokens

        #[allow(unreachable_code, unused_variables)]
        #form_impl
    }
}

/// `impl Form` for the input, with these bodies for building the schema (which has the
/// run-time choices in `__choices`) and reading the answer (`__content`).
fn form_impl(
    input: &FormInput,
    p: &TokenStream,
    fields_struct: &syn::Ident,
    schema: TokenStream,
    content: TokenStream,
) -> TokenStream {
    let name = &input.ident;
    quote! {
        impl #p::Form for #name {
            type Fields = #fields_struct;

            const FIELDS: #fields_struct = <#name>::FIELDS;

            fn requested_schema(
                __choices: &#p::indexmap::IndexMap<&'static str, ::std::vec::Vec<#p::ChoiceOption>>,
            ) -> ::core::result::Result<#p::RequestedSchema, ::std::string::String> {
                #schema
            }

            fn from_content(
                __content: &#p::JsonObject,
            ) -> ::core::result::Result<Self, #p::FormViolation> {
                #content
            }
        }
    }
}

/// The choices, for an input that passed its checks.
pub fn choice(input: &ChoiceInput) -> TokenStream {
    let p = input.krate.private();
    let name = &input.ident;
    let variants = input.variants.as_deref().unwrap_or_default();
    let options = variants.iter().map(|variant| {
        let value = choice_value(variant, input.rename_all.as_deref());
        let title = match &variant.title {
            Some(t) => quote!(::core::option::Option::Some(::std::string::String::from(#t))),
            None => quote!(::core::option::Option::None),
        };
        quote!(#p::ChoiceOption { value: ::std::string::String::from(#value), title: #title })
    });
    let arms = variants.iter().map(|variant| {
        let value = choice_value(variant, input.rename_all.as_deref());
        let ident = &variant.ident;
        quote!(#value => ::core::option::Option::Some(Self::#ident))
    });
    quote! {
        impl #p::FormChoice for #name {
            fn options() -> ::std::vec::Vec<#p::ChoiceOption> {
                ::std::vec![#(#options),*]
            }

            fn from_choice(__value: &str) -> ::core::option::Option<Self> {
                match __value {
                    #(#arms,)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    }
}

/// A stand-in `FormChoice` for an enum with mistakes.
pub fn choice_fallback(input: &ChoiceInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let p = input.krate.private();
    let name = &input.ident;
    quote! {
        #[allow(unreachable_code, unused_variables)]
        impl #p::FormChoice for #name {
            fn options() -> ::std::vec::Vec<#p::ChoiceOption> {
                ::core::unreachable!("this choice enum did not compile")
            }
            fn from_choice(__value: &str) -> ::core::option::Option<Self> {
                ::core::unreachable!("this choice enum did not compile")
            }
        }
    }
}
