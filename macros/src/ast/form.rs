//! `#[derive(Form)]` and `#[derive(FormChoice)]` inputs, read into models: a struct's fields
//! with their `#[form(...)]` options, an enum's choices.

use proc_macro2::Span;
use syn::{Data, DeriveInput, Expr, ExprLit, ExprUnary, Fields, Ident, Lit, LitStr, Type, UnOp, Visibility};

use super::args::Args;
use crate::docs::doc_text;
use crate::errors::Errors;
use crate::krate::Krate;

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

/// The kinds of field a length option applies to, as the runtime's `FieldKind` names its
/// checks.
#[derive(Clone, Copy)]
pub enum Applies {
    Text,
    Multi,
}

/// A `default = ...` literal, by what kind of field it fits.
#[derive(Clone, Copy)]
pub enum DefaultKind {
    Text,
    Boolean,
    Number,
    List,
}

/// One field of a form.
pub struct FormFieldInput {
    pub ident: Ident,
    pub ty: Type,
    pub title: Option<String>,
    pub description: Option<String>,
    pub rename: Option<String>,
    /// `min_length`, `max_length`, `min_items`, `max_items`: key, value, what it applies to.
    pub integers: Vec<(&'static str, u64, Span, Applies)>,
    /// `minimum`, `maximum`.
    pub numbers: Vec<(&'static str, f64, Span)>,
    /// `format = "..."`.
    pub format: Option<LitStr>,
    /// `default = ...`: its kind (`None` when not a literal this can carry), the key and value.
    pub default: Option<(Option<DefaultKind>, Ident, Option<Expr>)>,
}

/// A struct deriving `Form`.
pub struct FormInput {
    pub ident: Ident,
    pub vis: Visibility,
    pub krate: Krate,
    pub generics: syn::Generics,
    pub rename_all: Option<String>,
    /// Its named fields; `None` when it is not a struct with named fields.
    pub fields: Option<Vec<FormFieldInput>>,
    /// Whether it is an enum (for the message).
    pub is_enum: bool,
}

/// One `#[form(...)]` on an item, or none; a second one is a mistake.
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

/// The container's `#[form(rename_all = ..., crate = ...)]`.
fn container(attrs: &[syn::Attribute], errors: &mut Errors) -> (Krate, Option<String>) {
    match form_args(attrs, errors) {
        Some(mut args) => {
            let krate = args.krate(errors);
            let case = args.case("rename_all", errors);
            args.finish("form", &["rename_all", "crate"], errors);
            (krate, case)
        }
        None => (Krate::default(), None),
    }
}

/// A number attribute (`minimum = -1.5`).
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

fn default_kind(value: &Option<Expr>) -> Option<DefaultKind> {
    match value {
        Some(Expr::Lit(ExprLit { lit: Lit::Str(_), .. })) => Some(DefaultKind::Text),
        Some(Expr::Lit(ExprLit { lit: Lit::Bool(_), .. })) => Some(DefaultKind::Boolean),
        Some(Expr::Lit(ExprLit { lit: Lit::Int(_) | Lit::Float(_), .. })) | Some(Expr::Unary(_)) => {
            Some(DefaultKind::Number)
        }
        Some(Expr::Array(syn::ExprArray { elems, .. }))
            if elems.iter().all(|e| matches!(e, Expr::Lit(ExprLit { lit: Lit::Str(_), .. }))) =>
        {
            Some(DefaultKind::List)
        }
        _ => None,
    }
}

fn field(field: &syn::Field, errors: &mut Errors) -> FormFieldInput {
    let mut input = FormFieldInput {
        ident: field.ident.clone().expect("named fields"),
        ty: field.ty.clone(),
        title: None,
        description: doc_text(&field.attrs),
        rename: None,
        integers: Vec::new(),
        numbers: Vec::new(),
        format: None,
        default: None,
    };
    let Some(mut args) = form_args(&field.attrs, errors) else { return input };
    input.title = args.string("title", errors).map(|s| s.value());
    if let Some(d) = args.string("description", errors) {
        input.description = Some(d.value());
    }
    input.rename = args.string("rename", errors).map(|s| s.value());
    for (key, applies) in [
        ("min_length", Applies::Text),
        ("max_length", Applies::Text),
        ("min_items", Applies::Multi),
        ("max_items", Applies::Multi),
    ] {
        let span = args.peek(key).map(|(k, _)| k.span());
        if let (Some(value), Some(span)) = (args.integer(key, errors), span) {
            input.integers.push((key, value, span, applies));
        }
    }
    for key in ["minimum", "maximum"] {
        if let Some((value, span)) = number_key(&mut args, key, errors) {
            input.numbers.push((key, value, span));
        }
    }
    input.format = args.string("format", errors);
    input.default = args.raw("default").map(|(key, value)| (default_kind(&value), key, value));
    args.finish("form", FIELD_KEYS, errors);
    input
}

impl FormInput {
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> FormInput {
        let (krate, rename_all) = container(&input.attrs, errors);
        let fields = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => Some(named.named.iter().map(|f| field(f, errors)).collect()),
                _ => None,
            },
            _ => None,
        };
        FormInput {
            ident: input.ident.clone(),
            vis: input.vis.clone(),
            krate,
            generics: input.generics.clone(),
            rename_all,
            fields,
            is_enum: matches!(input.data, Data::Enum(_)),
        }
    }
}

/// One choice of a `FormChoice` enum.
pub struct ChoiceVariant {
    pub ident: Ident,
    pub title: Option<String>,
    pub rename: Option<String>,
    /// The fields, when the variant (wrongly) has some.
    pub fields: Option<Fields>,
}

/// An enum deriving `FormChoice`.
pub struct ChoiceInput {
    pub ident: Ident,
    pub krate: Krate,
    pub generics: syn::Generics,
    pub rename_all: Option<String>,
    /// The variants; `None` when it is not an enum.
    pub variants: Option<Vec<ChoiceVariant>>,
}

impl ChoiceInput {
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> ChoiceInput {
        let (krate, rename_all) = container(&input.attrs, errors);
        let variants = match &input.data {
            Data::Enum(data) => Some(
                data.variants
                    .iter()
                    .map(|variant| {
                        let mut choice = ChoiceVariant {
                            ident: variant.ident.clone(),
                            title: None,
                            rename: None,
                            fields: (!matches!(variant.fields, Fields::Unit)).then(|| variant.fields.clone()),
                        };
                        if let Some(mut args) = form_args(&variant.attrs, errors) {
                            choice.title = args.string("title", errors).map(|s| s.value());
                            choice.rename = args.string("rename", errors).map(|s| s.value());
                            args.finish("form", &["title", "rename"], errors);
                        }
                        choice
                    })
                    .collect(),
            ),
            _ => None,
        };
        ChoiceInput { ident: input.ident.clone(), krate, generics: input.generics.clone(), rename_all, variants }
    }
}
