//! The spans nested in a request's server span: the handler running, and each step of a
//! `requestState` (verifying it, and the replay store's claim, settlement, release and check).
//! Each is a `tracing` span, and with OpenTelemetry enabled a child of the request's span there
//! too.

use std::future::Future;

use tracing::Instrument as _;

use super::{Trace, spans};

/// A nested span; ended when dropped (or when the future it [wraps](Self::wrap) ends).
#[derive(Debug)]
pub(crate) struct Nested {
    span: tracing::Span,
    #[cfg(feature = "otel")]
    otel: Option<opentelemetry::Context>,
}

impl Nested {
    fn new(
        span: tracing::Span,
        #[cfg_attr(not(feature = "otel"), allow(unused_variables))] name: &dyn Fn() -> String,
    ) -> Self {
        Nested {
            #[cfg(feature = "otel")]
            otel: super::direct::child(name, &span),
            span,
        }
    }

    /// A handler of `kind` (`tool`, `prompt`, `resource`) named `name` running, in the
    /// request's spans `trace` (made before the request's future runs inside them).
    pub(crate) fn handler(trace: &Trace, kind: &'static str, name: &str) -> Self {
        let span = spans::handler(&trace.span, kind, name);
        Nested {
            #[cfg(feature = "otel")]
            otel: trace
                .otel
                .as_ref()
                .and_then(|parent| super::direct::child_of(parent, &|| ["handler ", name].concat())),
            span,
        }
    }

    /// A `requestState` step (`verify`, `claim`, `settle`, `release`, `check`); `system` names
    /// the replay store for the steps that go to it.
    pub(crate) fn state(step: &'static str, system: Option<&'static str>) -> Self {
        let span = spans::state(step, system);
        let nested = Nested::new(span, &|| format!("{step} requestState"));
        nested.attribute("mcp_rounds.state.step", step);
        if let Some(system) = system {
            nested.attribute("db.system.name", system);
        }
        nested
    }

    fn attribute(&self, #[allow(unused_variables)] key: &'static str, #[allow(unused_variables)] value: &'static str) {
        #[cfg(feature = "otel")]
        super::direct::record(self.otel.as_ref(), key, || value.into());
    }

    /// Records how the step went (`mcp_rounds.state.outcome`).
    pub(crate) fn outcome(&self, outcome: &'static str) {
        self.span.record("mcp_rounds.state.outcome", outcome);
        self.attribute("mcp_rounds.state.outcome", outcome);
    }

    /// Runs `work` inside the span.
    pub(crate) fn in_scope<T>(&self, work: impl FnOnce() -> T) -> T {
        #[cfg(feature = "otel")]
        let _attached = self.otel.clone().map(opentelemetry::Context::attach);
        self.span.in_scope(work)
    }

    /// `future`, run inside the span (which ends when the `Nested` is dropped).
    pub(crate) fn wrap<F: Future>(&self, future: F) -> impl Future<Output = F::Output> + use<F> {
        #[cfg(feature = "otel")]
        let future = super::direct::within(self.otel.clone(), future);
        future.instrument(self.span.clone())
    }
}

#[cfg(feature = "otel")]
impl Drop for Nested {
    fn drop(&mut self) {
        super::direct::end(self.otel.take());
    }
}
