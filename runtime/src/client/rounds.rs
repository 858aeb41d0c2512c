//! Answering what a server asks, the same way in both revisions: an `input_required` round's
//! input requests (all of one round at once), or a 2025-11-25 server's own request. A form's
//! answer has its defaults filled in and is checked against the form before it goes out.

use futures_util::future::try_join_all;

use super::error::ClientError;
use super::handler::{Asking, DynHandler};
use super::limits::Limit;
use crate::form::{FormViolation, fill_defaults, validate};
use crate::model::{
    CallToolRequestParams, ElicitAction, ElicitRequestParams, GetPromptRequestParams, InputRequest, InputRequests,
    InputResponse, InputResponses, ReadResourceRequestParams,
};

/// The params of a method that may answer `input_required`, which its retry carries the
/// answers and the state in.
pub trait Resumable {
    /// Sets the answers and the echoed state of the next round (both replace the previous
    /// round's; `None` sends none).
    fn resume(&mut self, responses: Option<InputResponses>, state: Option<String>);
}

macro_rules! resumable {
    ($($params:ty),*) => {$(
        impl Resumable for $params {
            fn resume(&mut self, responses: Option<InputResponses>, state: Option<String>) {
                self.input_responses = responses;
                self.request_state = state;
            }
        }
    )*};
}

resumable!(CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams);

/// Answers every input request of `round` of a call of `method`, concurrently; the first
/// failure fails the round. A round asking more than `limit` requests is refused whole.
pub(crate) async fn answer_round(
    handler: &dyn DynHandler,
    requests: InputRequests,
    round: usize,
    (method, limit): (&'static str, usize),
) -> Result<InputResponses, ClientError> {
    if requests.len() > limit {
        let limit = Limit::InputRequests { asked: requests.len(), limit };
        return Err(ClientError::OverLimit { method: method.into(), limit });
    }
    let answers = requests.into_iter().map(|(key, request)| async move {
        let asking = Asking::new(key, round);
        let answer = answer(handler, &asking, request).await?;
        Ok::<_, ClientError>((asking.key, answer))
    });
    Ok(try_join_all(answers).await?.into_iter().collect())
}

/// Why an input request has no answer.
pub(crate) enum Unanswerable {
    /// The handler refused it (or has no answer for its kind).
    Handler(crate::Error),
    /// The handler's answer to a form does not fit the form.
    Invalid(FormViolation),
}

/// Answers one embedded input request with the handler.
pub(crate) async fn answer(
    handler: &dyn DynHandler,
    asking: &Asking,
    request: InputRequest,
) -> Result<InputResponse, ClientError> {
    let method = request.method().name();
    let key = asking.key.as_str();
    respond(handler, request, asking).await.map_err(|refusal| match refusal {
        Unanswerable::Handler(error) => {
            ClientError::Unanswered { key: key.to_owned(), method: method.into(), reason: error.message().to_owned() }
        }
        Unanswerable::Invalid(violation) => ClientError::InvalidAnswer { key: key.to_owned(), violation },
    })
}

/// The handler's answer to `request`, a form's defaults filled in and checked.
pub(crate) async fn respond(
    handler: &dyn DynHandler,
    request: InputRequest,
    asking: &Asking,
) -> Result<InputResponse, Unanswerable> {
    let refused = Unanswerable::Handler;
    match request {
        InputRequest::Elicit { params } => {
            let schema = match &params {
                ElicitRequestParams::Form(form) => Some(form.requested_schema.clone()),
                _ => None,
            };
            let mut result = handler.elicit(params, asking).await.map_err(refused)?;
            if let (Some(schema), ElicitAction::Accept) = (schema, result.action) {
                let content = result.content.get_or_insert_with(Default::default);
                fill_defaults(content, &schema);
                validate(content, &schema).map_err(Unanswerable::Invalid)?;
            }
            Ok(InputResponse::Elicit(result))
        }
        InputRequest::CreateMessage { params } => {
            let result = handler.create_message(params, asking).await.map_err(refused)?;
            Ok(InputResponse::CreateMessage(Box::new(result)))
        }
        InputRequest::ListRoots { .. } => {
            Ok(InputResponse::ListRoots(handler.list_roots(asking).await.map_err(refused)?))
        }
    }
}
