//! Routing a request by method, in the order the revision gives: envelope first (-32602,
//! -32020, -32022), then the method (-32601), then the method's own parameters (-32602).

use std::future::Future;
use std::sync::Arc;

use serde_json::json;

use super::Dispatch;
use super::request::{McpRequest, Params, Stream, parse_params};
use super::response::Reply;
use crate::context::RequestContext;
use crate::error::Error;
use crate::future::BoxFuture;
use crate::method::Method;
use crate::model::{
    CompleteRequestParams, CompleteResult, PaginatedRequestParams, SubscriptionsListenRequestParams, TASKS_EXTENSION,
    TaskAck, TaskIdParams, UpdateTaskParams,
};
use crate::prompt::{PromptGet, PromptHandler};
use crate::registry::{Listing, Registry};
use crate::resource::{ResourceHandler, ResourceRead};
use crate::tasks::TaskSupport;
use crate::telemetry::Nested;
use crate::tool::{ToolCall, ToolHandler};
use crate::version::SUPPORTED_PROTOCOL_VERSIONS;

/// Answers one request: its reply, or the error to answer it with.
///
/// Everything before the handler is awaited happens before the future is made, so that the
/// future holds only the handler's call and what it runs in: a few hundred bytes, made and
/// freed on every request. The methods that hold much state while they wait (tasks, listen
/// streams, completion, a computed resource list) are boxed.
pub(crate) fn route(dispatch: Dispatch, request: McpRequest) -> impl Future<Output = Result<Reply, Error>> + Send {
    let routed = plan(&dispatch, request).unwrap_or_else(|error| Routed::Done(Err(error)));
    async move {
        match routed {
            Routed::Done(answer) => answer,
            Routed::Tool { handler, call, running } => Ok(Reply::outcome(running.wrap(handler.call(call)).await?)),
            Routed::Prompt { handler, get, running } => Ok(Reply::outcome(running.wrap(handler.get(get)).await?)),
            Routed::Resource { handler, read, running } => Ok(Reply::outcome(running.wrap(handler.read(read)).await?)),
            Routed::Boxed(work) => work.await,
        }
    }
}

/// What a request comes to once everything that needs no waiting is done.
enum Routed {
    Done(Result<Reply, Error>),
    Tool { handler: Arc<dyn ToolHandler>, call: ToolCall, running: Nested },
    Prompt { handler: Arc<dyn PromptHandler>, get: PromptGet, running: Nested },
    Resource { handler: Arc<dyn ResourceHandler>, read: ResourceRead, running: Nested },
    Boxed(BoxFuture<'static, Result<Reply, Error>>),
}

fn done(reply: impl Into<Reply>) -> Result<Routed, Error> {
    Ok(Routed::Done(Ok(reply.into())))
}

/// The cursor a listing request's params name (none: the first page).
fn cursor(params: Option<&serde_json::value::RawValue>) -> Result<Option<String>, Error> {
    Ok(parse_params::<PaginatedRequestParams>(params)?.cursor)
}

fn boxed(work: impl Future<Output = Result<Reply, Error>> + Send + 'static) -> Result<Routed, Error> {
    Ok(Routed::Boxed(Box::pin(work)))
}

/// Routes `request` as far as it goes without waiting.
fn plan(dispatch: &Dispatch, request: McpRequest) -> Result<Routed, Error> {
    let McpRequest {
        id,
        method,
        known,
        principal,
        meta,
        params,
        stream,
        headers,
        extensions,
        origin: _,
        trace,
        front: _,
    } = request;
    // The legacy handshake: whatever else is wrong with it, tell the client which versions
    // this server speaks so that it can switch eras.
    if known == Some(Method::Initialize) {
        return Err(Error::new(
            crate::ErrorCode::MethodNotFound,
            format!(
                "Method not found: {method}. This server speaks protocol {} without a handshake; \
                 send {} with _meta instead",
                SUPPORTED_PROTOCOL_VERSIONS.join(", "),
                Method::ServerDiscover,
            ),
        )
        .with_data(json!({ "method": &*method, "supported": SUPPORTED_PROTOCOL_VERSIONS })));
    }

    let meta = meta?;
    let registry = &dispatch.registry;
    // A method the table does not have, or one of a capability this server does not offer.
    let Some(known) = known.filter(|known| known.capability().is_none_or(|c| registry.offers(c))) else {
        return Err(not_found(&method, known, registry));
    };
    // The request's spans, for the handler's to nest in (the closure below takes them).
    let spans = trace.clone();
    let Stream { cancellation, notifier, shutdown } = stream;
    let shared = registry.shared.clone();
    let context_id = id.clone();
    let context = move || {
        RequestContext::new(context_id, meta, principal, cancellation, shared)
            .with_stream(notifier, shutdown)
            .with_extensions(extensions)
            .with_trace(trace)
    };

    match (known, params) {
        (Method::ServerDiscover, _) => done(Reply::rendered(registry.discover.clone())),
        (Method::ToolsList, Params::Raw(raw)) => {
            done(Reply::rendered(registry.tool_list.page(cursor(raw.as_deref())?.as_deref())?))
        }
        (Method::ToolsCall, Params::Tool(p)) => {
            let p = p?;
            let route = registry.tools.get(p.name.as_str()).ok_or_else(|| Error::unknown_name("tool", &p.name))?;
            crate::headers::check_tool_params(headers.as_deref(), route.param_headers(), p.arguments.as_ref())?;
            let context = context();
            // Before anything of the call is looked at, a state least of all.
            context.principal().require_scopes(&route.scopes)?;
            let as_task = match route.task {
                TaskSupport::Never => false,
                support => {
                    let declared = context.client_capabilities().supports_extension(TASKS_EXTENSION);
                    if support == TaskSupport::Required && !declared {
                        return Err(super::tasks::required());
                    }
                    declared
                }
            };
            let call = ToolCall {
                name: route.name.clone(),
                arguments: p.arguments.unwrap_or_default(),
                input_responses: p.input_responses,
                request_state: p.request_state,
                context,
            };
            if as_task {
                let dispatch = dispatch.clone();
                return boxed(async move {
                    let registry = &dispatch.registry;
                    let route = registry.tools.get(call.name.as_ref()).expect("the tool was found just before");
                    dispatch.tasks.start(registry, route, call).await
                });
            }
            let running = Nested::handler(&spans, "tool", &route.name);
            Ok(Routed::Tool { handler: route.handler.clone(), call, running })
        }
        (method @ (Method::TasksGet | Method::TasksUpdate | Method::TasksCancel), Params::Raw(raw)) => {
            let context = context();
            // The capability is checked before the task is looked up.
            if !context.client_capabilities().supports_extension(TASKS_EXTENSION) {
                return Err(super::tasks::required());
            }
            let dispatch = dispatch.clone();
            match method {
                Method::TasksGet => {
                    let p: TaskIdParams = parse_params(raw.as_deref())?;
                    boxed(async move {
                        let task = dispatch.tasks.get(&dispatch.registry, &context, &p.task_id).await?;
                        Ok(Box::new(task).into())
                    })
                }
                Method::TasksUpdate => {
                    let p: UpdateTaskParams = parse_params(raw.as_deref())?;
                    boxed(async move {
                        dispatch.tasks.update(&dispatch.registry, &context, &p.task_id, &p.input_responses).await?;
                        Ok(TaskAck::default().into())
                    })
                }
                _ => {
                    let p: TaskIdParams = parse_params(raw.as_deref())?;
                    boxed(async move {
                        dispatch.tasks.cancel(&dispatch.registry, &context, &p.task_id).await?;
                        Ok(TaskAck::default().into())
                    })
                }
            }
        }
        (Method::PromptsList, Params::Raw(raw)) => {
            done(Reply::rendered(registry.prompt_list.page(cursor(raw.as_deref())?.as_deref())?))
        }
        (Method::PromptsGet, Params::Prompt(p)) => {
            let p = p?;
            let route = registry.prompts.get(p.name.as_str()).ok_or_else(|| Error::unknown_name("prompt", &p.name))?;
            let context = context();
            context.principal().require_scopes(&route.scopes)?;
            let get = PromptGet::new(
                route.name.clone(),
                p.arguments.unwrap_or_default(),
                p.input_responses,
                p.request_state,
                context,
                route.uses_rounds,
            );
            let running = Nested::handler(&spans, "prompt", &route.name);
            Ok(Routed::Prompt { handler: route.handler.clone(), get, running })
        }
        (Method::ResourcesList, Params::Raw(raw)) => {
            let cursor = cursor(raw.as_deref())?;
            let (dispatch, context) = (dispatch.clone(), context());
            boxed(async move {
                Ok(match dispatch.registry.resources.list_page(cursor.as_deref(), &context).await? {
                    Listing::Rendered(rendered) => Reply::rendered(rendered),
                    Listing::Computed(page) => page.into(),
                })
            })
        }
        (Method::ResourcesTemplatesList, Params::Raw(raw)) => {
            done(Reply::rendered(registry.resources.template_page(cursor(raw.as_deref())?.as_deref())?))
        }
        (Method::ResourcesRead, Params::Resource(p)) => {
            let p = p?;
            #[cfg(feature = "skills")]
            if let Some(read) =
                registry.skills.as_deref().and_then(|skills| super::skills::read(registry, skills, &p.uri))
            {
                return done(read?);
            }
            let uri = crate::uri::normalize(&p.uri).ok_or_else(|| Error::resource_not_found(&p.uri))?;
            let found = registry.resources.find(&uri).ok_or_else(|| Error::resource_not_found(&p.uri))?;
            let context = context();
            context.principal().require_scopes(&found.route.scopes)?;
            let read = ResourceRead {
                uri: p.uri,
                variables: found.variables,
                input_responses: p.input_responses,
                request_state: p.request_state,
                context,
            };
            let running = Nested::handler(&spans, "resource", found.route.descriptor.template.as_str());
            Ok(Routed::Resource { handler: found.route.handler.clone(), read, running })
        }
        (Method::CompletionComplete, Params::Raw(raw)) => {
            let p: CompleteRequestParams = parse_params(raw.as_deref())?;
            let (dispatch, context) = (dispatch.clone(), context());
            boxed(async move {
                let completion = super::complete::answer(&dispatch.registry, p, context).await?;
                Ok(CompleteResult { completion, ..Default::default() }.into())
            })
        }
        #[cfg(feature = "skills")]
        (method @ (Method::SkillsList | Method::SkillsGet | Method::ResourcesDirectoryRead), Params::Raw(raw)) => {
            let skills = registry.skills.as_deref().expect("a server that offers skills serves a directory");
            done(super::skills::answer(registry, skills, method, raw.as_deref())?)
        }
        (Method::SubscriptionsListen, Params::Raw(raw)) => {
            let p: SubscriptionsListenRequestParams = parse_params(raw.as_deref())?;
            let (dispatch, context) = (dispatch.clone(), context());
            boxed(async move { Ok(super::listen::listen(&dispatch, &id, p.notifications, context).await?.into()) })
        }
        (known, _) => Err(not_found(&method, Some(known), registry)),
    }
}

/// -32601 for `method`, saying why when the table knows it: removed in this revision, or
/// offered by a capability this server does not have.
fn not_found(method: &str, known: Option<Method>, registry: &Registry) -> Error {
    let reason = known.and_then(|known| {
        if known.removed() {
            return Some("removed in protocol 2026-07-28".to_owned());
        }
        let capability = known.capability().filter(|c| known.is_client_request() && !registry.offers(*c))?;
        Some(format!("this server does not offer {}", capability.described()))
    });
    let err = Error::method_not_found(method);
    match reason {
        Some(reason) => err.with_data(json!({ "method": method, "reason": reason })),
        None => err,
    }
}
