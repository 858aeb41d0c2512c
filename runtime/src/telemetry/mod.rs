//! What the server says about its work, by the OpenTelemetry semantic conventions for MCP: one
//! server span per request with the conventions' name and attributes, the spans nested in it
//! (the handler, each `requestState` step), and the metrics.
//!
//! Every span is a `tracing` span, so any subscriber sees it (the `fmt` one in a terminal, a
//! `tracing-opentelemetry` layer of yours). With the `otel` feature, once [`enable`] ran (as
//! [`otel::init`](crate::otel::init) does), the framework's own spans also go straight to the
//! OpenTelemetry API, as children of the caller's trace (the `traceparent` of the request's
//! `_meta`, else of its HTTP headers): a request the sampler drops then costs almost nothing,
//! and spans of your own code inside a handler nest under the handler's span. The metrics are
//! recorded from then on too.
//!
//! Nothing the client sent as content (arguments, answers, state) or as credentials ever
//! becomes an attribute.

#[cfg(feature = "otel")]
mod direct;
#[cfg(feature = "otel")]
mod trace_ids;
#[cfg(feature = "otel")]
pub(crate) use trace_ids::Ids;
mod metrics;
mod nested;
#[cfg(feature = "otel")]
mod sampling;
mod spans;

use std::future::Future;
use std::time::Instant;

use tracing::Instrument as _;

pub(crate) use metrics::{ListenStream, StateRejection, state_rejected};
pub(crate) use nested::Nested;

use crate::method::{Method, Subject};
use crate::model::{RequestId, TraceContext};

/// The `tracing` target of the server spans.
pub const SERVER_TARGET: &str = "mcp_rounds::server";

/// The `tracing` targets of the spans nested in a server span: the handler's and the
/// `requestState` steps'.
pub const NESTED_TARGETS: [&str; 2] = ["mcp_rounds::handler", "mcp_rounds::state"];

/// Sends the framework's spans and metrics to the global OpenTelemetry providers from now on:
/// install them first ([`otel::init`](crate::otel::init) does both). The framework's spans
/// then reach OpenTelemetry directly; keep [`SERVER_TARGET`] and [`NESTED_TARGETS`] out of a
/// `tracing-opentelemetry` layer of your own, or they are exported twice.
#[cfg(feature = "otel")]
pub fn enable() {
    direct::enable();
    metrics::enable();
}

/// [`enable`], the framework's spans made by `provider` (installed as the global provider too)
/// without going through the global one. The provider was built with `sampler` and [`Ids`].
#[cfg(feature = "otel")]
pub(crate) fn enable_with(
    provider: &opentelemetry_sdk::trace::SdkTracerProvider,
    sampler: Box<dyn opentelemetry_sdk::trace::ShouldSample>,
) {
    direct::enable_with(provider, sampler);
    metrics::enable();
}

/// How a request reached the server (`network.transport`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// stdio: a pipe.
    Pipe,
    /// Streamable HTTP, over TCP.
    Tcp,
    /// Called in-process (tests, benchmarks, a transport of your own).
    #[default]
    InProcess,
}

impl Transport {
    /// Its `network.transport` value, when it has one.
    pub fn as_str(self) -> Option<&'static str> {
        match self {
            Transport::Pipe => Some("pipe"),
            Transport::Tcp => Some("tcp"),
            Transport::InProcess => None,
        }
    }
}

/// What a request names, as its span and metrics say it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target<'a> {
    None,
    Tool(&'a str),
    Prompt(&'a str),
    /// A resource's URI: an attribute of the span, never part of its name (too many of them).
    Resource(&'a str),
}

impl<'a> Target<'a> {
    /// What a request of `method` names, as its parameters give it (`target`): a tool, a
    /// prompt or a resource's URI.
    pub(crate) fn of(method: Option<Method>, target: Option<&'a str>) -> Self {
        match (method.and_then(Method::subject), target) {
            (Some(Subject::Tool), Some(name)) => Target::Tool(name),
            (Some(Subject::Prompt), Some(name)) => Target::Prompt(name),
            (Some(Subject::Resource), Some(uri)) => Target::Resource(uri),
            _ => Target::None,
        }
    }

    fn named(self) -> Option<&'a str> {
        match self {
            Target::Tool(name) | Target::Prompt(name) => Some(name),
            Target::None | Target::Resource(_) => None,
        }
    }
}

/// What a request's server span is made from.
pub(crate) struct RequestInfo<'a> {
    pub(crate) method: &'a str,
    /// The method as the table knows it.
    pub(crate) known: Option<Method>,
    pub(crate) id: &'a RequestId,
    pub(crate) target: Target<'a>,
    pub(crate) protocol_version: Option<&'a str>,
    /// The legacy session it belongs to, by the id its client uses.
    pub(crate) session: Option<&'a str>,
    pub(crate) transport: Transport,
    /// The caller's trace context, from `_meta`.
    pub(crate) trace: Option<&'a TraceContext>,
    /// The caller's trace context from the transport (HTTP headers), when `_meta` has none.
    pub(crate) transport_trace: Option<&'a TraceContext>,
}

impl RequestInfo<'_> {
    /// The caller's trace context: `_meta`'s when it has a `traceparent`, else the transport's.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))] // a parent only with OpenTelemetry
    fn caller(&self) -> Option<&TraceContext> {
        self.trace.filter(|trace| trace.traceparent.is_some()).or(self.transport_trace)
    }
}

/// A request's spans, as what runs inside it records on them.
#[derive(Clone, Debug)]
pub(crate) struct Trace {
    pub(crate) span: tracing::Span,
    /// The same span in OpenTelemetry, when the framework's spans go there directly and the
    /// sampler kept it: a dropped request records nothing, and asks nothing of its span to
    /// find that out.
    #[cfg(feature = "otel")]
    otel: Option<opentelemetry::Context>,
    /// Whether the framework's spans go to OpenTelemetry directly (so that no `otel` means
    /// dropped, not seen only through `tracing`).
    #[cfg(feature = "otel")]
    direct: bool,
}

impl Default for Trace {
    fn default() -> Self {
        Trace {
            span: tracing::Span::none(),
            #[cfg(feature = "otel")]
            otel: None,
            #[cfg(feature = "otel")]
            direct: false,
        }
    }
}

impl Trace {
    /// Whether a span records what happens to the request: the `tracing` one, or the
    /// OpenTelemetry one (kept by its sampler, or seen only through `tracing`).
    pub(crate) fn records(&self) -> bool {
        #[cfg(feature = "otel")]
        if self.otel.is_some() {
            return true;
        }
        !self.span.is_disabled()
    }

    /// Records how the request ended on its spans, and ends the OpenTelemetry one.
    #[inline(never)]
    fn end(&mut self, method: Option<Method>, ending: Ending<'_>, named_exists: bool) {
        if !named_exists {
            let name = metrics::method_name(method);
            self.span.record("otel.name", name);
            #[cfg(feature = "otel")]
            match &self.otel {
                Some(context) => direct::rename(context, name),
                None if !self.direct => direct::rename_layered(&self.span, name),
                None => {}
            }
        }
        match ending {
            Ending::Complete => self.record_static("mcp_rounds.result_type", "complete"),
            Ending::ToolError => {
                self.record_static("mcp_rounds.result_type", "complete");
                self.record_static("error.type", "tool_error");
                self.span.record("otel.status_code", "error");
                #[cfg(feature = "otel")]
                direct::fail(self.otel.as_ref(), "");
            }
            Ending::InputRequired => self.record_static("mcp_rounds.result_type", "input_required"),
            Ending::Task => self.record_static("mcp_rounds.result_type", "task"),
            Ending::Error { code, message } => {
                let code_text = code.to_string();
                self.record_str("error.type", &code_text);
                self.record_str("rpc.response.status_code", &code_text);
                self.span.record("otel.status_code", "error");
                self.span.record("otel.status_description", message);
                #[cfg(feature = "otel")]
                direct::fail(self.otel.as_ref(), message);
            }
            Ending::Cancelled => self.record_static("error.type", "cancelled"),
        }
        #[cfg(feature = "otel")]
        direct::end(self.otel.take());
    }

    fn record_str(&self, key: &'static str, value: &str) {
        self.span.record(key, value);
        #[cfg(feature = "otel")]
        direct::record(self.otel.as_ref(), key, || value.to_owned().into());
    }

    fn record_static(&self, key: &'static str, value: &'static str) {
        self.span.record(key, value);
        #[cfg(feature = "otel")]
        direct::record(self.otel.as_ref(), key, || value.into());
    }

    fn record_i64(&self, key: &'static str, value: i64) {
        self.span.record(key, value);
        #[cfg(feature = "otel")]
        direct::record(self.otel.as_ref(), key, || value.into());
    }
}

/// What a request's future runs inside: the spans of the request an [`Observed`] observes,
/// taken from it once (its OpenTelemetry context moves, rather than being copied).
pub(crate) struct Scope {
    span: tracing::Span,
    #[cfg(feature = "otel")]
    current: Option<opentelemetry::Context>,
}

impl Scope {
    /// The scope of the request `observed` observes; none when it is not observed.
    pub(crate) fn of(observed: Option<&mut Observed>) -> Self {
        match observed {
            Some(observed) => Scope {
                span: observed.trace.span.clone(),
                #[cfg(feature = "otel")]
                current: observed.current.take(),
            },
            None => Scope {
                span: tracing::Span::none(),
                #[cfg(feature = "otel")]
                current: None,
            },
        }
    }

    /// `future`, with the request's spans current (`tracing`'s and OpenTelemetry's) while it
    /// runs, so that what it opens nests in them.
    pub(crate) fn wrap<F: Future>(self, future: F) -> impl Future<Output = F::Output> + use<F> {
        #[cfg(feature = "otel")]
        let future = direct::within(self.current, future);
        future.instrument(self.span)
    }
}

/// How a request ended, as its span and the duration metric say it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ending<'a> {
    Complete,
    /// A tool's own failure (`isError`): `error.type` is `tool_error`.
    ToolError,
    InputRequired,
    Task,
    Error {
        code: i32,
        message: &'a str,
    },
    /// The client cancelled it or went away; no answer was sent.
    Cancelled,
}

/// A request being observed: its server span, and when it started. Dropped before it is
/// [finished](Self::finish), it is recorded as cancelled.
#[derive(Debug)]
pub(crate) struct Observed {
    pub(crate) trace: Trace,
    /// The OpenTelemetry context current while the request runs (its span, kept or dropped:
    /// spans of the handler's own follow the decision), until [`within`] takes it.
    #[cfg(feature = "otel")]
    current: Option<opentelemetry::Context>,
    started: Instant,
    /// The method, when it is a request the table knows (the metrics' `_OTHER` otherwise).
    method: Option<Method>,
    /// Its series of the duration metric, when metrics are recorded.
    series: Option<metrics::Series>,
    finished: bool,
}

impl Observed {
    /// Starts observing the request `info` describes; `None` when nobody would see it. It
    /// rides along in the request's future, which is boxed once whole: a box of its own would
    /// cost an allocation per observed request to save a few words per unobserved one.
    pub(crate) fn start(info: &RequestInfo<'_>) -> Option<Self> {
        let span = spans::server(info);
        #[cfg(feature = "otel")]
        let (current, otel) = direct::server(info);
        #[cfg(feature = "otel")]
        let direct = current.is_some();
        #[cfg(not(feature = "otel"))]
        let direct = false;
        if span.is_disabled() && !direct && !metrics::enabled() {
            return None;
        }
        #[cfg(feature = "otel")]
        if !direct {
            // Only `tracing` sees it: its OpenTelemetry layer, if any, takes the caller's
            // trace as the parent.
            direct::adopt_parent(&span, info.caller());
        }
        let named = match info.target {
            Target::Tool(name) => Some((true, name)),
            Target::Prompt(name) => Some((false, name)),
            Target::None | Target::Resource(_) => None,
        };
        let method = info.known.filter(|method| method.is_client_request());
        let protocol_version = info.protocol_version.and_then(crate::version::known);
        Some(Observed {
            trace: Trace {
                span,
                #[cfg(feature = "otel")]
                otel,
                #[cfg(feature = "otel")]
                direct,
            },
            #[cfg(feature = "otel")]
            current,
            started: Instant::now(),
            method,
            series: metrics::series(method, named, protocol_version, info.transport),
            finished: false,
        })
    }

    /// Records how the request ended on its span and in the metrics, and ends the span.
    /// `named_exists`: whether the tool or prompt it named is served (a name the client made
    /// up is neither the span's name nor an attribute of the metrics).
    pub(crate) fn finish(&mut self, ending: Ending<'_>, named_exists: bool) {
        if !self.finished {
            self.finished = true;
            self.record(ending, named_exists);
        }
    }

    fn record(&mut self, ending: Ending<'_>, named_exists: bool) {
        // A request no span records (no subscriber wants it, its sampler dropped it) skips to
        // the metrics.
        if self.trace.records() {
            self.trace.end(self.method, ending, named_exists);
        }
        if let Some(series) = &self.series {
            if matches!(ending, Ending::InputRequired) {
                metrics::input_required(series, named_exists);
            }
            metrics::operation(series, self.started.elapsed(), ending, named_exists);
        }
    }

    /// Counts one more round asked of the client within this request (a legacy session plays
    /// rounds out inside one request).
    pub(crate) fn round_asked(&self) {
        if let Some(series) = &self.series {
            metrics::input_required(series, true);
        }
    }
}

impl Drop for Observed {
    fn drop(&mut self) {
        // Nothing when it was finished already.
        self.finish(Ending::Cancelled, true);
    }
}

/// Runs `work` on the blocking pool inside the spans current here, so that a blocking
/// handler's own spans nest in its request's as an async one's do.
#[doc(hidden)]
pub fn spawn_blocking<T, F>(work: F) -> tokio::task::JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let span = tracing::Span::current();
    #[cfg(feature = "otel")]
    let context = opentelemetry::Context::current();
    tokio::task::spawn_blocking(move || {
        #[cfg(feature = "otel")]
        let _attached = context.attach();
        span.in_scope(work)
    })
}

/// Records the round a multi-round request is in on its server span: `round` counts the
/// exchanges (1: the first call), `name` is the round the state resumes.
pub(crate) fn record_round(trace: &Trace, round: u32, name: Option<&str>) {
    trace.record_i64("mcp_rounds.round", i64::from(round));
    if let Some(name) = name {
        trace.record_str("mcp_rounds.round.name", name);
    }
}
