//! What a form or a choice enum cannot be: generic, the wrong shape, two fields or choices of
//! one name, a format or default form mode does not have.

use syn::ext::IdentExt as _;

use crate::ast::form::{ChoiceInput, FormFieldInput, FormInput};
use crate::errors::Errors;

/// The formats form mode knows, by the name `format = "..."` gives them.
pub const FORMATS: [(&str, &str); 4] =
    [("email", "Email"), ("uri", "Uri"), ("date", "Date"), ("date-time", "DateTime")];

/// The name a field has in the form.
pub fn wire_name(field: &FormFieldInput, rename_all: Option<&str>) -> String {
    match (&field.rename, rename_all) {
        (Some(rename), _) => rename.clone(),
        (None, Some(case)) => {
            crate::case::rename(&field.ident.to_string(), case).unwrap_or_else(|| field.ident.to_string())
        }
        (None, None) => field.ident.unraw().to_string(),
    }
}

pub fn form(input: &FormInput, errors: &mut Errors) {
    if !input.generics.params.is_empty() {
        errors.error_spanned(&input.generics, "a form cannot be generic: its schema is fixed when it is sent");
    }
    let Some(fields) = &input.fields else {
        let message = if input.is_enum {
            "#[derive(Form)] goes on a struct with named fields; use #[derive(FormChoice)] on enums"
        } else {
            "a form is a struct with named fields: each becomes a form field"
        };
        errors.error(input.ident.span(), message);
        return;
    };
    let mut seen = std::collections::HashSet::new();
    for field in fields {
        if let Some(format) = &field.format
            && !FORMATS.iter().any(|(name, _)| *name == format.value())
        {
            errors.error(
                format.span(),
                format!("unknown format `{}`; form mode knows email, uri, date and date-time", format.value()),
            );
        }
        if let Some((None, key, _)) = &field.default {
            errors.error(key.span(), "`default` takes a literal: \"text\", true, 42 or [\"a\", \"b\"]");
        }
        let wire = wire_name(field, input.rename_all.as_deref());
        if !seen.insert(wire.clone()) {
            errors.error(field.ident.span(), format!("two fields are both named `{wire}` in the form"));
        }
    }
}

/// The value each choice has on the wire.
pub fn choice_value(variant: &crate::ast::form::ChoiceVariant, rename_all: Option<&str>) -> String {
    match (&variant.rename, rename_all) {
        (Some(rename), _) => rename.clone(),
        (None, Some(case)) => crate::case::rename_variant(&variant.ident.to_string(), case),
        (None, None) => variant.ident.to_string(),
    }
}

pub fn choice(input: &ChoiceInput, errors: &mut Errors) {
    if !input.generics.params.is_empty() {
        errors.error_spanned(&input.generics, "a choice enum cannot be generic");
    }
    let Some(variants) = &input.variants else {
        errors.error(input.ident.span(), "#[derive(FormChoice)] goes on an enum of unit variants, one per choice");
        return;
    };
    if variants.is_empty() {
        errors.error(input.ident.span(), "a choice enum needs at least one variant");
    }
    let mut seen = std::collections::HashSet::new();
    for variant in variants {
        if let Some(fields) = &variant.fields {
            errors.error_spanned(fields, "choices are unit variants: a choice carries no data");
            continue;
        }
        let value = choice_value(variant, input.rename_all.as_deref());
        if !seen.insert(value.clone()) {
            errors.error(variant.ident.span(), format!("two choices have the value `{value}`"));
        }
    }
}
