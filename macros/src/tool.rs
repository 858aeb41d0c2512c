//! `#[tool]`: a function becomes a tool descriptor and a handler.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, LitStr};

use crate::attr::Args;
use crate::errors::Errors;
use crate::signature::{Function, Kind, option_string};

const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "rename_all",
    "blocking",
    "task",
    "scopes",
];

/// How `#[tool(task ...)]` was written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Task {
    Never,
    Optional,
    Required,
}

struct ToolAttr {
    name: String,
    name_span: Span,
    title: Option<String>,
    description: Option<String>,
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
    rename_all: Option<String>,
    blocking: bool,
    task: Task,
    scopes: Option<Vec<LitStr>>,
}

fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn parse_attr(tokens: TokenStream, function: &Function, errors: &mut Errors) -> ToolAttr {
    let mut args = Args::parse(tokens, errors);
    if let Some(literal) = args.literal() {
        errors.error(literal.span(), "write the tool's name as `name = \"...\"`");
    }
    let name_lit: Option<LitStr> = args.string("name", errors);
    let (name, name_span) = match &name_lit {
        Some(lit) => (lit.value(), lit.span()),
        None => (function.ident.to_string().trim_start_matches("r#").to_owned(), function.ident.span()),
    };
    if !is_valid_tool_name(&name) {
        errors.error(
            name_span,
            format!("`{name}` is not a valid tool name: use 1 to 128 characters of A-Z a-z 0-9 _ . -"),
        );
    }
    let title = args.string("title", errors).map(|s| s.value());
    let description = args.string("description", errors).map(|s| s.value()).or_else(|| function.description.clone());
    let read_only = args.flag("read_only", errors);
    let destructive = args.flag("destructive", errors);
    if let (Some((true, _)), Some((true, span))) = (read_only, destructive) {
        errors.error(span, "a read-only tool cannot be destructive; remove one of `read_only` and `destructive`");
    }
    let idempotent = args.flag("idempotent", errors).map(|(b, _)| b);
    let open_world = args.flag("open_world", errors).map(|(b, _)| b);
    let rename_all = args.case("rename_all", errors);
    let blocking = args.flag("blocking", errors).is_some_and(|(b, _)| b);
    if blocking && function.is_async {
        errors.error(Span::call_site(), "`blocking` is for plain functions; an async fn already yields while it waits");
    }
    let task = parse_task(&mut args, errors);
    let scopes = args.scopes(errors);
    // A plain function that may take long runs on a thread of its own, and so becomes a task.
    let blocking = blocking || (task != Task::Never && !function.is_async);
    args.finish("tool", KEYS, errors);
    ToolAttr {
        name,
        name_span,
        title,
        description,
        read_only: read_only.map(|(b, _)| b),
        destructive: destructive.map(|(b, _)| b),
        idempotent,
        open_world,
        rename_all,
        blocking,
        task,
        scopes,
    }
}

/// `task` (a task when the client can take one), `task = "optional"` (the same) or
/// `task = "required"` (only as a task).
fn parse_task(args: &mut Args, errors: &mut Errors) -> Task {
    const HELP: &str = "`task` takes \"optional\" or \"required\": write `task` (a task when the client supports \
                        them) or `task = \"required\"` (only as a task)";
    let Some((_, value)) = args.raw("task") else { return Task::Never };
    match value {
        None => Task::Optional,
        Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) => match s.value().as_str() {
            "optional" => Task::Optional,
            "required" => Task::Required,
            _ => {
                errors.error(s.span(), HELP);
                Task::Never
            }
        },
        Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. })) => {
            if b.value {
                Task::Optional
            } else {
                Task::Never
            }
        }
        Some(other) => {
            errors.error(other.span(), HELP);
            Task::Never
        }
    }
}

/// `#[arg(header = "Name")]`: SEP-2243 makes the whole tool invalid (clients drop it) unless
/// the name is an RFC 9110 token, unique within the tool ignoring case. The argument's type is
/// left to the `HeaderParam` bound, and the finished schema is checked again at build time.
fn check_header(lit: &LitStr, seen: &mut Vec<String>, errors: &mut Errors) {
    let name = lit.value();
    let is_token =
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !is_token {
        errors.error(
            lit.span(),
            format!(
                "`{}` is not a valid header name: use 1 or more of A-Z a-z 0-9 ! # $ % & ' * + - . ^ _ ` | ~ \
                 (it becomes `Mcp-Param-{{name}}`)",
                name.escape_default()
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

fn option_bool(value: Option<bool>) -> TokenStream {
    match value {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    }
}

/// Expands `#[tool(...)] fn ...`.
pub fn expand(attr: TokenStream, item: ItemFn) -> TokenStream {
    let mut errors = Errors::default();
    let function = Function::parse(item, Kind { attribute: "tool" }, &mut errors);
    let attr = parse_attr(attr, &function, &mut errors);
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
            check_header(lit, &mut headers, &mut errors);
        }
    }
    if !errors.is_empty() {
        return function.fail(errors);
    }

    let ident = &function.ident;
    let cfg = &function.cfg;
    let output = &function.output;
    let args = function.arg_idents();
    let tool_name = syn::LitStr::new(&attr.name, attr.name_span);
    let title = option_string(attr.title.as_deref());
    let description = option_string(attr.description.as_deref());
    let annotations =
        if [attr.read_only, attr.destructive, attr.idempotent, attr.open_world].iter().all(Option::is_none) {
            quote!(::core::option::Option::None)
        } else {
            let (ro, de, id, ow) = (
                option_bool(attr.read_only),
                option_bool(attr.destructive),
                option_bool(attr.idempotent),
                option_bool(attr.open_world),
            );
            quote! {
                ::core::option::Option::Some(::mcp_rounds::__private::ToolAnnotations {
                    title: ::core::option::Option::None,
                    read_only_hint: #ro,
                    destructive_hint: #de,
                    idempotent_hint: #id,
                    open_world_hint: #ow,
                })
            }
        };

    let mut describe = Vec::new();
    let mut states = Vec::new();
    let mut extract = Vec::new();
    let mut uses_rounds = Vec::new();
    for (param, arg) in function.params.iter().zip(&args) {
        let ty = &param.ty;
        let name = param.wire_name(attr.rename_all.as_deref());
        let desc = crate::signature::option_str(param.description.as_deref());
        let span = ty.span();
        describe.push(quote_spanned! {span=>
            <#ty as ::mcp_rounds::__private::ToolParam<_>>::describe(&mut __schema, #name, #desc);
        });
        if let Some(header) = &param.header {
            // Spanned at the type: a type a header cannot carry fails the `HeaderParam` bound there.
            describe.push(quote_spanned! {span=>
                ::mcp_rounds::__private::InputSchema::header::<#ty>(&mut __schema, #name, #header);
            });
        }
        states.push(quote_spanned! {span=>
            <#ty as ::mcp_rounds::__private::ToolParam<_>>::requirements(__requirements);
        });
        uses_rounds.push(quote_spanned! {span=> <#ty as ::mcp_rounds::__private::ToolParam<_>>::USES_ROUNDS });
        extract.push(quote_spanned! {span=>
            let #arg = match <#ty as ::mcp_rounds::__private::ToolParam<_>>::extract(&mut __invocation, #name).await {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(rejection) => return __invocation.reject(rejection).await,
            };
        });
    }

    let run = if function.is_async {
        quote!(let __returned = #ident(#(#args),*).await;)
    } else if attr.blocking {
        quote! {
            let __returned = match ::mcp_rounds::__private::spawn_blocking(move || #ident(#(#args),*)).await {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(_) => return ::core::result::Result::Err(::mcp_rounds::__private::Error::internal()),
            };
        }
    } else {
        quote!(let __returned = #ident(#(#args),*);)
    };
    let output_span = output.span();
    let output_schema = quote_spanned! {output_span=>
        <#output as ::mcp_rounds::__private::IntoToolOutcome>::output_schema(&mut __output)
    };
    let into_outcome = quote_spanned! {output_span=>
        <#output as ::mcp_rounds::__private::IntoToolOutcome>::into_outcome(__returned, &__invocation.outcome_context())
    };
    uses_rounds
        .push(quote_spanned! {output_span=> <#output as ::mcp_rounds::__private::IntoToolOutcome>::USES_ROUNDS });
    // The revision's defaults: a tool is destructive unless read-only or marked otherwise.
    let destructive = attr.read_only != Some(true) && attr.destructive != Some(false);

    let task_support = match attr.task {
        Task::Never => quote!(::mcp_rounds::__private::TaskSupport::Never),
        Task::Optional => quote!(::mcp_rounds::__private::TaskSupport::Optional),
        Task::Required => quote!(::mcp_rounds::__private::TaskSupport::Required),
    };
    let scopes = crate::attr::scopes_fn(attr.scopes.as_deref());
    let item = function.function_and_marker();
    let into_handler = function.handler_impl(quote!(tool));
    quote! {
        #item
        #into_handler

        #(#cfg)*
        impl ::mcp_rounds::__private::ToolDefinition for #ident {
            fn describe() -> ::core::result::Result<::mcp_rounds::__private::Tool, ::std::string::String> {
                let mut __schema = ::mcp_rounds::__private::InputSchema::default();
                #(#describe)*
                let mut __output = ::mcp_rounds::__private::output_generator();
                let mut __tool = ::mcp_rounds::__private::Tool::new(#tool_name, __schema.finish()?);
                __tool.title = #title;
                __tool.description = #description;
                __tool.annotations = #annotations;
                __tool.output_schema = #output_schema;
                ::core::result::Result::Ok(__tool)
            }

            fn uses_rounds() -> bool {
                false #(|| #uses_rounds)*
            }

            fn requirements(__requirements: &mut ::mcp_rounds::__private::Requirements) {
                #(#states)*
            }

            fn task_support() -> ::mcp_rounds::__private::TaskSupport {
                #task_support
            }

            #scopes

            fn call(&self, __call: ::mcp_rounds::__private::ToolCall) -> ::mcp_rounds::__private::BoxFuture<'_,
                ::core::result::Result<::mcp_rounds::__private::Outcome<::mcp_rounds::__private::CallToolResult>,
                ::mcp_rounds::__private::Error>>
            {
                ::mcp_rounds::__private::boxed(async move {
                    let mut __invocation = ::mcp_rounds::__private::ToolInvocation::new(
                        __call,
                        ::mcp_rounds::__private::ToolInfo {
                            destructive: #destructive,
                            uses_rounds: <Self as ::mcp_rounds::__private::ToolDefinition>::uses_rounds(),
                        },
                    );
                    #(#extract)*
                    if let ::core::result::Result::Err(rejection) = __invocation.finish() {
                        return __invocation.reject(rejection).await;
                    }
                    __invocation.begin_single_use().await?;
                    #run
                    let __outcome = #into_outcome;
                    __invocation.settle(__outcome).await
                })
            }
        }
    }
}
