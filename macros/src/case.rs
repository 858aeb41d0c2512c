//! `rename_all`, as serde spells its cases.

/// The cases `rename_all` accepts.
pub const CASES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "camelCase",
    "PascalCase",
    "snake_case",
    "kebab-case",
    "SCREAMING_SNAKE_CASE",
    "SCREAMING-KEBAB-CASE",
];

/// Renames a snake_case Rust identifier into `case`; `None` for an unknown case.
pub fn rename(ident: &str, case: &str) -> Option<String> {
    let words: Vec<&str> = ident.split('_').filter(|w| !w.is_empty()).collect();
    let capitalized = |w: &&str| {
        let mut chars = w.chars();
        chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
    };
    Some(match case {
        "lowercase" => ident.to_ascii_lowercase(),
        "UPPERCASE" => ident.to_ascii_uppercase(),
        "camelCase" => {
            words.iter().enumerate().map(|(i, w)| if i == 0 { (*w).to_owned() } else { capitalized(w) }).collect()
        }
        "PascalCase" => words.iter().map(capitalized).collect(),
        "snake_case" => ident.to_owned(),
        "kebab-case" => words.join("-"),
        "SCREAMING_SNAKE_CASE" => ident.to_ascii_uppercase(),
        "SCREAMING-KEBAB-CASE" => words.join("-").to_ascii_uppercase(),
        _ => return None,
    })
}

/// Renames a PascalCase variant into `case` (the variant's own spelling for an unknown case).
pub fn rename_variant(variant: &str, case: &str) -> String {
    let mut snake = String::new();
    for (i, c) in variant.char_indices() {
        if c.is_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.extend(c.to_lowercase());
    }
    match case {
        "PascalCase" => variant.to_owned(),
        // As serde does: the variant's letters, without word breaks.
        "lowercase" => variant.to_ascii_lowercase(),
        "UPPERCASE" => variant.to_ascii_uppercase(),
        _ => rename(&snake, case).unwrap_or_else(|| variant.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_spell_as_serde_does() {
        let expect = [
            ("lowercase", "max_items", "inactive"),
            ("UPPERCASE", "MAX_ITEMS", "INACTIVE"),
            ("camelCase", "maxItems", "inActive"),
            ("PascalCase", "MaxItems", "InActive"),
            ("snake_case", "max_items", "in_active"),
            ("kebab-case", "max-items", "in-active"),
            ("SCREAMING_SNAKE_CASE", "MAX_ITEMS", "IN_ACTIVE"),
            ("SCREAMING-KEBAB-CASE", "MAX-ITEMS", "IN-ACTIVE"),
        ];
        for (case, field, variant) in expect {
            assert_eq!(rename("max_items", case).unwrap(), field, "{case}");
            assert_eq!(rename_variant("InActive", case), variant, "{case}");
        }
        assert_eq!(rename("x", "camel"), None);
        assert_eq!(CASES.len(), expect.len());
    }
}
