//! Every error of one macro invocation, collected rather than stopping at the first, each with
//! the span of the tokens it is about.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Collected errors.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds an error.
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Adds an error at a span.
    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Adds an error covering some tokens.
    pub fn error_spanned(&mut self, tokens: &dyn ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// True when nothing went wrong.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The errors as `compile_error!` invocations.
    pub fn into_compile_errors(self) -> TokenStream {
        self.0.map(|e| e.to_compile_error()).unwrap_or_default()
    }
}
