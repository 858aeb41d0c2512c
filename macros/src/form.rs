//! `#[derive(Form)]` and `#[derive(FormChoice)]`: plain structs and enums as form-mode
//! elicitation schemas.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Expr, ExprArray, ExprLit, ExprUnary, Fields, Lit, UnOp};

use crate::attr::Args;
use crate::docs::doc_text;
use crate::errors::Errors;

const FIELD_KEYS: &[&str] = &[
    "title",
    "description",
    "rename",
    "min_length",
    "max_length",
    "format",
    "minimum",
    "maximum",
    "min_items",
    "max_items",
    "default",
];

fn form_args(attrs: &[syn::Attribute], errors: &mut Errors) -> Option<Args> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("form")) {
        match attr.meta.require_list() {
            Ok(list) if found.is_none() => found = Some(Args::parse(list.tokens.clone(), errors)),
            Ok(_) => errors.error_spanned(attr, "one #[form(...)] per item; put every key in it"),
            Err(e) => errors.push(e),
        }
    }
    found
}

/// A number attribute (`minimum = -1.5`), as f64 tokens.
fn number_key(args: &mut Args, name: &str, errors: &mut Errors) -> Option<(f64, Span)> {
    let (key, value) = args.raw(name)?;
    let parse = |expr: &Expr| -> Option<f64> {
        match expr {
            Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<f64>().ok(),
            Expr::Lit(ExprLit { lit: Lit::Float(f), .. }) => f.base10_parse::<f64>().ok(),
            Expr::Unary(ExprUnary { op: UnOp::Neg(_), expr, .. }) => match &**expr {
                Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<f64>().ok().map(|v| -v),
                Expr::Lit(ExprLit { lit: Lit::Float(f), .. }) => f.base10_parse::<f64>().ok().map(|v| -v),
                _ => None,
            },
            _ => None,
        }
    };
    match value.as_ref().and_then(parse) {
        Some(n) => Some((n, key.span())),
        None => {
            errors.error(key.span(), format!("`{name}` takes a number: {name} = 10"));
            None
        }
    }
}

enum DefaultKind {
    Text,
    Boolean,
    Number,
    List,
}

/// Expands `#[derive(Form)]`.
pub fn expand_form(input: DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        errors.error_spanned(&input.generics, "a form cannot be generic: its schema is fixed when it is sent");
    }
    let rename_all = form_args(&input.attrs, &mut errors).and_then(|mut args| {
        let case = args.case("rename_all", &mut errors);
        args.finish("form", &["rename_all"], &mut errors);
        case
    });
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named.named.iter().collect::<Vec<_>>(),
            _ => {
                errors.error(name.span(), "a form is a struct with named fields: each becomes a form field");
                Vec::new()
            }
        },
        _ => {
            errors.error(
                name.span(),
                "#[derive(Form)] goes on a struct with named fields; use #[derive(FormChoice)] on enums",
            );
            Vec::new()
        }
    };

    let mut schema_fields = Vec::new();
    let mut take_fields = Vec::new();
    let mut key_fields = Vec::new();
    let mut key_values = Vec::new();
    let mut checks = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for field in &fields {
        let ident = field.ident.as_ref().expect("named fields");
        let ty = &field.ty;
        let ty_span = ty.span();
        let mut args = form_args(&field.attrs, &mut errors);
        let mut description = doc_text(&field.attrs);
        let mut title = None;
        let mut rename = None;
        let mut options = Vec::new();
        if let Some(args) = &mut args {
            title = args.string("title", &mut errors).map(|s| s.value());
            if let Some(d) = args.string("description", &mut errors) {
                description = Some(d.value());
            }
            rename = args.string("rename", &mut errors).map(|s| s.value());
            for (key, check, what) in [
                ("min_length", quote!(is_text), "text"),
                ("max_length", quote!(is_text), "text"),
                ("min_items", quote!(is_multi), "several-choice"),
                ("max_items", quote!(is_multi), "several-choice"),
            ] {
                if let Some((key_ident, _)) = args.peek(key) {
                    let span = key_ident.span();
                    let message = format!("`{key}` applies to {what} fields only");
                    checks.push(quote_spanned! {span=>
                        ::core::assert!(<#ty as ::mcp_rounds::__private::FormField>::KIND.#check(), #message);
                    });
                }
                if let Some(value) = args.integer(key, &mut errors) {
                    let field_name = format_ident!("{}", key);
                    options.push(quote!(#field_name: ::core::option::Option::Some(#value)));
                }
            }
            for key in ["minimum", "maximum"] {
                if let Some((value, span)) = number_key(args, key, &mut errors) {
                    let message = format!("`{key}` applies to number fields only");
                    checks.push(quote_spanned! {span=>
                        ::core::assert!(<#ty as ::mcp_rounds::__private::FormField>::KIND.is_numeric(), #message);
                    });
                    let field_name = format_ident!("{}", key);
                    options.push(quote!(#field_name: ::core::option::Option::Some(#value)));
                }
            }
            if let Some(format) = args.string("format", &mut errors) {
                let variant = match format.value().as_str() {
                    "email" => Some(quote!(Email)),
                    "uri" => Some(quote!(Uri)),
                    "date" => Some(quote!(Date)),
                    "date-time" => Some(quote!(DateTime)),
                    other => {
                        errors.error(
                            format.span(),
                            format!("unknown format `{other}`; form mode knows email, uri, date and date-time"),
                        );
                        None
                    }
                };
                if let Some(variant) = variant {
                    let span = format.span();
                    checks.push(quote_spanned! {span=>
                        ::core::assert!(<#ty as ::mcp_rounds::__private::FormField>::KIND.is_text(), "`format` applies to text fields only");
                    });
                    options.push(
                        quote!(format: ::core::option::Option::Some(::mcp_rounds::__private::StringFormat::#variant)),
                    );
                }
            }
            if let Some((key, value)) = args.raw("default") {
                let kind = match &value {
                    Some(Expr::Lit(ExprLit { lit: Lit::Str(_), .. })) => Some(DefaultKind::Text),
                    Some(Expr::Lit(ExprLit { lit: Lit::Bool(_), .. })) => Some(DefaultKind::Boolean),
                    Some(Expr::Lit(ExprLit { lit: Lit::Int(_) | Lit::Float(_), .. })) | Some(Expr::Unary(_)) => {
                        Some(DefaultKind::Number)
                    }
                    Some(Expr::Array(ExprArray { elems, .. }))
                        if elems.iter().all(|e| matches!(e, Expr::Lit(ExprLit { lit: Lit::Str(_), .. }))) =>
                    {
                        Some(DefaultKind::List)
                    }
                    _ => {
                        errors.error(key.span(), "`default` takes a literal: \"text\", true, 42 or [\"a\", \"b\"]");
                        None
                    }
                };
                if let (Some(kind), Some(value)) = (kind, value) {
                    let span = key.span();
                    let (check, what) = match kind {
                        DefaultKind::Text => (
                            quote!(matches!(<#ty as ::mcp_rounds::__private::FormField>::KIND,
                                ::mcp_rounds::__private::FieldKind::Text | ::mcp_rounds::__private::FieldKind::Choice)),
                            "a text default fits text and choice fields only",
                        ),
                        DefaultKind::Boolean => (
                            quote!(
                                matches!(<#ty as ::mcp_rounds::__private::FormField>::KIND, ::mcp_rounds::__private::FieldKind::Boolean)
                            ),
                            "a true/false default fits boolean fields only",
                        ),
                        DefaultKind::Number => (
                            quote!(<#ty as ::mcp_rounds::__private::FormField>::KIND.is_numeric()),
                            "a number default fits number fields only",
                        ),
                        DefaultKind::List => (
                            quote!(<#ty as ::mcp_rounds::__private::FormField>::KIND.is_multi()),
                            "a list default fits several-choice fields only",
                        ),
                    };
                    checks.push(quote_spanned! {span=> ::core::assert!(#check, #what); });
                    options.push(quote!(default: ::core::option::Option::Some(::mcp_rounds::__private::serde_json::json!(#value))));
                }
            }
            args.finish_with("form", FIELD_KEYS, &mut errors);
        }
        let wire = match (&rename, &rename_all) {
            (Some(rename), _) => rename.clone(),
            (None, Some(case)) => crate::case::rename(&ident.to_string(), case).unwrap_or_else(|| ident.to_string()),
            (None, None) => ident.unraw_string(),
        };
        if !seen.insert(wire.clone()) {
            errors.error(ident.span(), format!("two fields are both named `{wire}` in the form"));
        }
        let title = crate::signature::option_str(title.as_deref());
        let description = crate::signature::option_str(description.as_deref());
        schema_fields.push(quote_spanned! {ty_span=>
            <#ty as ::mcp_rounds::__private::FormField>::describe_into(
                &mut __schema,
                #wire,
                &::mcp_rounds::__private::FieldOptions {
                    title: #title,
                    description: #description,
                    #(#options,)*
                    ..::core::default::Default::default()
                },
                __choices,
            )?;
        });
        take_fields.push(quote_spanned! {ty_span=>
            #ident: <#ty as ::mcp_rounds::__private::FormField>::take_from(__content, #wire)?
        });
        key_fields.push(quote!(pub #ident: ::mcp_rounds::__private::FieldKey<#name, #ty>));
        key_values.push(quote!(#ident: ::mcp_rounds::__private::FieldKey::new(#wire)));
    }

    if !errors.is_empty() {
        return errors.into_compile_errors();
    }
    let vis = &input.vis;
    let fields_struct = format_ident!("__{}FormFields", name);
    let field_docs = format!("The fields of [`{name}`], for `FormRequest::choices`.");
    quote! {
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

        impl ::mcp_rounds::__private::Form for #name {
            type Fields = #fields_struct;

            const FIELDS: #fields_struct = <#name>::FIELDS;

            fn requested_schema(
                __choices: &::mcp_rounds::__private::indexmap::IndexMap<&'static str, ::std::vec::Vec<::mcp_rounds::form::ChoiceOption>>,
            ) -> ::core::result::Result<::mcp_rounds::model::RequestedSchema, ::std::string::String> {
                let mut __schema = ::mcp_rounds::__private::SchemaBuilder::default();
                #(#schema_fields)*
                ::core::result::Result::Ok(__schema.finish())
            }

            fn from_content(
                __content: &::mcp_rounds::model::JsonObject,
            ) -> ::core::result::Result<Self, ::mcp_rounds::form::FormViolation> {
                ::core::result::Result::Ok(Self { #(#take_fields,)* })
            }
        }

        const _: () = {
            #(#checks)*
        };
    }
}

/// Expands `#[derive(FormChoice)]`.
pub fn expand_form_choice(input: DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        errors.error_spanned(&input.generics, "a choice enum cannot be generic");
    }
    let rename_all = form_args(&input.attrs, &mut errors).and_then(|mut args| {
        let case = args.case("rename_all", &mut errors);
        args.finish("form", &["rename_all"], &mut errors);
        case
    });
    let Data::Enum(data) = &input.data else {
        errors.error(name.span(), "#[derive(FormChoice)] goes on an enum of unit variants, one per choice");
        return errors.into_compile_errors();
    };
    if data.variants.is_empty() {
        errors.error(name.span(), "a choice enum needs at least one variant");
    }
    let mut options = Vec::new();
    let mut arms = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            errors.error_spanned(&variant.fields, "choices are unit variants: a choice carries no data");
            continue;
        }
        let mut title = None;
        let mut rename = None;
        if let Some(mut args) = form_args(&variant.attrs, &mut errors) {
            title = args.string("title", &mut errors).map(|s| s.value());
            rename = args.string("rename", &mut errors).map(|s| s.value());
            args.finish("form", &["title", "rename"], &mut errors);
        }
        let ident = &variant.ident;
        let value = match (rename, &rename_all) {
            (Some(rename), _) => rename,
            (None, Some(case)) => crate::case::rename_variant(&ident.to_string(), case),
            (None, None) => ident.to_string(),
        };
        if !seen.insert(value.clone()) {
            errors.error(ident.span(), format!("two choices have the value `{value}`"));
        }
        let title = match title {
            Some(t) => quote!(::core::option::Option::Some(::std::string::String::from(#t))),
            None => quote!(::core::option::Option::None),
        };
        options.push(quote! {
            ::mcp_rounds::form::ChoiceOption { value: ::std::string::String::from(#value), title: #title }
        });
        arms.push(quote!(#value => ::core::option::Option::Some(Self::#ident)));
    }
    if !errors.is_empty() {
        return errors.into_compile_errors();
    }
    quote! {
        impl ::mcp_rounds::__private::FormChoice for #name {
            fn options() -> ::std::vec::Vec<::mcp_rounds::form::ChoiceOption> {
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

trait UnrawString {
    fn unraw_string(&self) -> String;
}

impl UnrawString for syn::Ident {
    fn unraw_string(&self) -> String {
        use syn::ext::IdentExt as _;
        self.unraw().to_string()
    }
}
