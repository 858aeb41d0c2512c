//! The metrics: `mcp.server.operation.duration` as the conventions define it, and the
//! framework's own counters (rounds asked of clients, `requestState` refusals by reason, open
//! listen streams). With the `otel` feature they are recorded once [`enable`] made the
//! instruments from the global meter provider ([`otel::init`](crate::otel::init) does); until
//! then, and without the feature, nothing is recorded and nothing costs anything.
//!
//! A request's duration is recorded into a histogram bound once to its attribute set (method,
//! tool or prompt, outcome, version, transport). When a request starts, its [`Series`] is
//! resolved, with the histogram it records into when it completes: finishing it builds, sorts
//! and hashes no attributes, and when the thread resolved the same series last, starting it
//! does not either.

use super::{Ending, Transport};
use crate::method::Method;
use crate::request_state::Refusal;

/// A method as the metrics name it: the table's name for a request the table knows, `_OTHER`
/// for anything else (a client's made-up method must not become a new time series).
pub(crate) fn method_name(method: Option<Method>) -> &'static str {
    match method {
        Some(method) if method.is_client_request() => method.name(),
        _ => "_OTHER",
    }
}

/// Why a `requestState` was refused (`mcp_rounds.state.rejection.reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateRejection {
    /// One of the checks of the state itself.
    Verify(Refusal),
    /// Its round data does not decode (a state of another version of the handler).
    Undecodable,
    /// A single-use state presented again.
    Replayed,
}

impl StateRejection {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StateRejection::Verify(Refusal::TooLarge) => "too_large",
            StateRejection::Verify(Refusal::Encoding) => "encoding",
            StateRejection::Verify(Refusal::Format) => "format",
            StateRejection::Verify(Refusal::UnknownKey) => "unknown_key",
            StateRejection::Verify(Refusal::Signature) => "signature",
            StateRejection::Verify(Refusal::Expired) => "expired",
            StateRejection::Verify(Refusal::Binding) => "binding",
            StateRejection::Undecodable => "undecodable",
            StateRejection::Replayed => "replayed",
        }
    }
}

/// What a request's duration is recorded under, but for how it ends: resolved once, when it
/// starts, so that finishing it records into a bound histogram without building, copying or
/// comparing its attributes.
#[cfg(feature = "otel")]
pub(crate) type Series = std::sync::Arc<recording::Resolved>;

/// Never made: without OpenTelemetry nothing is recorded.
#[cfg(not(feature = "otel"))]
pub(crate) type Series = std::convert::Infallible;

#[cfg(feature = "otel")]
mod recording {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::sync::{OnceLock, RwLock};

    use opentelemetry::metrics::{BoundHistogram, Counter, Histogram, UpDownCounter};
    use opentelemetry::{InstrumentationScope, KeyValue};

    use super::{Ending, Method, Series, StateRejection, Transport, method_name};

    /// The conventions' buckets for operation durations, in seconds.
    const DURATION_BUCKETS: [f64; 14] =
        [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

    /// The most attribute sets the duration histogram keeps bound (the rest are recorded
    /// unbound: a server with very many tools pays the lookup, nothing grows without bound).
    const BOUND_SETS: usize = 4096;

    /// What an operation's attributes are made of, but the tool's or prompt's name.
    #[derive(Clone, Copy, Debug, Eq)]
    struct Key {
        /// `None`: `_OTHER`.
        method: Option<Method>,
        /// Whether it names a tool (`true`) or a prompt, when it names one.
        tool: Option<bool>,
        /// The JSON-RPC code; `1`: a tool error; `2`: cancelled; `0`: none.
        error: i32,
        protocol_version: Option<&'static str>,
        transport: Transport,
    }

    impl PartialEq for Key {
        fn eq(&self, other: &Self) -> bool {
            // A version is one of the framework's own strings: the same one is at the same
            // address, so equal keys compare no text.
            self.method == other.method
                && self.tool == other.tool
                && self.error == other.error
                && self.transport == other.transport
                && self.version() == other.version()
        }
    }

    impl std::hash::Hash for Key {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            (self.method, self.tool, self.error, self.transport, self.version()).hash(state);
        }
    }

    type Fast = foldhash::fast::RandomState;

    /// The bound histograms: by the key, then by the tool's or prompt's name (`""`: none), so
    /// that finding one hashes a few words and borrows the name.
    type Bound = HashMap<Key, HashMap<Box<str>, BoundHistogram<f64>, Fast>, Fast>;

    impl Key {
        fn version(&self) -> Option<*const u8> {
            self.protocol_version.map(str::as_ptr)
        }

        fn attributes(&self, name: &str) -> Vec<KeyValue> {
            let mut attributes = Vec::with_capacity(7);
            attributes.push(KeyValue::new("mcp.method.name", method_name(self.method)));
            named_attributes(&mut attributes, self.tool.map(|tool| (tool, name)));
            if self.method == Some(Method::ToolsCall) {
                attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            }
            if let Some(version) = self.protocol_version {
                attributes.push(KeyValue::new("mcp.protocol.version", version));
            }
            if let Some(transport) = self.transport.as_str() {
                attributes.push(KeyValue::new("network.transport", transport));
            }
            match self.error {
                0 => {}
                1 => attributes.push(KeyValue::new("error.type", "tool_error")),
                2 => attributes.push(KeyValue::new("error.type", "cancelled")),
                code => {
                    attributes.push(KeyValue::new("error.type", code.to_string()));
                    attributes.push(KeyValue::new("rpc.response.status_code", code.to_string()));
                }
            }
            attributes
        }
    }

    struct Instruments {
        duration: Histogram<f64>,
        bound: RwLock<Bound>,
        bound_sets: std::sync::atomic::AtomicUsize,
        input_required: Counter<u64>,
        rejections: Counter<u64>,
        listen_streams: UpDownCounter<i64>,
    }

    static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

    pub(crate) fn enabled() -> bool {
        INSTRUMENTS.get().is_some()
    }

    pub(crate) fn enable() {
        INSTRUMENTS.get_or_init(|| {
            let scope = InstrumentationScope::builder("mcp-rounds").with_version(env!("CARGO_PKG_VERSION")).build();
            let meter = opentelemetry::global::meter_with_scope(scope);
            Instruments {
                duration: meter
                    .f64_histogram("mcp.server.operation.duration")
                    .with_unit("s")
                    .with_description(
                        "MCP request or notification duration as observed on the receiver from the time it was \
                         received until the result or ack is sent.",
                    )
                    .with_boundaries(DURATION_BUCKETS.to_vec())
                    .build(),
                bound: RwLock::default(),
                bound_sets: std::sync::atomic::AtomicUsize::new(0),
                input_required: meter
                    .u64_counter("mcp_rounds.server.input_required")
                    .with_unit("{round}")
                    .with_description("Requests answered with input_required: rounds asked of the client.")
                    .build(),
                rejections: meter
                    .u64_counter("mcp_rounds.server.state.rejections")
                    .with_unit("{state}")
                    .with_description("requestState values refused, by reason.")
                    .build(),
                listen_streams: meter
                    .i64_up_down_counter("mcp_rounds.server.listen.streams")
                    .with_unit("{stream}")
                    .with_description("subscriptions/listen streams open.")
                    .build(),
            }
        });
    }

    fn named_attributes(attributes: &mut Vec<KeyValue>, named: Option<(bool, &str)>) {
        match named {
            Some((true, tool)) => attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned())),
            Some((false, prompt)) => attributes.push(KeyValue::new("gen_ai.prompt.name", prompt.to_owned())),
            None => {}
        }
    }

    /// A request's series: its method, the tool or prompt it names (`true`: a tool), its
    /// protocol version and transport.
    pub(crate) struct Resolved {
        key: Key,
        name: Box<str>,
        /// The histogram of a request of this series that completes, bound when one first does:
        /// a name a client made up is never bound, nor exported.
        complete: OnceLock<Option<BoundHistogram<f64>>>,
    }

    impl std::fmt::Debug for Resolved {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Series").field("key", &self.key).field("name", &self.name).finish_non_exhaustive()
        }
    }

    thread_local! {
        /// The series this thread resolved last: a server answering the same tool again and
        /// again finds it without the shared map, whose lock every core would contend for.
        static LAST: RefCell<Option<Series>> = const { RefCell::new(None) };
    }

    pub(crate) fn series(
        method: Option<Method>,
        named: Option<(bool, &str)>,
        protocol_version: Option<&'static str>,
        transport: Transport,
    ) -> Option<Series> {
        INSTRUMENTS.get()?;
        let key = Key { method, tool: named.map(|(tool, _)| tool), error: 0, protocol_version, transport };
        let name = named.map_or("", |(_, name)| name);
        let last = LAST.with_borrow(|last| {
            last.as_ref().filter(|series| series.key == key && *series.name == *name).map(Series::clone)
        });
        Some(last.unwrap_or_else(|| {
            let series = Series::new(Resolved { key, name: name.into(), complete: OnceLock::new() });
            LAST.set(Some(series.clone()));
            series
        }))
    }

    /// Records that a request of `series` took `duration` and ended so; `named_exists`:
    /// whether the tool or prompt it named is served (a made-up one is no attribute).
    pub(crate) fn operation(series: &Series, duration: std::time::Duration, ending: Ending<'_>, named_exists: bool) {
        let Some(instruments) = INSTRUMENTS.get() else { return };
        let seconds = duration.as_secs_f64();
        let error = match ending {
            Ending::Error { code, .. } => code,
            Ending::ToolError => 1,
            Ending::Cancelled => 2,
            Ending::Complete | Ending::InputRequired | Ending::Task => 0,
        };
        if error == 0
            && (named_exists || series.key.tool.is_none())
            && let Some(histogram) =
                series.complete.get_or_init(|| bound_histogram(instruments, series.key, &series.name))
        {
            histogram.record(seconds);
            return;
        }
        let (key, name) = series.key_of(error, named_exists);
        match bound_histogram(instruments, key, name) {
            Some(histogram) => histogram.record(seconds),
            None => instruments.duration.record(seconds, &key.attributes(name)),
        }
    }

    impl Resolved {
        /// The key and name of a request of this series that ended with `error`.
        fn key_of(&self, error: i32, named_exists: bool) -> (Key, &str) {
            let key = Key { error, ..self.key };
            if named_exists { (key, &self.name) } else { (Key { tool: None, ..key }, "") }
        }

        fn named(&self, named_exists: bool) -> Option<(bool, &str)> {
            self.key.tool.filter(|_| named_exists).map(|tool| (tool, &*self.name))
        }
    }

    /// The histogram bound to `key` and `name`, binding it when there is room for one more.
    fn bound_histogram(instruments: &Instruments, key: Key, name: &str) -> Option<BoundHistogram<f64>> {
        {
            let bound = instruments.bound.read().unwrap_or_else(|p| p.into_inner());
            if let Some(histogram) = bound.get(&key).and_then(|names| names.get(name)) {
                return Some(histogram.clone());
            }
        }
        use std::sync::atomic::Ordering::Relaxed;
        if instruments.bound_sets.load(Relaxed) >= BOUND_SETS {
            return None;
        }
        let mut bound = instruments.bound.write().unwrap_or_else(|p| p.into_inner());
        let histogram = bound.entry(key).or_default().entry(name.into()).or_insert_with(|| {
            instruments.bound_sets.fetch_add(1, Relaxed);
            instruments.duration.bind(&key.attributes(name))
        });
        Some(histogram.clone())
    }

    /// Counts a round asked of the client by a request of `series`.
    pub(crate) fn input_required(series: &Series, named_exists: bool) {
        let Some(instruments) = INSTRUMENTS.get() else { return };
        let mut attributes = Vec::with_capacity(3);
        attributes.push(KeyValue::new("mcp.method.name", method_name(series.key.method)));
        named_attributes(&mut attributes, series.named(named_exists));
        if let Some(transport) = series.key.transport.as_str() {
            attributes.push(KeyValue::new("network.transport", transport));
        }
        instruments.input_required.add(1, &attributes);
    }

    pub(crate) fn state_rejected(reason: StateRejection) {
        if let Some(instruments) = INSTRUMENTS.get() {
            instruments.rejections.add(1, &[KeyValue::new("mcp_rounds.state.rejection.reason", reason.as_str())]);
        }
    }

    pub(crate) fn listen_streams(change: i64) {
        if let Some(instruments) = INSTRUMENTS.get() {
            instruments.listen_streams.add(change, &[]);
        }
    }
}

#[cfg(not(feature = "otel"))]
mod recording {
    use super::{Ending, Method, Series, StateRejection, Transport};

    pub(crate) fn enabled() -> bool {
        false
    }

    pub(crate) fn series(
        _: Option<Method>,
        _: Option<(bool, &str)>,
        _: Option<&'static str>,
        _: Transport,
    ) -> Option<Series> {
        None
    }

    pub(crate) fn operation(series: &Series, _: std::time::Duration, _: Ending<'_>, _: bool) {
        match *series {}
    }

    pub(crate) fn input_required(series: &Series, _: bool) {
        match *series {}
    }

    pub(crate) fn state_rejected(_: StateRejection) {}

    pub(crate) fn listen_streams(_: i64) {}
}

#[cfg(feature = "otel")]
pub(crate) use recording::enable;
pub(crate) use recording::{enabled, input_required, operation, series};

/// Counts a refused `requestState`, and says so at debug level (never the state itself).
pub(crate) fn state_rejected(reason: StateRejection) {
    tracing::debug!(reason = reason.as_str(), "requestState refused");
    recording::state_rejected(reason);
}

/// An open listen stream, counted until dropped.
#[derive(Debug)]
pub(crate) struct ListenStream(());

impl ListenStream {
    pub(crate) fn open() -> Self {
        recording::listen_streams(1);
        ListenStream(())
    }
}

impl Drop for ListenStream {
    fn drop(&mut self) {
        recording::listen_streams(-1);
    }
}

#[cfg(test)]
mod tests {
    use super::method_name;
    use crate::method::Method;

    #[test]
    fn a_request_the_table_knows_is_named_and_anything_else_is_other() {
        for &method in Method::ALL.iter().filter(|method| method.is_client_request()) {
            assert_eq!(method_name(Some(method)), method.name());
        }
        assert_eq!(method_name(None), "_OTHER");
        assert_eq!(method_name(Some(Method::NotificationsCancelled)), "_OTHER", "a notification is no request");
    }
}
