//! `#[derive(Rounds)]` input, read into a model: each variant a round, each field either data
//! the round carries or an `#[answer]` to what it asks.

use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Type, Visibility};

use super::args::Args;
use crate::errors::Errors;
use crate::krate::Krate;

/// One field of a round.
pub struct RoundField {
    pub ident: Ident,
    pub ty: Type,
    /// `#[answer]`, with its key (the field's name unless `key = "..."` says).
    pub answer: Option<LitStr>,
    /// Whether some other attribute sits on the field (a misspelt `#[answer]`, which the
    /// compiler reports itself).
    pub has_unknown_attribute: bool,
}

/// One round.
pub struct RoundVariant {
    pub ident: Ident,
    /// `#[round(single_use = ...)]`.
    pub single_use: Option<bool>,
    /// Its named fields; `None` for a tuple or unit variant.
    pub fields: Option<Vec<RoundField>>,
    /// The variant as written, for spans.
    pub variant: syn::Variant,
}

/// An enum deriving `Rounds`.
pub struct RoundsInput {
    pub ident: Ident,
    pub vis: Visibility,
    pub krate: Krate,
    pub generics: syn::Generics,
    /// The rounds; `None` when it is not an enum.
    pub variants: Option<Vec<RoundVariant>>,
}

fn list_args(attr: &Attribute, errors: &mut Errors) -> Option<Args> {
    match attr.meta.require_list() {
        Ok(list) => Some(Args::parse(list.tokens.clone(), errors)),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

fn round_field(field: &syn::Field, errors: &mut Errors) -> RoundField {
    let ident = field.ident.clone().expect("named fields");
    let mut answer = None;
    let mut has_unknown_attribute = false;
    for attr in &field.attrs {
        if attr.path().is_ident("answer") {
            let mut key = LitStr::new(&ident.to_string(), ident.span());
            if let syn::Meta::List(list) = &attr.meta {
                let mut args = Args::parse(list.tokens.clone(), errors);
                if let Some(lit) = args.string("key", errors) {
                    key = lit;
                }
                args.finish("answer", &["key"], errors);
            }
            answer = Some(key);
        } else if !attr.path().is_ident("doc") {
            has_unknown_attribute = true;
        }
    }
    RoundField { ident, ty: field.ty.clone(), answer, has_unknown_attribute }
}

impl RoundsInput {
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> RoundsInput {
        let mut krate = Krate::default();
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("rounds")) {
            if let Some(mut args) = list_args(attr, errors) {
                krate = args.krate(errors);
                args.finish("rounds", &["crate"], errors);
            }
        }
        let variants = match &input.data {
            Data::Enum(data) => Some(
                data.variants
                    .iter()
                    .map(|variant| {
                        let mut single_use = None;
                        for attr in variant.attrs.iter().filter(|a| a.path().is_ident("round")) {
                            if let Some(mut args) = list_args(attr, errors) {
                                if let Some((value, _)) = args.flag("single_use", errors) {
                                    single_use = Some(value);
                                }
                                args.finish("round", &["single_use"], errors);
                            }
                        }
                        let fields = match &variant.fields {
                            Fields::Named(named) => Some(named.named.iter().map(|f| round_field(f, errors)).collect()),
                            _ => None,
                        };
                        RoundVariant { ident: variant.ident.clone(), single_use, fields, variant: variant.clone() }
                    })
                    .collect(),
            ),
            _ => None,
        };
        RoundsInput {
            ident: input.ident.clone(),
            vis: input.vis.clone(),
            krate,
            generics: input.generics.clone(),
            variants,
        }
    }
}
