//! Procedural macros for [`mcp-rounds`](https://docs.rs/mcp-rounds).
//!
//! Depend on `mcp-rounds`, not on this crate: the runtime re-exports every macro and documents
//! them with examples.
//!
//! Each macro works in three passes, as `serde_derive` and `thiserror-impl` do:
//!
//! 1. `ast` reads the item into a small model, reporting only what cannot be read;
//! 2. `check` applies every rule to the model, collecting each broken one with the span of
//!    the tokens that break it (all of them, not the first);
//! 3. `expand` generates the code, or, when anything was wrong, the errors and a minimal
//!    stand-in (the function, its marker and trait impls that never run) so that the rest of
//!    the program compiles and each mistake is reported exactly once.
//!
//! Generated code names the runtime only through its hidden `__private` module, at
//! `::mcp_rounds` unless `crate = "..."` says how a renamed dependency is called. The names
//! and templates both crates check follow one grammar, `mcp-rounds-grammar`.

use proc_macro::TokenStream;
use quote::quote;
use syn::{DeriveInput, ItemFn, parse_macro_input};

// First, so that its `at!` is in scope in the modules after it.
#[macro_use]
mod krate;
mod ast;
mod case;
mod check;
mod docs;
mod errors;
mod expand;

use ast::attrs::{PromptAttr, ResourceAttr, ToolAttr};
use ast::function::Function;
use errors::Errors;

/// The item an attribute macro is on, when it is a function.
fn function(item: TokenStream, attribute: &str) -> Result<ItemFn, TokenStream> {
    syn::parse::<ItemFn>(item.clone()).map_err(|_| {
        let message = format!("#[{attribute}] goes on a function");
        let item = proc_macro2::TokenStream::from(item);
        quote!(::core::compile_error!(#message); #item).into()
    })
}

/// Makes a plain function an MCP tool. Documented in `mcp_rounds::tool`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match function(item, "tool") {
        Ok(item) => item,
        Err(error) => return error,
    };
    let mut errors = Errors::default();
    let function = Function::parse(item, "tool", &mut errors);
    let attr = ToolAttr::parse(attr.into(), &mut errors);
    check::function::check(&function, "tool", &mut errors);
    check::handlers::tool(&attr, &function, &mut errors);
    if !errors.is_empty() {
        return expand::handler::fail(&function, &attr.krate.private(), errors).into();
    }
    expand::tool::expand(&attr, &function).into()
}

/// Makes a plain function an MCP resource. Documented in `mcp_rounds::resource`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match function(item, "resource") {
        Ok(item) => item,
        Err(error) => return error,
    };
    let mut errors = Errors::default();
    let function = Function::parse(item, "resource", &mut errors);
    let attr = ResourceAttr::parse(attr.into(), &mut errors);
    check::function::check(&function, "resource", &mut errors);
    let variables = check::handlers::resource(&attr, &function, &mut errors);
    if !errors.is_empty() {
        return expand::handler::fail(&function, &attr.krate.private(), errors).into();
    }
    expand::resource::expand(&attr, &function, &variables).into()
}

/// Makes a plain function an MCP prompt. Documented in `mcp_rounds::prompt`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match function(item, "prompt") {
        Ok(item) => item,
        Err(error) => return error,
    };
    let mut errors = Errors::default();
    let function = Function::parse(item, "prompt", &mut errors);
    let attr = PromptAttr::parse(attr.into(), &mut errors);
    check::function::check(&function, "prompt", &mut errors);
    let name = check::handlers::prompt(&attr, &function, &mut errors);
    if !errors.is_empty() {
        return expand::handler::fail(&function, &attr.krate.private(), errors).into();
    }
    expand::prompt::expand(&attr, &function, &name).into()
}

/// Makes a unit struct (its HTML a file or a literal) or a function (that renders it) an MCP
/// Apps view. Documented in `mcp_rounds::view`.
#[proc_macro_attribute]
pub fn view(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let item = match ast::view::ViewItem::parse(item.into(), &mut errors) {
        Ok(item) => item,
        Err(error) => return error.into(),
    };
    let attr = ast::view::ViewAttr::parse(attr.into(), &mut errors);
    if let ast::view::ViewItem::Function(function) = &item {
        // A view function is a resource at a fixed URI, checked as one.
        check::function::check(function, "view", &mut errors);
        if attr.uri.is_some() {
            check::handlers::resource(&attr.resource(), function, &mut errors);
        }
    }
    let path = check::view::view(&attr, &item, &mut errors);
    if !errors.is_empty() {
        return expand::view::fail(&item, &attr.krate.private(), errors).into();
    }
    expand::view::expand(&attr, &item, path.as_deref()).into()
}

/// Describes a struct as a form-mode elicitation. Documented in `mcp_rounds::Form`.
#[proc_macro_derive(Form, attributes(form))]
pub fn derive_form(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut errors = Errors::default();
    let form = ast::form::FormInput::parse(&input, &mut errors);
    check::form::form(&form, &mut errors);
    if !errors.is_empty() {
        let fallback = expand::form::form_fallback(&form);
        let errors = errors.into_compile_errors();
        return quote!(#errors #fallback).into();
    }
    expand::form::form(&form).into()
}

/// Makes a unit-variant enum the choices of a form field. Documented in `mcp_rounds::FormChoice`.
#[proc_macro_derive(FormChoice, attributes(form))]
pub fn derive_form_choice(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut errors = Errors::default();
    let choice = ast::form::ChoiceInput::parse(&input, &mut errors);
    check::form::choice(&choice, &mut errors);
    if !errors.is_empty() {
        let fallback = expand::form::choice_fallback(&choice);
        let errors = errors.into_compile_errors();
        return quote!(#errors #fallback).into();
    }
    expand::form::choice(&choice).into()
}

/// Makes an enum the rounds of a multi-round tool. Documented in `mcp_rounds::Rounds`.
#[proc_macro_derive(Rounds, attributes(round, rounds, answer))]
pub fn derive_rounds(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut errors = Errors::default();
    let rounds = ast::rounds::RoundsInput::parse(&input, &mut errors);
    check::rounds::check(&rounds, &mut errors);
    if !errors.is_empty() || expand::rounds::needs_fallback(&rounds) {
        let fallback = expand::rounds::fallback(&rounds);
        let errors = errors.into_compile_errors();
        return quote!(#errors #fallback).into();
    }
    expand::rounds::expand(&rounds).into()
}
