//! Where generated code finds the runtime: `::mcp_rounds` unless `crate = "..."` names the
//! dependency otherwise, and always through its one hidden module, `__private`, so that the
//! runtime can rearrange its public modules without breaking a single expansion.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::LitStr;

use crate::errors::Errors;

/// The runtime's path, as the user's crate names it.
#[derive(Clone)]
pub struct Krate(TokenStream);

impl Default for Krate {
    fn default() -> Self {
        Krate(quote!(::mcp_rounds))
    }
}

impl Krate {
    /// The path `crate = "..."` gives, or the default when it does not parse.
    pub fn from_lit(lit: &LitStr, errors: &mut Errors) -> Self {
        match lit.parse::<syn::Path>() {
            Ok(path) => Krate(path.into_token_stream()),
            Err(_) => {
                errors.error(
                    lit.span(),
                    format!(
                        "`crate` takes the path of the mcp-rounds dependency, like \"::mcp_rounds\", not {:?}",
                        lit.value()
                    ),
                );
                Krate::default()
            }
        }
    }

    /// `<runtime>::__private`, the one path generated code uses.
    pub fn private(&self) -> TokenStream {
        let krate = &self.0;
        quote!(#krate::__private)
    }
}

/// `tokens`, every one placed at `span`: a path interpolated into `quote_spanned!` keeps its
/// own spans otherwise, and the compiler then points at the macro instead of the user's code.
pub fn respan(tokens: &TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut respanned = proc_macro2::Group::new(group.delimiter(), respan(&group.stream(), span));
                respanned.set_span(span);
                token = proc_macro2::TokenTree::Group(respanned);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// `quote_spanned!` with the runtime's path `p` placed at the same span as the rest.
macro_rules! at {
    ($span:expr, $p:ident => $($tokens:tt)*) => {{
        let __span: ::proc_macro2::Span = $span;
        let $p = $crate::krate::respan(&$p, __span);
        ::quote::quote_spanned! {__span=> $($tokens)*}
    }};
}
