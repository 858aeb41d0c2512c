//! `completion/complete`: finding what completes the argument the user is typing.

use serde_json::json;

use crate::completion::CompletionRequest;
use crate::context::RequestContext;
use crate::error::Error;
use crate::model::{CompleteRequestParams, Completion, CompletionReference};
use crate::registry::Registry;

/// The suggestions for an argument that has no completer: none.
fn nothing() -> Completion {
    Completion { values: Vec::new(), total: Some(0), has_more: Some(false) }
}

/// Answers `completion/complete`: finds the prompt or resource template, checks that the
/// argument is one of its own, and runs its completer if it has one.
pub(crate) async fn answer(
    registry: &Registry,
    params: CompleteRequestParams,
    context: RequestContext,
) -> Result<Completion, Error> {
    let CompleteRequestParams { reference, argument, context: chosen } = params;
    let request = CompletionRequest {
        argument: argument.name,
        value: argument.value,
        arguments: chosen.and_then(|c| c.arguments).unwrap_or_default(),
        context,
    };
    let unknown_argument = |request: &CompletionRequest| {
        Error::invalid_params(format!("Unknown argument `{}`", request.argument))
            .with_data(json!({ "field": "argument.name", "argument": request.argument }))
    };
    let future = match &reference {
        CompletionReference::Prompt { name, .. } => {
            let route = registry.prompts.get(name.as_str()).ok_or_else(|| Error::unknown_name("prompt", name))?;
            request.context.principal().require_scopes(&route.scopes)?;
            let declared = route.prompt.arguments.iter().flatten().any(|a| a.name == request.argument);
            if !declared {
                return Err(unknown_argument(&request));
            }
            route.handler.complete(request)
        }
        CompletionReference::Resource { uri } => {
            let route = registry.resources.by_reference(uri).ok_or_else(|| Error::resource_not_found(uri))?;
            request.context.principal().require_scopes(&route.scopes)?;
            if !route.descriptor.template.variables().any(|v| v == request.argument) {
                return Err(unknown_argument(&request));
            }
            route.handler.complete(request)
        }
    };
    match future {
        Some(future) => future.await,
        None => Ok(nothing()),
    }
}
