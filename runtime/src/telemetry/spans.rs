//! The `tracing` spans: the server span of a request, named and attributed by the conventions
//! (through `tracing-opentelemetry`'s `otel.*` fields where OpenTelemetry has a notion of its
//! own), and the nested ones.

use std::fmt;

use tracing::Span;
use tracing::field::Empty;

use super::{RequestInfo, SERVER_TARGET, Target, Transport};
use crate::model::RequestId;

/// `{mcp.method.name} {target}`, the conventions' span name.
struct SpanName<'a>(&'a str, Option<&'a str>);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {target}", self.0),
            None => f.write_str(self.0),
        }
    }
}

/// A JSON-RPC id as `jsonrpc.request.id` has it: a string id without quotes.
pub(super) struct JsonRpcId<'a>(pub(super) &'a RequestId);

impl fmt::Display for JsonRpcId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => f.write_str(s),
        }
    }
}

/// The server span of one request (kind `SERVER`, level INFO, target [`SERVER_TARGET`]).
pub(super) fn server(info: &RequestInfo<'_>) -> Span {
    let span = tracing::info_span!(
        target: SERVER_TARGET,
        "mcp.server",
        otel.name = %SpanName(info.method, info.target.named()),
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = info.method,
        jsonrpc.request.id = %JsonRpcId(info.id),
        mcp.protocol.version = info.protocol_version,
        mcp.session.id = info.session,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        gen_ai.operation.name = Empty,
        mcp.resource.uri = Empty,
        network.transport = info.transport.as_str(),
        network.protocol.name = (info.transport == Transport::Tcp).then_some("http"),
        error.type = Empty,
        rpc.response.status_code = Empty,
        mcp_rounds.result_type = Empty,
        mcp_rounds.round = Empty,
        mcp_rounds.round.name = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    match info.target {
        Target::Tool(name) => {
            span.record("gen_ai.tool.name", name);
            span.record("gen_ai.operation.name", "execute_tool");
        }
        Target::Prompt(name) => {
            span.record("gen_ai.prompt.name", name);
        }
        Target::Resource(uri) => {
            span.record("mcp.resource.uri", uri);
        }
        Target::None => {}
    }
    span
}

/// The level of the spans nested in a request's server span.
pub(super) const NESTED: tracing::Level = tracing::Level::INFO;

/// The span of a handler running: `handler {name}`, a child of `request` (the request's span)
/// when that one is seen, else of whatever span is current.
pub(super) fn handler(request: &Span, kind: &'static str, name: &str) -> Span {
    tracing::span!(
        target: "mcp_rounds::handler",
        parent: request.id().or_else(|| Span::current().id()),
        NESTED,
        "mcp.handler",
        otel.name = %format_args!("handler {name}"),
        mcp_rounds.handler.kind = kind,
        mcp_rounds.handler.name = name,
    )
}

/// The span of a `requestState` step; `system` names the replay store (`db.system.name`) for
/// the steps that go to it.
pub(super) fn state(step: &'static str, system: Option<&'static str>) -> Span {
    tracing::span!(
        target: "mcp_rounds::state",
        NESTED,
        "mcp.request_state",
        otel.name = %format_args!("{step} requestState"),
        mcp_rounds.state.step = step,
        db.system.name = system,
        mcp_rounds.state.outcome = Empty,
    )
}
