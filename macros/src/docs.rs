//! Doc comments, which become descriptions.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `///` comments in `attrs`, with the one leading space of each line removed,
/// or `None` when there are none.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|chunk| {
            chunk.split('\n').map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_owned()).collect::<Vec<_>>()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// True for `#[doc = ...]`.
pub fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}
