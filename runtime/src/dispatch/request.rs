//! One request as dispatch and the layers around it see it: decoded once, before any layer
//! runs, with what went wrong kept for dispatch to answer in the order the revision gives.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::Front;
use crate::context::{Notifier, Principal};
use crate::envelope::{RawMeta, meta_from, read_request_meta, split_params};
use crate::error::{Error, serde_message};
use crate::headers::StandardHeaders;
use crate::jsonrpc::Request;
use crate::method::Method;
use crate::model::{JsonObject, RequestId, RequestMeta, TraceContext};
use crate::telemetry::{Trace, Transport};

/// A request on its way through the server's layers to its handler.
///
/// Layers see who is calling, the method and what it names (a tool, a prompt, a resource's
/// URI) before dispatch runs, and can carry values to handlers in its
/// [`extensions`](Self::extensions_mut) (an extractor reads them from the
/// [`RequestContext`](crate::RequestContext)).
#[derive(Debug)]
pub struct McpRequest {
    pub(crate) id: RequestId,
    pub(crate) method: Box<str>,
    /// The method as the table knows it; `None` for a name it does not have.
    pub(crate) known: Option<Method>,
    pub(crate) principal: Principal,
    /// The validated `_meta`, or why it is not valid (answered before anything else).
    pub(crate) meta: Result<Arc<RequestMeta>, Error>,
    pub(crate) params: Params,
    pub(crate) stream: Stream,
    /// Over HTTP: the standard headers, checked against the body (boxed: most of a request's
    /// journey they only ride along).
    pub(crate) headers: Option<Box<StandardHeaders>>,
    pub(crate) extensions: http::Extensions,
    pub(crate) origin: Origin,
    /// The request's server span (disabled when nobody observes it): handlers' spans nest in
    /// it, and the round machinery records the round on it.
    pub(crate) trace: Trace,
    /// What answers it in the layers' place (a legacy session), if anything does.
    pub(crate) front: Option<Arc<dyn Front>>,
}

/// Where a request came from, for its telemetry.
#[derive(Clone, Debug, Default)]
pub(crate) struct Origin {
    pub(crate) transport: Transport,
    /// The legacy session it belongs to, by the id its client uses (HTTP's `Mcp-Session-Id`).
    pub(crate) session: Option<Arc<str>>,
    /// The version a legacy session's handshake settled on (its requests' envelope is the
    /// 2026-07-28 one dispatch reads).
    pub(crate) version: Option<&'static str>,
    /// The trace context the transport carried (HTTP's `traceparent` headers), for a request
    /// whose `_meta` has none.
    pub(crate) trace: Option<Box<TraceContext>>,
}

/// What the request's answer travels with.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stream {
    /// Cancelled when the client cancels or goes away.
    pub(crate) cancellation: CancellationToken,
    /// Where the request's notifications go; without one, progress and logs are dropped and
    /// `subscriptions/listen` is refused.
    pub(crate) notifier: Option<Notifier>,
    /// Cancelled when the server shuts down: listen streams end with a result.
    pub(crate) shutdown: CancellationToken,
}

/// The parameters: decoded for the methods that name what they call, raw for the rest (each
/// method decodes its own when dispatch reaches it).
#[derive(Clone, Debug)]
pub(crate) enum Params {
    Raw(Option<Box<RawValue>>),
    Tool(Result<CallToolParams, Error>),
    Prompt(Result<GetPromptParams, Error>),
    Resource(Result<ReadResourceParams, Error>),
}

/// `tools/call` parameters as the server reads them: answers stay raw until a round asks for
/// them by key, so unknown extra entries are ignored rather than rejected.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallToolParams {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) arguments: Option<JsonObject>,
    #[serde(default)]
    pub(crate) input_responses: Option<JsonObject>,
    #[serde(default)]
    pub(crate) request_state: Option<String>,
}

/// `prompts/get` parameters as the server reads them, answers raw like [`CallToolParams`].
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetPromptParams {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) arguments: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    pub(crate) input_responses: Option<JsonObject>,
    #[serde(default)]
    pub(crate) request_state: Option<String>,
}

/// `resources/read` parameters as the server reads them, answers raw like [`CallToolParams`].
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReadResourceParams {
    pub(crate) uri: String,
    #[serde(default)]
    pub(crate) input_responses: Option<JsonObject>,
    #[serde(default)]
    pub(crate) request_state: Option<String>,
}

/// Decodes a method's parameters; `_meta` was read already and is skipped here.
pub(crate) fn parse_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, Error> {
    let raw = params.map_or("{}", RawValue::get);
    crate::strict::from_str(raw).map_err(|e| Error::invalid_params(format!("Invalid params: {}", serde_message(&e))))
}

impl Params {
    /// The parameters of the methods that name what they call, read in the same pass as the
    /// entries of `_meta`; `None` for other methods, and when either does not read (then
    /// [`read_request_meta`] and [`decode`](Self::decode) say what is wrong, in order).
    fn split<'a>(method: Option<Method>, raw: &'a RawValue) -> Option<(Option<RawMeta<'a>>, Self)> {
        fn split<'a, P: DeserializeOwned>(
            raw: &'a RawValue,
            wrap: fn(Result<P, Error>) -> Params,
        ) -> Option<(Option<RawMeta<'a>>, Params)> {
            split_params::<P>(raw.get()).ok().map(|(meta, params)| (meta, wrap(Ok(params))))
        }
        match method? {
            Method::ToolsCall => split(raw, Params::Tool),
            Method::PromptsGet => split(raw, Params::Prompt),
            Method::ResourcesRead => split(raw, Params::Resource),
            _ => None,
        }
    }

    fn decode(method: Option<Method>, raw: Option<Box<RawValue>>) -> Self {
        match method {
            Some(Method::ToolsCall) => Params::Tool(parse_params(raw.as_deref())),
            Some(Method::PromptsGet) => Params::Prompt(parse_params(raw.as_deref())),
            Some(Method::ResourcesRead) => Params::Resource(parse_params(raw.as_deref())),
            _ => Params::Raw(raw),
        }
    }

    /// The parameters as they arrived, for a method that reads its own.
    fn raw(&self) -> Option<&RawValue> {
        match self {
            Params::Raw(raw) => raw.as_deref(),
            _ => None,
        }
    }

    /// The name or URI the parameters name, when they decoded.
    fn target(&self) -> Option<&str> {
        match self {
            Params::Tool(Ok(p)) => Some(&p.name),
            Params::Prompt(Ok(p)) => Some(&p.name),
            Params::Resource(Ok(p)) => Some(&p.uri),
            _ => None,
        }
    }

    /// Answers to a round, sent again with the state that asked them (a legacy session
    /// playing a round out).
    pub(crate) fn answer(&mut self, responses: JsonObject, state: Option<String>) {
        let (input_responses, request_state) = match self {
            Params::Tool(Ok(p)) => (&mut p.input_responses, &mut p.request_state),
            Params::Prompt(Ok(p)) => (&mut p.input_responses, &mut p.request_state),
            Params::Resource(Ok(p)) => (&mut p.input_responses, &mut p.request_state),
            Params::Raw(_) | Params::Tool(Err(_)) | Params::Prompt(Err(_)) | Params::Resource(Err(_)) => return,
        };
        *input_responses = Some(responses);
        *request_state = state;
    }
}

impl McpRequest {
    /// A request of revision 2026-07-28, as a transport received it from `principal`.
    pub fn new(request: Request, principal: Principal) -> Self {
        McpRequest::checked(request, principal, None, Origin::default(), Stream::default())
    }

    /// A request from `origin` whose envelope is also checked against HTTP's standard headers.
    pub(crate) fn checked(
        request: Request,
        principal: Principal,
        headers: Option<StandardHeaders>,
        origin: Origin,
        stream: Stream,
    ) -> Self {
        let Request { id, method, params } = request;
        let known = Method::from_name(&method);
        let (meta, params) = match params.as_deref().and_then(|raw| Params::split(known, raw)) {
            // The common case: the params are read once, and what they name is checked
            // against `Mcp-Name` as dispatch will read it.
            Some((raw_meta, decoded)) => {
                let meta = meta_from(raw_meta.as_ref(), |version| match &headers {
                    Some(headers) => headers.check_named(version, &method, decoded.target()),
                    None => Ok(()),
                });
                (meta, decoded)
            }
            None => {
                let meta = read_request_meta(params.as_deref(), |version| match &headers {
                    Some(headers) => headers.check_known(version, &method, known, params.as_deref()),
                    None => Ok(()),
                });
                (meta, Params::decode(known, params))
            }
        };
        let meta = meta.map(Arc::new);
        McpRequest {
            id,
            method,
            known,
            principal,
            meta,
            params,
            stream,
            headers: headers.map(Box::new),
            extensions: http::Extensions::new(),
            origin,
            trace: Trace::default(),
            front: None,
        }
    }

    /// A request of a legacy session, whose envelope the session settled and which `front`
    /// answers.
    pub(crate) fn in_session(
        request: Request,
        meta: Result<Arc<RequestMeta>, Error>,
        principal: Principal,
        stream: Stream,
        origin: Origin,
        front: Arc<dyn Front>,
    ) -> Self {
        let Request { id, method, params } = request;
        let known = Method::from_name(&method);
        McpRequest {
            id,
            method,
            known,
            principal,
            meta,
            params: Params::decode(known, params),
            stream,
            headers: None,
            extensions: http::Extensions::new(),
            origin,
            trace: Trace::default(),
            front: Some(front),
        }
    }

    /// The same request once more, as it came (a legacy session serves it again for each
    /// round it plays out): within the same spans, with nothing the layers added.
    pub(crate) fn again(&self) -> Self {
        McpRequest {
            id: self.id.clone(),
            method: self.method.clone(),
            known: self.known,
            principal: self.principal.clone(),
            meta: self.meta.clone(),
            params: self.params.clone(),
            stream: self.stream.clone(),
            headers: self.headers.clone(),
            extensions: http::Extensions::new(),
            origin: self.origin.clone(),
            trace: self.trace.clone(),
            front: None,
        }
    }

    /// The parameters as they arrived, for the methods dispatch does not decode ahead.
    pub(crate) fn raw_params(&self) -> Option<&RawValue> {
        self.params.raw()
    }

    /// The JSON-RPC id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The method as the [method table](crate::method) knows it; `None` for a name it does
    /// not have (answered -32601).
    pub fn known_method(&self) -> Option<Method> {
        self.known
    }

    /// What the request names: the tool of `tools/call`, the prompt of `prompts/get`, the URI
    /// of `resources/read`; `None` for other methods and for parameters that do not decode.
    pub fn target(&self) -> Option<&str> {
        self.params.target()
    }

    /// Who is calling, as the transport authenticated them.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The transport it arrived on.
    pub fn transport(&self) -> Transport {
        self.origin.transport
    }

    /// The legacy (2025-11-25) session it belongs to, by the id its client uses; `None` for a
    /// stateless request and for a stdio session (which has no id).
    pub fn session_id(&self) -> Option<&str> {
        self.origin.session.as_deref()
    }

    /// The request's server span, once the server's telemetry (or a
    /// [`TelemetryLayer`](crate::middleware::TelemetryLayer)) opened it: record your own
    /// attributes on it. Disabled when nobody observes the request.
    pub fn span(&self) -> &tracing::Span {
        &self.trace.span
    }

    /// The validated `_meta` (protocol version, client capabilities, trace context); `None`
    /// when it is invalid, and then the request is answered with what is wrong with it.
    pub fn meta(&self) -> Option<&RequestMeta> {
        self.meta.as_deref().ok()
    }

    /// Cancelled when the client cancels the request or goes away.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.stream.cancellation
    }

    /// Values layers attach for handlers to read.
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// Values layers attach for handlers to read, mutably.
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }
}
