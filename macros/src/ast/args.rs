//! The arguments of an attribute (`#[tool(name = "x", read_only)]`), parsed into keys with
//! spans and read one typed key at a time, so that every mistake is reported where it was
//! made and whatever nobody read is an unknown key.

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Path, Token};

use crate::errors::Errors;
use crate::krate::Krate;

/// One `key`, `key = value` or leading string literal.
pub enum Item {
    /// `key` or `key = value`.
    Key { key: Ident, value: Option<Expr> },
    /// A bare string literal (the URI of `#[resource("...")]`).
    Literal(LitStr),
}

impl Parse for Item {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(LitStr) {
            return Ok(Item::Literal(input.parse()?));
        }
        let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else if input.peek(syn::token::Paren) {
            // `key("a", "b")`: kept as an array, which `Args::list` reads.
            let content;
            let paren = syn::parenthesized!(content in input);
            let elems = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
            let bracket_token = syn::token::Bracket(paren.span);
            Some(Expr::Array(syn::ExprArray { attrs: Vec::new(), bracket_token, elems }))
        } else {
            None
        };
        Ok(Item::Key { key, value })
    }
}

/// The parsed arguments, consumed key by key; whatever is left is unknown.
pub struct Args {
    literal: Option<LitStr>,
    keys: Vec<(Ident, Option<Expr>)>,
}

impl Args {
    /// Parses attribute arguments, reporting duplicated keys.
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> Args {
        let items = match Punctuated::<Item, Token![,]>::parse_terminated.parse2(tokens) {
            Ok(items) => items,
            Err(e) => {
                errors.push(e);
                return Args { literal: None, keys: Vec::new() };
            }
        };
        let mut literal = None;
        let mut keys: Vec<(Ident, Option<Expr>)> = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Item::Literal(lit) if i == 0 => literal = Some(lit),
                Item::Literal(lit) => errors.error(lit.span(), "a string literal is only allowed first"),
                Item::Key { key, value } => {
                    if keys.iter().any(|(k, _)| *k == key) {
                        errors.error(key.span(), format!("`{key}` is given twice"));
                    } else {
                        keys.push((key, value));
                    }
                }
            }
        }
        Args { literal, keys }
    }

    /// The leading string literal, if any.
    pub fn literal(&mut self) -> Option<LitStr> {
        self.literal.take()
    }

    /// `key` or `key = <anything>`, for callers that read the value themselves.
    pub fn raw(&mut self, name: &str) -> Option<(Ident, Option<Expr>)> {
        self.take(name)
    }

    /// The key, if given, without taking it.
    pub fn peek(&self, name: &str) -> Option<&(Ident, Option<Expr>)> {
        self.keys.iter().find(|(k, _)| k == name)
    }

    fn take(&mut self, name: &str) -> Option<(Ident, Option<Expr>)> {
        let i = self.keys.iter().position(|(k, _)| k == name)?;
        Some(self.keys.remove(i))
    }

    /// `key = "text"`.
    pub fn string(&mut self, name: &str, errors: &mut Errors) -> Option<LitStr> {
        let (key, value) = self.take(name)?;
        match value {
            Some(Expr::Lit(ExprLit { lit: Lit::Str(s), .. })) => Some(s),
            Some(other) => {
                errors.error_spanned(&other, format!("`{name}` takes a string literal: {name} = \"...\""));
                None
            }
            None => {
                errors.error(key.span(), format!("`{name}` needs a value: {name} = \"...\""));
                None
            }
        }
    }

    /// `key` (true) or `key = true|false`.
    pub fn flag(&mut self, name: &str, errors: &mut Errors) -> Option<(bool, Span)> {
        let (key, value) = self.take(name)?;
        match value {
            None => Some((true, key.span())),
            Some(Expr::Lit(ExprLit { lit: Lit::Bool(b), .. })) => Some((b.value, key.span())),
            Some(other) => {
                errors.error_spanned(&other, format!("`{name}` is a flag: write `{name}` or `{name} = false`"));
                None
            }
        }
    }

    /// `key("a", "b")`: one or more string literals, each passing `check` (which says what is
    /// wrong with one), none twice.
    pub fn list(
        &mut self,
        name: &str,
        check: impl Fn(&str) -> Option<String>,
        errors: &mut Errors,
    ) -> Option<Vec<LitStr>> {
        let (key, value) = self.take(name)?;
        let help = format!("`{name}` takes a list of strings: {name}(\"a\", \"b\")");
        let Some(Expr::Array(array)) = value else {
            match value {
                Some(other) => errors.error_spanned(&other, help),
                None => errors.error(key.span(), help),
            }
            return None;
        };
        if array.elems.is_empty() {
            errors.error(key.span(), format!("`{name}()` is empty: list at least one, or leave `{name}` out"));
            return None;
        }
        let mut items: Vec<LitStr> = Vec::new();
        for elem in array.elems {
            let Expr::Lit(ExprLit { lit: Lit::Str(lit), .. }) = elem else {
                errors.error_spanned(&elem, format!("{help}; each one a string literal"));
                continue;
            };
            if let Some(problem) = check(&lit.value()) {
                errors.error(lit.span(), problem);
            } else if items.iter().any(|seen| seen.value() == lit.value()) {
                errors.error(lit.span(), format!("{:?} is listed twice", lit.value()));
            } else {
                items.push(lit);
            }
        }
        Some(items)
    }

    /// `scopes("notes:read", ...)`: OAuth scope tokens (RFC 6749 §3.3).
    pub fn scopes(&mut self, errors: &mut Errors) -> Option<Vec<LitStr>> {
        self.list(
            "scopes",
            |scope| {
                (!mcp_rounds_grammar::is_scope_token(scope)).then(|| {
                    format!(
                        "{scope:?} is not an OAuth scope: use {} (list several scopes separately: scopes(\"a\", \"b\"))",
                        mcp_rounds_grammar::SCOPE_RULE
                    )
                })
            },
            errors,
        )
    }

    /// `crate = "path"`: how the user's crate names the runtime (default `::mcp_rounds`).
    pub fn krate(&mut self, errors: &mut Errors) -> Krate {
        match self.string("crate", errors) {
            Some(lit) => Krate::from_lit(&lit, errors),
            None => Krate::default(),
        }
    }

    /// `key = 123`.
    pub fn integer(&mut self, name: &str, errors: &mut Errors) -> Option<u64> {
        let (key, value) = self.take(name)?;
        match value {
            Some(Expr::Lit(ExprLit { lit: Lit::Int(i), .. })) => match i.base10_parse::<u64>() {
                Ok(n) => Some(n),
                Err(e) => {
                    errors.push(e);
                    None
                }
            },
            Some(other) => {
                errors.error_spanned(&other, format!("`{name}` takes a whole number: {name} = 60000"));
                None
            }
            None => {
                errors.error(key.span(), format!("`{name}` needs a value: {name} = 60000"));
                None
            }
        }
    }

    /// `key = some::path`.
    pub fn path(&mut self, name: &str, errors: &mut Errors) -> Option<(Ident, Path)> {
        let (key, value) = self.take(name)?;
        match value {
            Some(Expr::Path(p)) if p.qself.is_none() => Some((key, p.path)),
            Some(other) => {
                errors.error_spanned(&other, format!("`{name}` takes the path of a function: {name} = my_function"));
                None
            }
            None => {
                errors.error(key.span(), format!("`{name}` needs a value: {name} = my_function"));
                None
            }
        }
    }

    /// `rename_all = "camelCase"`, checked against the cases serde knows.
    pub fn case(&mut self, name: &str, errors: &mut Errors) -> Option<String> {
        let lit = self.string(name, errors)?;
        let case = lit.value();
        if crate::case::rename("a_b", &case).is_none() {
            errors.error(
                lit.span(),
                format!("unknown case `{case}`; expected one of: {}", crate::case::CASES.join(", ")),
            );
            return None;
        }
        Some(case)
    }

    /// Reports every key nobody took.
    pub fn finish(self, attribute: &str, known: &[&str], errors: &mut Errors) {
        for (key, _) in self.keys {
            errors.error(
                key.span(),
                format!("unknown key `{key}` in #[{attribute}]; expected one of: {}", known.join(", ")),
            );
        }
    }
}
