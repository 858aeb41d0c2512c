//! The answers a round can receive, and the requests that ask for them.

use std::marker::PhantomData;

use serde_json::Value;

use super::{Answer, IntoInputRequest};
use crate::error::Error;
use crate::form::{Form, FormRequest, validate};
use crate::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams, ElicitRequestUrlParams,
    ElicitResult, InputRequest, ListRootsResult, ModelPreferences, Root, SamplingMessage, UrlMode,
};

fn field(key: &str) -> String {
    format!("inputResponses.{key}")
}

fn malformed(key: &str, expected: &str, error: impl std::fmt::Display) -> Error {
    Error::invalid_field(&field(key), format!("Input response `{key}` is not {expected}: {error}"))
}

fn decode_elicit_result(key: &str, response: &Value) -> Result<ElicitResult, Error> {
    serde_json::from_value(response.clone()).map_err(|e| malformed(key, "an elicitation result", e))
}

/// The answer to a form: what the user submitted, or that they declined or cancelled.
///
/// Accepted content has been checked against the form that was sent (required fields, types,
/// bounds, formats, choices) before it arrives here. Missing content is never consent.
#[derive(Clone, Debug, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form.
    Accept(T),
    /// The user explicitly said no.
    Decline,
    /// The user dismissed the form without deciding.
    Cancel,
}

impl<T: Form> IntoInputRequest for FormRequest<T> {
    fn into_input_request(self) -> Result<InputRequest, String> {
        FormRequest::into_input_request(self)
    }
}

impl<T: Form> Answer for Elicitation<T> {
    type Request = FormRequest<T>;

    fn decode(key: &str, response: &Value, sent: &InputRequest) -> Result<Self, Error> {
        let InputRequest::Elicit { params: ElicitRequestParams::Form(form) } = sent else {
            return Err(crate::request_state::refused());
        };
        let result = decode_elicit_result(key, response)?;
        match result.action {
            ElicitAction::Decline => Ok(Elicitation::Decline),
            ElicitAction::Cancel => Ok(Elicitation::Cancel),
            ElicitAction::Accept => {
                let content = result.content.unwrap_or_default();
                let in_form = |e: crate::form::FormViolation| {
                    Error::invalid_field(&format!("{}.{}", field(key), e.field), format!("Form answer `{key}`: {e}"))
                };
                validate(&content, &form.requested_schema).map_err(in_form)?;
                T::from_content(&content).map(Elicitation::Accept).map_err(in_form)
            }
        }
    }

    fn is_cancel(&self) -> bool {
        matches!(self, Elicitation::Cancel)
    }
}

/// A request to send the user to a URL for a step outside the client (sign-in, payment).
#[derive(Clone, Debug)]
pub struct UrlRequest {
    message: String,
    url: String,
}

impl UrlRequest {
    /// Asks the user to open `url`. The URL must carry no credentials or personal data, and the
    /// server must check that whoever completes the step is the user who asked.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        UrlRequest { message: message.into(), url: url.into() }
    }
}

impl IntoInputRequest for UrlRequest {
    fn into_input_request(self) -> Result<InputRequest, String> {
        if crate::uri::normalize(&self.url).is_none() {
            return Err(format!("{:?} is not an absolute URL", self.url));
        }
        Ok(InputRequest::Elicit {
            params: ElicitRequestParams::Url(ElicitRequestUrlParams {
                mode: UrlMode,
                message: self.message,
                url: self.url,
            }),
        })
    }
}

/// The answer to a URL request. `Accept` means the user agreed to open the URL, not that the
/// step is done: check your own record of it, and ask again if it is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UrlElicitation {
    /// The user agreed to open the URL.
    Accept,
    /// The user explicitly said no.
    Decline,
    /// The user dismissed the request.
    Cancel,
}

impl Answer for UrlElicitation {
    type Request = UrlRequest;

    fn decode(key: &str, response: &Value, sent: &InputRequest) -> Result<Self, Error> {
        if !matches!(sent, InputRequest::Elicit { params: ElicitRequestParams::Url(_) }) {
            return Err(crate::request_state::refused());
        }
        Ok(match decode_elicit_result(key, response)?.action {
            ElicitAction::Accept => UrlElicitation::Accept,
            ElicitAction::Decline => UrlElicitation::Decline,
            ElicitAction::Cancel => UrlElicitation::Cancel,
        })
    }

    fn is_cancel(&self) -> bool {
        matches!(self, UrlElicitation::Cancel)
    }
}

/// How a model's text becomes a typed value.
#[diagnostic::on_unimplemented(
    message = "a sampled answer cannot be `{Self}`",
    note = "use String for the model's text, or Json<T> to parse it as JSON into T"
)]
pub trait FromModelText: Sized + Send + 'static {
    /// Parses the text; the error says what was expected.
    fn from_model_text(text: &str) -> Result<Self, String>;
}

impl FromModelText for String {
    fn from_model_text(text: &str) -> Result<Self, String> {
        Ok(text.to_owned())
    }
}

/// A request for the client's model to write something (deprecated in 2026-07-28; prefer a
/// model the server owns).
#[derive(Clone, Debug)]
pub struct SamplingRequest<T> {
    params: CreateMessageRequestParams,
    _answer: PhantomData<fn() -> T>,
}

impl<T> SamplingRequest<T> {
    /// Asks the model to answer `prompt` in at most `max_tokens` tokens.
    pub fn new(prompt: impl Into<String>, max_tokens: u64) -> Self {
        SamplingRequest {
            params: CreateMessageRequestParams {
                messages: vec![SamplingMessage::user(prompt)],
                max_tokens,
                ..Default::default()
            },
            _answer: PhantomData,
        }
    }

    /// A system prompt.
    pub fn system_prompt(mut self, text: impl Into<String>) -> Self {
        self.params.system_prompt = Some(text.into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.params.temperature = Some(temperature);
        self
    }

    /// Hints for the client's choice of model.
    pub fn model_preferences(mut self, preferences: ModelPreferences) -> Self {
        self.params.model_preferences = Some(preferences);
        self
    }

    /// Appends a message to the conversation.
    pub fn message(mut self, message: SamplingMessage) -> Self {
        self.params.messages.push(message);
        self
    }
}

impl<T> IntoInputRequest for SamplingRequest<T> {
    fn into_input_request(self) -> Result<InputRequest, String> {
        if self.params.max_tokens == 0 {
            return Err("a sampling request needs max_tokens above 0".into());
        }
        Ok(InputRequest::CreateMessage { params: self.params })
    }
}

/// The model's answer: its text parsed into `T`, and which model answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampled<T> {
    /// The parsed answer.
    pub value: T,
    /// The model that answered (self-reported by the client).
    pub model: String,
}

impl<T: FromModelText> Answer for Sampled<T> {
    type Request = SamplingRequest<T>;

    fn decode(key: &str, response: &Value, sent: &InputRequest) -> Result<Self, Error> {
        if !matches!(sent, InputRequest::CreateMessage { .. }) {
            return Err(crate::request_state::refused());
        }
        let result: CreateMessageResult =
            serde_json::from_value(response.clone()).map_err(|e| malformed(key, "a sampling result", e))?;
        let value = T::from_model_text(&result.text())
            .map_err(|reason| Error::invalid_field(&field(key), format!("The model's answer `{key}` is {reason}")))?;
        Ok(Sampled { value, model: result.model })
    }
}

/// A request for the client's roots (deprecated in 2026-07-28; a migration aid).
#[derive(Clone, Copy, Debug, Default)]
pub struct RootsRequest;

impl IntoInputRequest for RootsRequest {
    fn into_input_request(self) -> Result<InputRequest, String> {
        Ok(InputRequest::ListRoots { params: None })
    }
}

/// The client's roots; every one a `file://` URI.
#[derive(Clone, Debug, PartialEq)]
pub struct Roots(pub Vec<Root>);

impl Answer for Roots {
    type Request = RootsRequest;

    fn decode(key: &str, response: &Value, sent: &InputRequest) -> Result<Self, Error> {
        if !matches!(sent, InputRequest::ListRoots { .. }) {
            return Err(crate::request_state::refused());
        }
        let result: ListRootsResult =
            serde_json::from_value(response.clone()).map_err(|e| malformed(key, "a roots result", e))?;
        if let Some(bad) = result.roots.iter().find(|r| !r.uri.starts_with("file://")) {
            return Err(Error::invalid_field(&field(key), format!("Root {:?} is not a file:// URI", bad.uri)));
        }
        Ok(Roots(result.roots))
    }
}
