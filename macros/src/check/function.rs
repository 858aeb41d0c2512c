//! What a handler function cannot be, whichever macro is on it: each mistake reported at the
//! tokens that make it, with what would work instead.

use syn::{GenericArgument, PathArguments, Type};

use crate::ast::function::Function;
use crate::errors::Errors;

/// Checks the signature, the parameters and the return type of a `#[tool]`, `#[resource]` or
/// `#[prompt]` function (`what` names the attribute).
pub fn check(function: &Function, what: &str, errors: &mut Errors) {
    let sig = &function.signature;
    if let Some(c) = &sig.constness {
        errors.error(c.span, format!("a #[{what}] function cannot be `const`"));
    }
    if let Some(u) = &sig.unsafety {
        errors.error(u.span, format!("a #[{what}] function cannot be `unsafe`"));
    }
    if let Some(abi) = &sig.abi {
        errors.error_spanned(abi, format!("a #[{what}] function cannot have an ABI"));
    }
    if let Some(v) = &sig.variadic {
        errors.error_spanned(v, format!("a #[{what}] function cannot be variadic"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.error_spanned(
            &sig.generics,
            format!(
                "a #[{what}] function cannot be generic: clients call it with JSON, so every type must be known; use \
                 concrete types"
            ),
        );
    }
    if let Some(receiver) = &function.receiver {
        errors.error_spanned(
            receiver,
            format!(
                "#[{what}] goes on free functions, not methods: move it out of the impl block and take what you need \
                 as parameters (shared state arrives as State<T>)"
            ),
        );
    }
    for param in &function.params {
        check_owned(&param.ty, errors, what);
    }
    if let Some(output) = &function.written_output {
        check_return(output, errors, what);
    }
}

fn check_owned(ty: &Type, errors: &mut Errors, what: &str) {
    match ty {
        Type::Reference(r) => errors.error_spanned(
            r,
            format!("#[{what}] parameters must be owned values: use `String` for `&str`, `Vec<T>` for `&[T]`"),
        ),
        Type::ImplTrait(t) => {
            errors.error_spanned(t, format!("#[{what}] parameters need a concrete type, not `impl Trait`"))
        }
        Type::Infer(t) => errors.error_spanned(t, "write the parameter's type"),
        Type::Paren(p) => check_owned(&p.elem, errors, what),
        Type::Group(g) => check_owned(&g.elem, errors, what),
        Type::Array(a) => check_owned(&a.elem, errors, what),
        Type::Slice(s) => check_owned(&s.elem, errors, what),
        Type::Tuple(t) => t.elems.iter().for_each(|e| check_owned(e, errors, what)),
        Type::Path(p) => {
            for segment in &p.path.segments {
                if let PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        match arg {
                            GenericArgument::Type(t) => check_owned(t, errors, what),
                            GenericArgument::Lifetime(l) => errors.error_spanned(
                                l,
                                format!("#[{what}] parameters must be owned values without lifetimes"),
                            ),
                            _ => {}
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

fn check_return(ty: &Type, errors: &mut Errors, what: &str) {
    match ty {
        Type::ImplTrait(t) => errors.error_spanned(
            t,
            format!(
                "a #[{what}] function must name its return type; use `async fn` instead of returning `impl Future`"
            ),
        ),
        Type::Reference(r) if !matches!(&r.lifetime, Some(l) if l.ident == "static") => {
            errors.error_spanned(r, format!("a #[{what}] function must return an owned value (or `&'static str`)"))
        }
        _ => {}
    }
}
