//! What rounds cannot be: generic, not an enum, a round without named fields or without an
//! answer, two answers under one key.

use crate::ast::rounds::RoundsInput;
use crate::errors::Errors;

pub fn check(input: &RoundsInput, errors: &mut Errors) {
    if !input.generics.params.is_empty() {
        errors.error_spanned(&input.generics, "rounds cannot be generic: the state names a round and its data");
    }
    let Some(variants) = &input.variants else {
        errors.error(input.ident.span(), "#[derive(Rounds)] goes on an enum: each variant is one round of the tool");
        return;
    };
    if variants.is_empty() {
        errors.error(input.ident.span(), "a tool with rounds needs at least one round (variant)");
    }
    for variant in variants {
        let round = variant.ident.to_string();
        let Some(fields) = &variant.fields else {
            errors.error_spanned(
                &variant.variant,
                "a round is a variant with named fields: the data it carries, and #[answer] fields for what it asks",
            );
            continue;
        };
        let mut keys = std::collections::HashSet::new();
        for field in fields {
            if let Some(key) = &field.answer
                && !keys.insert(key.value())
            {
                errors
                    .error(field.ident.span(), format!("two answers of round `{round}` use the key `{}`", key.value()));
            }
        }
        // A misspelt #[answer] is the compiler's to report ("cannot find attribute"); saying
        // the round asks nothing as well would be the same mistake twice.
        let misspelt = fields.iter().any(|f| f.has_unknown_attribute);
        if keys.is_empty() && !misspelt {
            errors.error(
                variant.ident.span(),
                format!("round `{round}` asks nothing: mark the fields that receive answers with #[answer]"),
            );
        }
    }
}
