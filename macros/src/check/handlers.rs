//! The checks of each handler macro's attribute against its function: names the protocol
//! accepts (by the grammar the runtime uses too), keys that fit together, parameters that fit
//! what the attribute says.

use proc_macro2::Span;
use syn::LitStr;
use syn::spanned::Spanned;

use crate::ast::attrs::{PromptAttr, ResourceAttr, Task, ToolAttr};
use crate::ast::function::Function;
use crate::errors::Errors;

/// The tool's name and where it comes from (for spans).
pub fn tool_name(attr: &ToolAttr, function: &Function) -> (String, Span) {
    match &attr.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (function.ident.to_string().trim_start_matches("r#").to_owned(), function.ident.span()),
    }
}

/// Whether the tool runs on a thread of its own: asked for, or a plain function that may take
/// long because it can become a task.
pub fn runs_blocking(attr: &ToolAttr, function: &Function) -> bool {
    attr.blocking.is_some_and(|(b, _)| b) || (attr.task != Task::Never && !function.is_async)
}

pub fn tool(attr: &ToolAttr, function: &Function, errors: &mut Errors) {
    if let Some(literal) = &attr.stray_literal {
        errors.error(literal.span(), "write the tool's name as `name = \"...\"`");
    }
    let (name, span) = tool_name(attr, function);
    if !mcp_rounds_grammar::is_tool_name(&name) {
        errors.error(span, format!("`{name}` is not a valid tool name: use {}", mcp_rounds_grammar::TOOL_NAME_RULE));
    }
    if let (Some((true, _)), Some((true, span))) = (attr.read_only, attr.destructive) {
        errors.error(span, "a read-only tool cannot be destructive; remove one of `read_only` and `destructive`");
    }
    if let Some((true, span)) = attr.blocking
        && function.is_async
    {
        errors.error(span, "`blocking` is for plain functions; an async fn already yields while it waits");
    }
    if let Some(lit) = &attr.ui
        && let Some(problem) = mcp_rounds_grammar::view::uri_problem(&lit.value())
    {
        errors.error(lit.span(), format!("`ui` names the tool's view by its URI: {problem}"));
    }
    let mut names = std::collections::HashSet::new();
    let mut headers = Vec::new();
    for param in &function.params {
        let name = param.wire_name(attr.rename_all.as_deref());
        if !name.is_empty() && !names.insert(name.clone()) {
            errors.error(param.pat.span(), format!("two parameters are both named `{name}`"));
        }
        if let Some((key, _)) = &param.complete {
            errors.error(
                key.span(),
                "tool arguments have no completion; `complete` goes on prompt arguments and resource template variables",
            );
        }
        if let Some(lit) = &param.header {
            header(lit, &mut headers, errors);
        }
    }
}

/// `#[arg(header = "Name")]`: SEP-2243 makes the whole tool invalid (clients drop it) unless
/// the name is an RFC 9110 token, unique within the tool ignoring case. The argument's type is
/// left to the `HeaderParam` bound, and the finished schema is checked again at build time.
fn header(lit: &LitStr, seen: &mut Vec<String>, errors: &mut Errors) {
    let name = lit.value();
    if !mcp_rounds_grammar::is_header_name(&name) {
        errors.error(
            lit.span(),
            format!(
                "`{}` is not a valid header name: use {} (it becomes `Mcp-Param-{{name}}`)",
                name.escape_default(),
                mcp_rounds_grammar::HEADER_NAME_RULE
            ),
        );
    } else if let Some(earlier) = seen.iter().find(|n| n.eq_ignore_ascii_case(&name)) {
        errors.error(
            lit.span(),
            format!("header `{name}` is already declared as `{earlier}` in this tool; header names ignore case"),
        );
    } else {
        seen.push(name);
    }
}

/// The template's variables, when it is a valid template.
pub fn resource(attr: &ResourceAttr, function: &Function, errors: &mut Errors) -> Vec<String> {
    let mut variables = Vec::new();
    match &attr.template {
        None => errors.error(
            Span::call_site(),
            "#[resource] needs its URI first: #[resource(\"config://app\")] or #[resource(\"notes://{id}\")]",
        ),
        Some(lit) => match mcp_rounds_grammar::template::variables(&lit.value()) {
            Ok(found) => variables = found,
            Err(reason) => errors.error(lit.span(), format!("invalid URI template: {reason}")),
        },
    }
    if let (Some((key, _)), Some(_)) = (&attr.list, &attr.template)
        && variables.is_empty()
    {
        errors.error(key.span(), "`list` enumerates the resources of a URI template; a fixed URI lists itself");
    }
    // Every variable needs a parameter of the same name; parameters that are not variables
    // must be extractors, which the type system checks.
    if let Some(lit) = &attr.template {
        for variable in &variables {
            if !function.params.iter().any(|p| p.rust_name.as_deref() == Some(variable.as_str())) {
                errors.error(
                    lit.span(),
                    format!(
                        "URI template variable `{{{variable}}}` has no parameter; add a parameter named `{variable}`"
                    ),
                );
            }
        }
    }
    for param in &function.params {
        if let Some(rename) = &param.rename {
            errors.error(rename.span(), "resource parameters take their names from the URI template; remove `rename`");
        }
        let is_variable = param.rust_name.as_ref().is_some_and(|n| variables.contains(n));
        if let (Some((key, _)), false) = (&param.complete, is_variable) {
            errors.error(
                key.span(),
                "only URI template variables have completions; `complete` goes on a parameter named like one",
            );
        }
    }
    variables
}

/// The prompt's name.
pub fn prompt(attr: &PromptAttr, function: &Function, errors: &mut Errors) -> String {
    if let Some(literal) = &attr.stray_literal {
        errors.error(literal.span(), "write the prompt's name as `name = \"...\"`");
    }
    match &attr.name {
        Some(lit) if lit.value().trim().is_empty() => {
            errors.error(lit.span(), "a prompt name cannot be empty");
            String::new()
        }
        Some(lit) => lit.value(),
        None => function.ident.to_string().trim_start_matches("r#").to_owned(),
    }
}
