//! What a client user calls: lists (a page, or every page), tools, prompts and resources with
//! their rounds answered, completions, and a call driven round by round by hand.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, PoisonError};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::error::ClientError;
use super::rounds::{Resumable, answer_round};
use super::{Client, Extras, read};
use crate::headers::{param_header_values, param_headers};
use crate::method::Method;
use crate::model::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, DiscoverResult, EmptyParams,
    GetPromptRequestParams, GetPromptResult, InputRequiredResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Outcome, PaginatedRequestParams,
    ProgressNotificationParams, ProgressToken, Prompt, ReadResourceRequestParams, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};

/// Pages a `list_all_*` follows at most: a server whose cursors never end fails the call
/// rather than hanging it.
const MAX_PAGES: usize = 10_000;

#[derive(Deserialize)]
struct Kind<'a> {
    #[serde(rename = "resultType", borrow, default)]
    result_type: Option<Cow<'a, str>>,
}

/// What a result's `resultType` says it is.
#[derive(Debug, PartialEq)]
enum Shape {
    /// `complete`, or no `resultType` (a 2025-11-25 server's results have none).
    Complete,
    /// `input_required`.
    InputRequired,
    /// `task` (the tasks extension).
    Task,
}

/// Reads a result's `resultType` (once per answer: the result itself is read after).
fn shape_of(method: &'static str, raw: &RawValue) -> Result<Shape, ClientError> {
    let kind: Kind<'_> = serde_json::from_str(raw.get()).map_err(|e| ClientError::unexpected(method, e.to_string()))?;
    match kind.result_type.as_deref() {
        None | Some("complete") => Ok(Shape::Complete),
        Some("input_required") => Ok(Shape::InputRequired),
        Some("task") => Ok(Shape::Task),
        Some(other) => Err(ClientError::unexpected(method, format!("unknown resultType {other:?}"))),
    }
}

/// A result that may ask for input, read as its `resultType` says: absent or `complete` is
/// the result, `input_required` a round, anything else an error.
fn outcome<T: DeserializeOwned + crate::model::MayRequireInput>(
    method: &'static str,
    raw: &RawValue,
) -> Result<Outcome<T>, ClientError> {
    outcome_shaped(method, raw, shape_of(method, raw)?)
}

fn outcome_shaped<T: DeserializeOwned + crate::model::MayRequireInput>(
    method: &'static str,
    raw: &RawValue,
    shape: Shape,
) -> Result<Outcome<T>, ClientError> {
    match shape {
        Shape::Complete => read(method, raw).map(Outcome::Complete),
        Shape::InputRequired => read::<InputRequiredResult>(method, raw).map(Outcome::InputRequired),
        Shape::Task => Err(ClientError::unexpected(method, "a task, which only tools/call may become")),
    }
}

impl Client {
    /// `server/discover`, asked again (the answer when the client connected is
    /// [`Client::hello`]); cached as its hints say.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        let raw = self.cached(Method::ServerDiscover, &EmptyParams::default()).await?;
        read(Method::ServerDiscover.name(), &raw)
    }

    async fn page<R: DeserializeOwned>(&self, method: Method, cursor: Option<String>) -> Result<R, ClientError> {
        let params = PaginatedRequestParams { cursor, ..Default::default() };
        let raw = self.cached(method, &params).await?;
        read(method.name(), &raw)
    }

    /// A result from the cache while it is fresh, else from the server (and then kept as its
    /// hints say).
    async fn cached<P: Serialize>(&self, method: Method, params: &P) -> Result<Box<RawValue>, ClientError> {
        if !self.inner.caching {
            return self.send(method, params, Extras::default()).await;
        }
        let key = serde_json::to_string(params).unwrap_or_default();
        let credential = self.inner.link.transport.credential();
        if let Some(kept) = self.inner.cache.get(method, &key, credential) {
            return Ok((*kept).to_owned());
        }
        let raw = self.send(method, params, Extras::default()).await?;
        self.inner.cache.put(method, key, credential, &raw);
        Ok(raw)
    }

    async fn every_page<R: DeserializeOwned, T>(
        &self,
        method: Method,
        split: fn(R) -> (Vec<T>, Option<String>),
    ) -> Result<Vec<T>, ClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            let (items, next) = split(self.page(method, cursor).await?);
            all.extend(items);
            match next {
                Some(next) => cursor = Some(next),
                None => return Ok(all),
            }
        }
        Err(ClientError::unexpected(method.name(), format!("the cursors did not end after {MAX_PAGES} pages")))
    }

    /// One page of `tools/list`.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, ClientError> {
        self.page(Method::ToolsList, cursor).await
    }

    /// Every tool, following cursors. The client also keeps what each tool's schema says its
    /// calls send as `Mcp-Param-*` headers.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let tools = self.every_page(Method::ToolsList, |page: ListToolsResult| (page.tools, page.next_cursor)).await?;
        let headers: HashMap<_, _> =
            tools.iter().map(|tool| (tool.name.clone(), param_headers(&tool.input_schema))).collect();
        *self.tool_headers() = Some(headers);
        Ok(tools)
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(&self, cursor: Option<String>) -> Result<ListPromptsResult, ClientError> {
        self.page(Method::PromptsList, cursor).await
    }

    /// Every prompt, following cursors.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.every_page(Method::PromptsList, |page: ListPromptsResult| (page.prompts, page.next_cursor)).await
    }

    /// One page of `resources/list`.
    pub async fn list_resources(&self, cursor: Option<String>) -> Result<ListResourcesResult, ClientError> {
        self.page(Method::ResourcesList, cursor).await
    }

    /// Every resource, following cursors.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.every_page(Method::ResourcesList, |page: ListResourcesResult| (page.resources, page.next_cursor)).await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        self.page(Method::ResourcesTemplatesList, cursor).await
    }

    /// Every resource template, following cursors.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.every_page(Method::ResourcesTemplatesList, |page: ListResourceTemplatesResult| {
            (page.resource_templates, page.next_cursor)
        })
        .await
    }

    /// Calls tool `name` with `arguments` (anything that serializes to a JSON object, or
    /// `null` for none), answering every round it asks with the client's handler until it
    /// completes. A tool that reports its own failure is [`ClientError::Tool`].
    pub async fn call_tool(&self, name: &str, arguments: impl Serialize) -> Result<CallToolResult, ClientError> {
        let arguments = match serde_json::to_value(arguments) {
            Ok(Value::Object(arguments)) => Some(arguments),
            Ok(Value::Null) => None,
            Ok(other) => return Err(arguments_error(name, &format!("a JSON object, not {other}"))),
            Err(e) => return Err(arguments_error(name, &e.to_string())),
        };
        let params = CallToolRequestParams { name: name.to_owned(), arguments, ..Default::default() };
        let result = self.call_tool_with(params).await?;
        if result.is_error == Some(true) {
            return Err(ClientError::Tool { name: name.to_owned(), result: Box::new(result) });
        }
        Ok(result)
    }

    /// `tools/call` with params as given (a tool's failure is a result here, not an error),
    /// answering every round.
    pub async fn call_tool_with(&self, params: CallToolRequestParams) -> Result<CallToolResult, ClientError> {
        let headers = self.param_headers(&params.name, params.arguments.as_ref()).await?;
        let subject = params.name.clone();
        self.play(Method::ToolsCall, params, &subject, headers, None).await
    }

    /// [`Client::call_tool_with`], asking the server for progress: each notification goes to
    /// `on_progress` (rather than to the handler) while the call runs.
    pub async fn call_tool_with_progress(
        &self,
        params: CallToolRequestParams,
        on_progress: impl Fn(ProgressNotificationParams) + Send + Sync + 'static,
    ) -> Result<CallToolResult, ClientError> {
        let token = ProgressToken::from(format!("progress-{}", self.inner.link.next_id()));
        let routes = self.inner.progress.clone();
        routes.lock().unwrap_or_else(PoisonError::into_inner).insert(token.clone(), Arc::new(on_progress));
        // Unrouted when the call ends, however it ends (its future dropped included).
        let _unroute = Unroute { routes, token: token.clone() };
        let headers = self.param_headers(&params.name, params.arguments.as_ref()).await?;
        let subject = params.name.clone();
        self.play(Method::ToolsCall, params, &subject, headers, Some(&token)).await
    }

    /// `prompts/get`, answering every round.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, ClientError> {
        let params = GetPromptRequestParams { name: name.to_owned(), arguments: Some(arguments), ..Default::default() };
        self.play(Method::PromptsGet, params, name, Vec::new(), None).await
    }

    /// `resources/read`, answering every round. A read that completes at once is cached as
    /// its hints say (one that asked for input, never).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let params = ReadResourceRequestParams { uri: uri.to_owned(), ..Default::default() };
        let key = serde_json::to_string(&params).unwrap_or_default();
        let credential = self.inner.link.transport.credential();
        if self.inner.caching
            && let Some(kept) = self.inner.cache.get(Method::ResourcesRead, &key, credential)
        {
            return read(Method::ResourcesRead.name(), &kept);
        }
        self.play(Method::ResourcesRead, params, uri, Vec::new(), None).await
    }

    /// `completion/complete`.
    pub async fn complete(&self, params: CompleteRequestParams) -> Result<CompleteResult, ClientError> {
        let raw = self.send(Method::CompletionComplete, &params, Extras::default()).await?;
        read(Method::CompletionComplete.name(), &raw)
    }

    /// A call driven round by round by hand: [`RoundByRound::send`] sends the current round
    /// and returns what the server answered; [`RoundByRound::answer`] sets the next round's
    /// answers, the server's state echoed.
    ///
    /// ```no_run
    /// use mcp_rounds::client::Client;
    /// use mcp_rounds::model::{CallToolRequestParams, ElicitResult, InputResponse, Outcome};
    ///
    /// # async fn run(client: Client) -> Result<(), mcp_rounds::client::ClientError> {
    /// let mut call = client.round_by_round(CallToolRequestParams::new("greet", Default::default()));
    /// let result = loop {
    ///     match call.send().await? {
    ///         Outcome::Complete(result) => break result,
    ///         Outcome::InputRequired(asked) => {
    ///             let answers = asked.input_requests.iter().flatten().map(|(key, _)| {
    ///                 (key.clone(), InputResponse::Elicit(ElicitResult::decline()))
    ///             });
    ///             call.answer(&asked, answers.collect());
    ///         }
    ///     }
    /// };
    /// # Ok(()) }
    /// ```
    pub fn round_by_round<P: ByHand>(&self, params: P) -> RoundByRound<P> {
        RoundByRound { client: self.clone(), params }
    }

    /// Plays a call's rounds out: sends it, answers what it asks, sends it again with the
    /// answers and the state, until it completes or the round limit is reached.
    async fn play<P, T>(
        &self,
        method: Method,
        mut params: P,
        subject: &str,
        headers: Vec<(String, String)>,
        progress: Option<&ProgressToken>,
    ) -> Result<T, ClientError>
    where
        P: Resumable + Serialize,
        T: DeserializeOwned + crate::model::MayRequireInput,
    {
        let limit = self.inner.max_rounds;
        // Rounds answered so far, a task's included: a server that keeps asking is stopped at
        // the limit however it asks.
        let mut rounds = 0;
        let mut first = true;
        loop {
            let extras = Extras { subject: Some(subject), headers: headers.clone(), progress, ..Extras::default() };
            let mut raw = self.send(method, &params, extras).await?;
            let mut shape = shape_of(method.name(), &raw)?;
            if shape == Shape::Task && method == Method::ToolsCall {
                raw = self.follow_task(&raw, &mut rounds).await?;
                shape = shape_of(method.name(), &raw)?;
                // A task's result ends the call: it asks nothing more, and is no task again.
                if shape != Shape::Complete {
                    return Err(ClientError::unexpected(method.name(), "a task's result that is not a complete one"));
                }
            }
            if first && self.inner.caching && method == Method::ResourcesRead {
                let key = serde_json::to_string(&params).unwrap_or_default();
                self.inner.cache.put(method, key, self.inner.link.transport.credential(), &raw);
            }
            first = false;
            match outcome_shaped::<T>(method.name(), &raw, shape)? {
                Outcome::Complete(result) => return Ok(result),
                Outcome::InputRequired(asked) => {
                    if rounds == limit {
                        return Err(ClientError::TooManyRounds { method: method.name().into(), limit });
                    }
                    rounds += 1;
                    let responses = match asked.input_requests {
                        Some(requests) => Some(self.answer_round(requests, rounds, method).await?),
                        None => None,
                    };
                    params.resume(responses, asked.request_state);
                }
            }
        }
    }

    /// Answers one round of a call of `method` with the client's handler, within its limits.
    pub(crate) async fn answer_round(
        &self,
        requests: crate::model::InputRequests,
        round: usize,
        method: Method,
    ) -> Result<crate::model::InputResponses, ClientError> {
        let limit = self.inner.limits.max_input_requests;
        answer_round(&*self.inner.handler, requests, round, (method.name(), limit)).await
    }

    /// The `Mcp-Param-*` headers of a call of tool `name` over HTTP, from its listed schema
    /// (listing the tools first if the client has not yet); a tool whose annotations are
    /// invalid is refused.
    async fn param_headers(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
    ) -> Result<Vec<(String, String)>, ClientError> {
        if !self.inner.headers || self.protocol().is_legacy() {
            return Ok(Vec::new());
        }
        if self.tool_headers().is_none() {
            self.list_all_tools().await?;
        }
        let headers = self.tool_headers();
        match headers.as_ref().and_then(|tools| tools.get(name)) {
            Some(Ok(declared)) => Ok(param_header_values(declared, arguments)),
            Some(Err(reason)) => Err(ClientError::InvalidTool { name: name.to_owned(), reason: reason.clone() }),
            None => Ok(Vec::new()),
        }
    }
}

struct Unroute {
    routes: Arc<super::events::ProgressRoutes>,
    token: ProgressToken,
}

impl Drop for Unroute {
    fn drop(&mut self) {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.token);
    }
}

fn arguments_error(name: &str, reason: &str) -> ClientError {
    ClientError::InvalidTool { name: name.to_owned(), reason: format!("the arguments must be {reason}") }
}

/// The params of a call a [`RoundByRound`] can drive: `tools/call`, `prompts/get`,
/// `resources/read`.
pub trait ByHand: Resumable + Serialize + Send + Sync {
    /// The method.
    const METHOD: Method;
    /// Its complete result.
    type Result: DeserializeOwned + crate::model::MayRequireInput;
    /// What it names (`Mcp-Name`).
    fn subject(&self) -> &str;
}

impl ByHand for CallToolRequestParams {
    const METHOD: Method = Method::ToolsCall;
    type Result = CallToolResult;
    fn subject(&self) -> &str {
        &self.name
    }
}

impl ByHand for GetPromptRequestParams {
    const METHOD: Method = Method::PromptsGet;
    type Result = GetPromptResult;
    fn subject(&self) -> &str {
        &self.name
    }
}

impl ByHand for ReadResourceRequestParams {
    const METHOD: Method = Method::ResourcesRead;
    type Result = ReadResourceResult;
    fn subject(&self) -> &str {
        &self.uri
    }
}

/// A call driven round by round: see [`Client::round_by_round`].
#[derive(Debug)]
pub struct RoundByRound<P> {
    client: Client,
    params: P,
}

impl<P: ByHand> RoundByRound<P> {
    /// Sends the current round (each with a new id) and returns the server's answer as is.
    pub async fn send(&mut self) -> Result<Outcome<P::Result>, ClientError> {
        let method = P::METHOD;
        let raw = self.client.send(method, &self.params, Extras::naming(Some(self.params.subject()))).await?;
        outcome(method.name(), &raw)
    }

    /// Sets the next round: `answers` to what `asked` asked (replacing the last round's) and
    /// its `requestState` echoed byte for byte (none when it sent none).
    pub fn answer(&mut self, asked: &InputRequiredResult, answers: crate::model::InputResponses) {
        let answers = (!answers.is_empty() || asked.input_requests.is_some()).then_some(answers);
        self.params.resume(answers, asked.request_state.clone());
    }

    /// The params the next round sends.
    pub fn params(&self) -> &P {
        &self.params
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    #[test]
    fn a_missing_result_type_is_complete_and_an_unknown_one_an_error() {
        let legacy = outcome::<CallToolResult>("tools/call", &raw(r#"{"content":[]}"#)).unwrap();
        assert!(matches!(legacy, Outcome::Complete(_)));
        let asked =
            outcome::<CallToolResult>("tools/call", &raw(r#"{"resultType":"input_required","requestState":"s"}"#));
        assert!(matches!(asked.unwrap(), Outcome::InputRequired(_)));
        let unknown = outcome::<CallToolResult>("tools/call", &raw(r#"{"resultType":"later","content":[]}"#));
        let error = unknown.unwrap_err();
        assert!(error.to_string().contains("unknown resultType \"later\""), "{error}");
    }
}
