//! The attributes of the three handler macros, read into typed models. Reading reports what
//! cannot be read (a key of the wrong type, an unknown key); whether the values make sense
//! together is the checks' business.

use proc_macro2::{Span, TokenStream};
use syn::LitStr;
use syn::spanned::Spanned;

use super::args::Args;
use crate::errors::Errors;
use crate::krate::Krate;

/// How `#[tool(task ...)]` was written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Task {
    Never,
    Optional,
    Required,
}

/// `#[tool(...)]`.
pub struct ToolAttr {
    pub krate: Krate,
    /// `name = "..."`, when given.
    pub name: Option<LitStr>,
    /// A bare string where `name = "..."` was meant.
    pub stray_literal: Option<LitStr>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub read_only: Option<(bool, Span)>,
    pub destructive: Option<(bool, Span)>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub rename_all: Option<String>,
    pub blocking: Option<(bool, Span)>,
    pub task: Task,
    pub scopes: Option<Vec<LitStr>>,
    /// `ui = "ui://..."`: the MCP Apps view the tool links to.
    pub ui: Option<LitStr>,
    /// `visibility("model", "app")`: who may call it.
    pub visibility: Option<Vec<LitStr>>,
}

const TOOL_KEYS: &[&str] = &[
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
    "ui",
    "visibility",
    "crate",
];

impl ToolAttr {
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> ToolAttr {
        let mut args = Args::parse(tokens, errors);
        let attr = ToolAttr {
            stray_literal: args.literal(),
            krate: args.krate(errors),
            name: args.string("name", errors),
            title: args.string("title", errors).map(|s| s.value()),
            description: args.string("description", errors).map(|s| s.value()),
            read_only: args.flag("read_only", errors),
            destructive: args.flag("destructive", errors),
            idempotent: args.flag("idempotent", errors).map(|(b, _)| b),
            open_world: args.flag("open_world", errors).map(|(b, _)| b),
            rename_all: args.case("rename_all", errors),
            blocking: args.flag("blocking", errors),
            task: task(&mut args, errors),
            scopes: args.scopes(errors),
            ui: args.string("ui", errors),
            visibility: args.list(
                "visibility",
                |who| {
                    (!matches!(who, "model" | "app"))
                        .then(|| format!("{who:?} is not a visibility: name \"model\", \"app\" or both"))
                },
                errors,
            ),
        };
        args.finish("tool", TOOL_KEYS, errors);
        attr
    }
}

/// `task` (a task when the client can take one), `task = "optional"` (the same) or
/// `task = "required"` (only as a task).
fn task(args: &mut Args, errors: &mut Errors) -> Task {
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

/// How a resource's reads may be cached.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    Public,
    Private,
}

/// `#[resource("uri", ...)]`.
pub struct ResourceAttr {
    pub krate: Krate,
    /// The URI or URI template, first.
    pub template: Option<LitStr>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    /// `list = path`: the key (for spans) and the function.
    pub list: Option<(syn::Ident, syn::Path)>,
    pub ttl_ms: u64,
    pub cache: Cache,
    pub scopes: Option<Vec<LitStr>>,
}

const RESOURCE_KEYS: &[&str] =
    &["name", "title", "description", "mime_type", "list", "ttl_ms", "cache", "scopes", "crate"];

impl ResourceAttr {
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> ResourceAttr {
        let mut args = Args::parse(tokens, errors);
        let template = args.literal();
        let attr = ResourceAttr {
            krate: args.krate(errors),
            template,
            name: args.string("name", errors).map(|s| s.value()),
            title: args.string("title", errors).map(|s| s.value()),
            description: args.string("description", errors).map(|s| s.value()),
            mime_type: args.string("mime_type", errors).map(|s| s.value()),
            list: args.path("list", errors),
            ttl_ms: args.integer("ttl_ms", errors).unwrap_or(0),
            cache: match args.string("cache", errors) {
                None => Cache::Private,
                Some(lit) => match lit.value().as_str() {
                    "public" => Cache::Public,
                    "private" => Cache::Private,
                    other => {
                        errors.error(lit.span(), format!("`cache` is \"public\" or \"private\", not \"{other}\""));
                        Cache::Private
                    }
                },
            },
            scopes: args.scopes(errors),
        };
        args.finish("resource", RESOURCE_KEYS, errors);
        attr
    }
}

/// `#[prompt(...)]`.
pub struct PromptAttr {
    pub krate: Krate,
    pub name: Option<LitStr>,
    /// A bare string where `name = "..."` was meant.
    pub stray_literal: Option<LitStr>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub rename_all: Option<String>,
    pub scopes: Option<Vec<LitStr>>,
}

const PROMPT_KEYS: &[&str] = &["name", "title", "description", "rename_all", "scopes", "crate"];

impl PromptAttr {
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> PromptAttr {
        let mut args = Args::parse(tokens, errors);
        let attr = PromptAttr {
            stray_literal: args.literal(),
            krate: args.krate(errors),
            name: args.string("name", errors),
            title: args.string("title", errors).map(|s| s.value()),
            description: args.string("description", errors).map(|s| s.value()),
            rename_all: args.case("rename_all", errors),
            scopes: args.scopes(errors),
        };
        args.finish("prompt", PROMPT_KEYS, errors);
        attr
    }
}
