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
use syn::ItemFn;

mod attr;
mod case;
mod docs;
mod errors;
mod prompt;
mod resource;
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
