//! Exporting the server's telemetry over OTLP, configured by the standard `OTEL_*`
//! environment variables and nothing else (feature `otel`).
//!
//! [`init`] reads the environment: with an OTLP endpoint set
//! (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the `_TRACES_`/`_METRICS_` ones), it builds a tracer
//! provider with a batch span exporter and a meter provider with a periodic reader, installs
//! them and the W3C trace-context and baggage propagators globally, and hands back an [`Otel`]
//! whose [`layer`](Otel::layer) goes into your `tracing` subscriber. Without an endpoint (or
//! with `OTEL_SDK_DISABLED=true`) it does nothing and returns `None`.
//!
//! What else configures it, as the OpenTelemetry specification names it:
//!
//! | variable | what |
//! |---|---|
//! | `OTEL_EXPORTER_OTLP_PROTOCOL` | `http/protobuf` (default) or `http/json` |
//! | `OTEL_EXPORTER_OTLP_HEADERS` | headers for the collector, e.g. `authorization=Bearer ...` |
//! | `OTEL_EXPORTER_OTLP_TIMEOUT` | per export, in milliseconds |
//! | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | the resource (default service name: the program's) |
//! | `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG` | e.g. `parentbased_traceidratio` and `0.1` |
//! | `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE`, ... | the batch span processor |
//! | `OTEL_METRIC_EXPORT_INTERVAL` | how often metrics are exported, in milliseconds |
//!
//! Spans and metrics still in memory are exported by [`Otel::shutdown`] (or when the [`Otel`]
//! is dropped): call it when the server's `serve` returns, which it does when stdin closes,
//! on Ctrl-C or on SIGTERM.
//!
//! ```no_run
//! use tracing_subscriber::prelude::*;
//!
//! let otel = mcp_rounds::otel::init().expect("a usable OTEL_* configuration");
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     .with(otel.as_ref().map(|otel| otel.layer()))
//!     .init();
//! // ... build the server and serve it ...
//! if let Some(otel) = otel {
//!     otel.shutdown();
//! }
//! ```

use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::registry::LookupSpan;

/// The endpoints any of which turns export on.
const ENDPOINTS: [&str; 3] =
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"];

/// Why the environment's configuration cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("OpenTelemetry export: {0}")]
pub struct OtelError(String);

/// Telemetry being exported; [`shutdown`](Self::shutdown) (or dropping it) exports what is
/// left and stops.
#[derive(Debug)]
pub struct Otel {
    tracers: SdkTracerProvider,
    meters: SdkMeterProvider,
    tracer: SdkTracer,
    shut_down: bool,
}

/// Exports to the OTLP endpoint the environment names, if it names one (see the
/// [module](self)); `Ok(None)` when it names none, or says `OTEL_SDK_DISABLED=true`.
pub fn init() -> Result<Option<Otel>, OtelError> {
    let set = |name: &str| std::env::var_os(name).is_some_and(|value| !value.is_empty());
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"));
    if disabled || !ENDPOINTS.iter().any(|name| set(name)) {
        return Ok(None);
    }
    // The HTTP client verifies TLS with rustls; its crypto is ring, as for OAuth. Installing
    // it fails only when the program chose one already, which is then used.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let resource = resource();
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")?)
        .build()
        .map_err(|e| OtelError(e.to_string()))?;
    // The sampler the `OTEL_TRACES_SAMPLER*` variables configure, kept to decide a request
    // before any span of it is built.
    let sampler = opentelemetry_sdk::trace::Config::default().sampler;
    let tracers = SdkTracerProvider::builder()
        .with_batch_exporter(spans)
        .with_resource(resource.clone())
        .with_sampler(sampler.clone())
        .with_id_generator(crate::telemetry::Ids)
        .build();
    let metrics = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_protocol(protocol("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")?)
        .build()
        .map_err(|e| OtelError(e.to_string()))?;
    let meters = SdkMeterProvider::builder().with_periodic_exporter(metrics).with_resource(resource).build();
    opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ]));
    opentelemetry::global::set_tracer_provider(tracers.clone());
    opentelemetry::global::set_meter_provider(meters.clone());
    crate::telemetry::enable_with(&tracers, sampler);
    let tracer = tracers.tracer("mcp-rounds");
    Ok(Some(Otel { tracers, meters, tracer, shut_down: false }))
}

/// The protocol a signal is exported with: its own variable's, else
/// `OTEL_EXPORTER_OTLP_PROTOCOL`'s, else `http/protobuf` (the specification's default).
fn protocol(signal_variable: &str) -> Result<Protocol, OtelError> {
    let named = [signal_variable, "OTEL_EXPORTER_OTLP_PROTOCOL"].into_iter().find_map(|variable| {
        std::env::var(variable).ok().filter(|value| !value.trim().is_empty()).map(|v| (variable, v))
    });
    let Some((variable, value)) = named else { return Ok(Protocol::HttpBinary) };
    match value.trim() {
        "http/protobuf" => Ok(Protocol::HttpBinary),
        "http/json" => Ok(Protocol::HttpJson),
        "grpc" => Err(OtelError(format!(
            "{variable}=grpc: this server exports over HTTP only; use http/protobuf (the collector's port 4318)"
        ))),
        other => Err(OtelError(format!("{variable}={other:?}: use http/protobuf or http/json"))),
    }
}

/// The resource from the environment, named after the program when the environment does not
/// name the service.
fn resource() -> Resource {
    let named = std::env::var_os("OTEL_SERVICE_NAME").is_some()
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|attributes| attributes.contains("service.name="));
    let program = std::env::args_os()
        .next()
        .and_then(|path| std::path::Path::new(&path).file_name().map(|name| name.to_string_lossy().into_owned()));
    match (named, program) {
        (false, Some(program)) => Resource::builder().with_service_name(program).build(),
        _ => Resource::builder().build(),
    }
}

impl Otel {
    /// The `tracing` layer that turns spans into OpenTelemetry spans: your own spans at INFO
    /// and above, nested in the framework's (which reach OpenTelemetry directly, and are left
    /// out here), and none of the OpenTelemetry crates' own.
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
    {
        let mut filter = Targets::new().with_default(LevelFilter::INFO);
        for framework in std::iter::once(crate::telemetry::SERVER_TARGET).chain(crate::telemetry::NESTED_TARGETS) {
            filter = filter.with_target(framework, LevelFilter::OFF);
        }
        let filter = filter
            .with_target("opentelemetry", LevelFilter::OFF)
            .with_target("opentelemetry_sdk", LevelFilter::OFF)
            .with_target("opentelemetry_otlp", LevelFilter::OFF)
            .with_target("opentelemetry_http", LevelFilter::OFF)
            .with_target("reqwest", LevelFilter::OFF)
            .with_target("hyper_util", LevelFilter::OFF);
        tracing_opentelemetry::layer()
            .with_tracer(self.tracer.clone())
            .with_location(false)
            .with_threads(false)
            .with_filter(filter)
    }

    /// Exports every span and metric still held, then stops exporting. Problems are logged.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if std::mem::replace(&mut self.shut_down, true) {
            return;
        }
        if let Err(error) = self.tracers.shutdown() {
            tracing::warn!(%error, "could not export the last spans");
        }
        if let Err(error) = self.meters.shutdown() {
            tracing::warn!(%error, "could not export the last metrics");
        }
    }
}

impl Drop for Otel {
    fn drop(&mut self) {
        self.stop();
    }
}
