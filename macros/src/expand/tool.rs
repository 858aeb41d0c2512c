//! `#[tool]`: the function's `ToolDefinition`, which describes the tool once and runs each call
//! (its parameters extracted, single use claimed, the return value turned into a result).

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use super::handler::{function_and_marker, into_handler, option_bool, option_str, option_string, scopes_fn};
use crate::ast::attrs::{Task, ToolAttr};
use crate::ast::function::Function;
use crate::check::handlers::{runs_blocking, tool_name};

/// The tool, for a function and attribute that passed their checks.
pub fn expand(attr: &ToolAttr, function: &Function) -> TokenStream {
    let p = attr.krate.private();
    let ident = &function.ident;
    let cfg = &function.cfg;
    let output = &function.output;
    let args = function.arg_idents();
    let (name, name_span) = tool_name(attr, function);
    let tool_name = syn::LitStr::new(&name, name_span);
    let read_only = attr.read_only.map(|(b, _)| b);
    let destructive_hint = attr.destructive.map(|(b, _)| b);
    let title = option_string(attr.title.as_deref());
    let description = option_string(attr.description.as_deref().or(function.description.as_deref()));
    let annotations = if [read_only, destructive_hint, attr.idempotent, attr.open_world].iter().all(Option::is_none) {
        quote!(::core::option::Option::None)
    } else {
        let (ro, de, id, ow) = (
            option_bool(read_only),
            option_bool(destructive_hint),
            option_bool(attr.idempotent),
            option_bool(attr.open_world),
        );
        quote! {{
            let mut __annotations = #p::ToolAnnotations::default();
            __annotations.read_only_hint = #ro;
            __annotations.destructive_hint = #de;
            __annotations.idempotent_hint = #id;
            __annotations.open_world_hint = #ow;
            ::core::option::Option::Some(__annotations)
        }}
    };

    let mut describe = Vec::new();
    let mut states = Vec::new();
    let mut extract = Vec::new();
    let mut uses_rounds = Vec::new();
    for (param, arg) in function.params.iter().zip(&args) {
        let ty = &param.ty;
        let name = param.wire_name(attr.rename_all.as_deref());
        let desc = option_str(param.description.as_deref());
        let span = ty.span();
        describe.push(at!(span, p =>
            <#ty as #p::ToolParam<_>>::describe(&mut __schema, #name, #desc);
        ));
        if let Some(header) = &param.header {
            // Spanned at the type: a type a header cannot carry fails the `HeaderParam` bound there.
            describe.push(at!(span, p =>
                #p::InputSchema::header::<#ty>(&mut __schema, #name, #header);
            ));
        }
        states.push(at!(span, p =>
            <#ty as #p::ToolParam<_>>::requirements(__requirements);
        ));
        uses_rounds.push(at!(span, p =>  <#ty as #p::ToolParam<_>>::USES_ROUNDS ));
        extract.push(at!(span, p =>
            let #arg = match <#ty as #p::ToolParam<_>>::extract(&mut __invocation, #name).await {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(rejection) => return __invocation.reject(rejection).await,
            };
        ));
    }

    let run = if function.is_async {
        quote!(let __returned = #ident(#(#args),*).await;)
    } else if runs_blocking(attr, function) {
        quote! {
            let __returned = match #p::spawn_blocking(move || #ident(#(#args),*)).await {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(_) => return ::core::result::Result::Err(#p::Error::internal()),
            };
        }
    } else {
        quote!(let __returned = #ident(#(#args),*);)
    };
    let output_span = output.span();
    let output_schema = at!(output_span, p =>
        <#output as #p::IntoToolOutcome>::output_schema(&mut __output)
    );
    let into_outcome = at!(output_span, p =>
        <#output as #p::IntoToolOutcome>::into_outcome(__returned, &__invocation.outcome_context())
    );
    uses_rounds.push(at!(output_span, p =>  <#output as #p::IntoToolOutcome>::USES_ROUNDS ));
    // The revision's defaults: a tool is destructive unless read-only or marked otherwise.
    let destructive = read_only != Some(true) && destructive_hint != Some(false);
    let task_support = match attr.task {
        Task::Never => quote!(#p::TaskSupport::Never),
        Task::Optional => quote!(#p::TaskSupport::Optional),
        Task::Required => quote!(#p::TaskSupport::Required),
    };
    let scopes = scopes_fn(attr.scopes.as_deref());
    let ui = ui_meta(attr, &p, output);
    let item = function_and_marker(function, true);
    let into_handler = into_handler(function, &p, quote!(tool), &name);
    quote! {
        #item
        #into_handler

        #(#cfg)*
        impl #p::ToolDefinition for #ident {
            fn describe() -> ::core::result::Result<#p::Tool, ::std::string::String> {
                let mut __schema = #p::InputSchema::default();
                #(#describe)*
                let mut __output = #p::output_generator();
                let mut __tool = #p::Tool::new(#tool_name, __schema.finish()?);
                __tool.title = #title;
                __tool.description = #description;
                __tool.annotations = #annotations;
                __tool.output_schema = #output_schema;
                #ui
                ::core::result::Result::Ok(__tool)
            }

            fn uses_rounds() -> bool {
                false #(|| #uses_rounds)*
            }

            fn requirements(__requirements: &mut #p::Requirements) {
                #(#states)*
            }

            fn task_support() -> #p::TaskSupport {
                #task_support
            }

            #scopes

            fn call(&self, __call: #p::ToolCall) -> #p::BoxFuture<'_,
                ::core::result::Result<#p::Outcome<#p::CallToolResult>, #p::Error>>
            {
                // Made before the future, which then holds the invocation alone.
                let mut __invocation = #p::ToolInvocation::new(
                    __call,
                    #p::ToolInfo {
                        destructive: #destructive,
                        uses_rounds: <Self as #p::ToolDefinition>::uses_rounds(),
                    },
                );
                #p::boxed(async move {
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

/// The tool's `_meta.ui` (its view and who may call it), and, when it has a view, the check
/// that its result gives a person text to read: a host that renders no view shows only that.
fn ui_meta(attr: &ToolAttr, p: &TokenStream, output: &syn::Type) -> TokenStream {
    if attr.ui.is_none() && attr.visibility.is_none() {
        return TokenStream::new();
    }
    let uri = attr.ui.iter();
    let visibility = attr
        .visibility
        .as_ref()
        .map(|who| quote!(__ui.insert("visibility".into(), #p::serde_json::json!([#(#who),*]));));
    let readable = attr.ui.as_ref().map(|_| at!(output.span(), p =>  #p::assert_readable::<#output>(); ));
    quote! {
        #readable
        let mut __ui = #p::serde_json::Map::new();
        #( __ui.insert("resourceUri".into(), #p::serde_json::Value::from(#uri)); )*
        #visibility
        __tool.meta = ::core::option::Option::Some(
            ::core::iter::once(("ui".to_owned(), #p::serde_json::Value::Object(__ui))).collect()
        );
    }
}
