//! Routing a request by method, in the order the revision gives: envelope first (-32602,
//! -32022), then the method (-32601), then the method's own parameters (-32602).

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::json;
use serde_json::value::RawValue;

use crate::context::RequestContext;
use crate::envelope::read_request_meta;
use crate::error::{Error, serde_message};
use crate::jsonrpc::{Request, encode_result};
use crate::model::{
    ClientCapabilities, CompleteRequestParams, CompleteResult, JsonObject, PaginatedRequestParams,
    SubscriptionsListenRequestParams, TASKS_EXTENSION, TaskAck, TaskIdParams, UpdateTaskParams,
};
use crate::prompt::PromptGet;
use crate::resource::ResourceRead;
use crate::server::{Call, Inner};
use crate::tasks::TaskSupport;
use crate::tool::ToolCall;
use crate::version::SUPPORTED_PROTOCOL_VERSIONS;

/// Methods earlier revisions had and this one removed.
const REMOVED: &[&str] = &[
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "notifications/initialized",
    "tasks/result",
    "tasks/list",
];

/// `tools/call` parameters as the server reads them: answers stay raw until a round asks for
/// them by key, so unknown extra entries are ignored rather than rejected.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallToolParams {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    #[serde(default)]
    input_responses: Option<JsonObject>,
    #[serde(default)]
    request_state: Option<String>,
}

/// `resources/read` parameters as the server reads them, answers raw like [`CallToolParams`].
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReadResourceParams {
    uri: String,
    #[serde(default)]
    input_responses: Option<JsonObject>,
    #[serde(default)]
    request_state: Option<String>,
}

/// `prompts/get` parameters as the server reads them, answers raw like [`CallToolParams`].
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct GetPromptParams {
    name: String,
    #[serde(default)]
    arguments: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    input_responses: Option<JsonObject>,
    #[serde(default)]
    request_state: Option<String>,
}

/// Answers one request with its encoded result, or the error to encode.
pub(crate) async fn dispatch(inner: Arc<Inner>, call: Call) -> Result<Vec<u8>, Error> {
    let Call { request, principal, cancellation, headers, notifier, shutdown } = call;
    let Request { id, method, params } = request;

    // The legacy handshake: whatever else is wrong with it, tell the client which versions
    // this server speaks so that it can switch eras.
    if &*method == "initialize" {
        return Err(Error::new(
            crate::ErrorCode::MethodNotFound,
            format!(
                "Method not found: initialize. This server speaks protocol {} without a handshake; \
                 send server/discover with _meta instead",
                SUPPORTED_PROTOCOL_VERSIONS.join(", ")
            ),
        )
        .with_data(json!({ "method": "initialize", "supported": SUPPORTED_PROTOCOL_VERSIONS })));
    }

    let params = params.as_deref();
    let meta = read_request_meta(params, |version| match &headers {
        Some(headers) => headers.check(version, &method, params),
        None => Ok(()),
    })?;
    let (context_id, shared) = (id.clone(), inner.shared.clone());
    let context =
        move || RequestContext::new(context_id, meta, principal, cancellation, shared).with_stream(notifier, shutdown);
    let id = &id;
    let inner = &inner;

    match &*method {
        "server/discover" => Ok(encode_result(id, &*inner.discover)),
        "tools/list" if inner.capabilities.tools.is_some() => {
            let p: PaginatedRequestParams = parse_params(params)?;
            Ok(encode_result(id, inner.tool_list.page(p.cursor.as_deref())?))
        }
        "tools/call" if inner.capabilities.tools.is_some() => {
            let p: CallToolParams = parse_params(params)?;
            let route = inner.tools.get(p.name.as_str()).ok_or_else(|| {
                Error::invalid_params(format!("Unknown tool: {}", p.name)).with_data(json!({ "name": p.name }))
            })?;
            crate::headers::check_tool_params(headers.as_ref(), route.param_headers(), p.arguments.as_ref())?;
            let context = context();
            let as_task = match route.task {
                TaskSupport::Never => false,
                support => {
                    let declared = context.client_capabilities().supports_extension(TASKS_EXTENSION);
                    if support == TaskSupport::Required && !declared {
                        return Err(tasks_required());
                    }
                    declared
                }
            };
            let handler = route.handler.clone();
            let call = ToolCall {
                name: route.name.clone(),
                arguments: p.arguments.unwrap_or_default(),
                input_responses: p.input_responses,
                request_state: p.request_state,
                context,
            };
            if as_task {
                return crate::tasks::start(inner, id, route, call).await;
            }
            let mut outcome = handler.call(call).await?;
            stamp(outcome.result_meta_mut(), inner);
            Ok(encode_result(id, &outcome))
        }
        "tasks/get" | "tasks/update" | "tasks/cancel" if inner.runs_tasks() => {
            let context = context();
            // The capability is checked before the task is looked up.
            if !context.client_capabilities().supports_extension(TASKS_EXTENSION) {
                return Err(tasks_required());
            }
            match &*method {
                "tasks/get" => {
                    let p: TaskIdParams = parse_params(params)?;
                    Ok(encode_result(id, &crate::tasks::get(inner, &context, &p.task_id).await?))
                }
                "tasks/update" => {
                    let p: UpdateTaskParams = parse_params(params)?;
                    crate::tasks::update(inner, &context, &p.task_id, &p.input_responses).await?;
                    Ok(encode_result(id, &TaskAck::default()))
                }
                _ => {
                    let p: TaskIdParams = parse_params(params)?;
                    crate::tasks::cancel(inner, &context, &p.task_id).await?;
                    Ok(encode_result(id, &TaskAck::default()))
                }
            }
        }
        "prompts/list" if inner.capabilities.prompts.is_some() => {
            let p: PaginatedRequestParams = parse_params(params)?;
            Ok(encode_result(id, inner.prompt_list.page(p.cursor.as_deref())?))
        }
        "prompts/get" if inner.capabilities.prompts.is_some() => {
            let p: GetPromptParams = parse_params(params)?;
            let route = inner.prompts.get(p.name.as_str()).ok_or_else(|| {
                Error::invalid_params(format!("Unknown prompt: {}", p.name)).with_data(json!({ "name": p.name }))
            })?;
            let handler = route.handler.clone();
            let get = PromptGet::new(
                route.name.clone(),
                p.arguments.unwrap_or_default(),
                p.input_responses,
                p.request_state,
                context(),
                route.uses_rounds,
            );
            let mut outcome = handler.get(get).await?;
            stamp(outcome.result_meta_mut(), inner);
            Ok(encode_result(id, &outcome))
        }
        "resources/list" if inner.capabilities.resources.is_some() => {
            let p: PaginatedRequestParams = parse_params(params)?;
            let page = inner.resources.list_page(p.cursor.as_deref(), &context()).await?;
            Ok(encode_result(id, &*page))
        }
        "resources/templates/list" if inner.capabilities.resources.is_some() => {
            let p: PaginatedRequestParams = parse_params(params)?;
            Ok(encode_result(id, inner.resources.template_page(p.cursor.as_deref())?))
        }
        "resources/read" if inner.capabilities.resources.is_some() => {
            let p: ReadResourceParams = parse_params(params)?;
            let uri = crate::uri::normalize(&p.uri).ok_or_else(|| Error::resource_not_found(&p.uri))?;
            let found = inner.resources.find(&uri).ok_or_else(|| Error::resource_not_found(&p.uri))?;
            let handler = found.route.handler.clone();
            let read = ResourceRead {
                uri: p.uri,
                variables: found.variables,
                input_responses: p.input_responses,
                request_state: p.request_state,
                context: context(),
            };
            let mut outcome = handler.read(read).await?;
            stamp(outcome.result_meta_mut(), inner);
            Ok(encode_result(id, &outcome))
        }
        "completion/complete" if inner.capabilities.completions.is_some() => {
            let p: CompleteRequestParams = parse_params(params)?;
            let completion = crate::completion::answer(inner, p, context()).await?;
            Ok(encode_result(id, &CompleteResult { completion, meta: inner.result_meta.clone(), ..Default::default() }))
        }
        "subscriptions/listen" => {
            let p: SubscriptionsListenRequestParams = parse_params(params)?;
            crate::listen::listen(inner, id, p.notifications, context()).await
        }
        m => Err(not_found(m, inner)),
    }
}

/// -32021 naming the tasks extension.
pub(crate) fn tasks_required() -> Error {
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), JsonObject::new());
    Error::missing_capability(ClientCapabilities { extensions: Some(extensions), ..Default::default() })
}

fn not_found(method: &str, inner: &Inner) -> Error {
    let reason = if REMOVED.contains(&method) {
        Some("removed in protocol 2026-07-28".to_owned())
    } else {
        let capability = match method {
            "tools/list" | "tools/call" => Some(("tools", inner.capabilities.tools.is_some())),
            "resources/list" | "resources/templates/list" | "resources/read" => {
                Some(("resources", inner.capabilities.resources.is_some()))
            }
            "prompts/list" | "prompts/get" => Some(("prompts", inner.capabilities.prompts.is_some())),
            "completion/complete" => Some(("completions", inner.capabilities.completions.is_some())),
            "tasks/get" | "tasks/update" | "tasks/cancel" => Some(("tasks", inner.runs_tasks())),
            _ => None,
        };
        capability.filter(|(_, offered)| !offered).map(|(c, _)| format!("this server does not offer {c}"))
    };
    let err = Error::method_not_found(method);
    match reason {
        Some(reason) => err.with_data(json!({ "method": method, "reason": reason })),
        None => err,
    }
}

pub(crate) fn stamp(meta: &mut crate::model::ResultMeta, inner: &Inner) {
    if meta.server_info.is_none() {
        meta.server_info = inner.result_meta.server_info.clone();
    }
}

/// Decodes a method's parameters; `_meta` was read already and is skipped here.
fn parse_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, Error> {
    let raw = params.map_or("{}", RawValue::get);
    serde_json::from_str(raw).map_err(|e| Error::invalid_params(format!("Invalid params: {}", serde_message(&e))))
}
