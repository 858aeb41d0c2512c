//! Procedural macros for [`mcp-rounds`](https://docs.rs/mcp-rounds).
//!
//! Depend on `mcp-rounds`, not on this crate: the runtime re-exports every macro, documents
//! them with examples, and the generated code reaches its dependencies through the runtime's
//! hidden re-exports.
//!
//! Each macro reads the function into a small model (`signature::Function`), checks it and
//! its attribute, reporting every problem at the tokens it concerns, and only then expands. A
//! function with errors still expands to a stand-in item, so one mistake gives one error.

use proc_macro::TokenStream;
use quote::quote;
use syn::{DeriveInput, ItemFn, parse_macro_input};

mod attr;
mod case;
mod docs;
mod errors;
mod form;
mod prompt;
mod resource;
mod rounds;
mod signature;
mod template;
mod tool;

fn on_function(
    attr: TokenStream,
    item: TokenStream,
    attribute: &str,
    expand: fn(proc_macro2::TokenStream, ItemFn) -> proc_macro2::TokenStream,
) -> TokenStream {
    match syn::parse::<ItemFn>(item.clone()) {
        Ok(function) => expand(attr.into(), function).into(),
        Err(_) => {
            let message = format!("#[{attribute}] goes on a function");
            let item = proc_macro2::TokenStream::from(item);
            quote!(::core::compile_error!(#message); #item).into()
        }
    }
}

/// Makes a plain function an MCP tool. Documented in `mcp_rounds::tool`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    on_function(attr, item, "tool", tool::expand)
}

/// Makes a plain function an MCP resource. Documented in `mcp_rounds::resource`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    on_function(attr, item, "resource", resource::expand)
}

/// Makes a plain function an MCP prompt. Documented in `mcp_rounds::prompt`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    on_function(attr, item, "prompt", prompt::expand)
}

/// Describes a struct as a form-mode elicitation. Documented in `mcp_rounds::Form`.
#[proc_macro_derive(Form, attributes(form))]
pub fn derive_form(input: TokenStream) -> TokenStream {
    form::expand_form(parse_macro_input!(input as DeriveInput)).into()
}

/// Makes a unit-variant enum the choices of a form field. Documented in `mcp_rounds::FormChoice`.
#[proc_macro_derive(FormChoice, attributes(form))]
pub fn derive_form_choice(input: TokenStream) -> TokenStream {
    form::expand_form_choice(parse_macro_input!(input as DeriveInput)).into()
}

/// Makes an enum the rounds of a multi-round tool. Documented in `mcp_rounds::Rounds`.
#[proc_macro_derive(Rounds, attributes(round, answer))]
pub fn derive_rounds(input: TokenStream) -> TokenStream {
    rounds::expand(parse_macro_input!(input as DeriveInput)).into()
}
