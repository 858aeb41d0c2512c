//! How the provider's sampler decides a request that has no parent span, known before the
//! first request: for the SDK's built-in samplers that the `OTEL_TRACES_SAMPLER*` variables
//! name, the decision is a comparison on the trace id, made without the calls through the
//! sampler's boxes and the result it builds and drops (most of what a dropped request cost).

use opentelemetry::trace::TraceId;

/// A root decision known in advance, or [`Ask`](RootRule::Ask) the sampler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum RootRule {
    /// Every root is kept.
    Keep,
    /// A root is kept when the trace id's low 63 bits (its low 64 bits shifted right once, as
    /// the SDK's `TraceIdRatioBased` reads them) are below this.
    Below(u64),
    /// The sampler decides (one of yours, or one this does not know).
    Ask,
}

impl RootRule {
    /// The rule of the sampler `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` make, read
    /// as the SDK reads them (`Config::default`).
    pub(crate) fn from_env() -> Self {
        let sampler = std::env::var("OTEL_TRACES_SAMPLER").ok();
        let argument = std::env::var("OTEL_TRACES_SAMPLER_ARG").ok();
        Self::of(sampler.as_deref(), argument.as_deref())
    }

    /// The rule of the sampler named `sampler` with `argument`; no name is the SDK's default,
    /// `parentbased_always_on`.
    pub(crate) fn of(sampler: Option<&str>, argument: Option<&str>) -> Self {
        // The SDK falls back to the ratio 1.0 when the argument is missing or not a number.
        let ratio = || Self::ratio(argument.and_then(|argument| argument.parse::<f64>().ok()).unwrap_or(1.0));
        match sampler {
            None | Some("always_on" | "parentbased_always_on") => RootRule::Keep,
            Some("always_off" | "parentbased_always_off") => RootRule::Below(0),
            Some("traceidratio" | "parentbased_traceidratio") => ratio(),
            Some(_) => RootRule::Ask,
        }
    }

    /// The SDK's `TraceIdRatioBased(probability)`, as a bound.
    fn ratio(probability: f64) -> Self {
        if probability >= 1.0 {
            RootRule::Keep
        } else {
            RootRule::Below((probability.max(0.0) * (1u64 << 63) as f64) as u64)
        }
    }

    /// Whether a root request of `trace_id` is kept; `None`: ask the sampler.
    pub(crate) fn keeps(self, trace_id: TraceId) -> Option<bool> {
        match self {
            RootRule::Keep => Some(true),
            RootRule::Below(bound) => {
                let low = u64::from_be_bytes(trace_id.to_bytes()[8..].try_into().expect("8 bytes"));
                Some(low >> 1 < bound)
            }
            RootRule::Ask => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::SpanKind;
    use opentelemetry_sdk::trace::{IdGenerator as _, RandomIdGenerator, Sampler, SamplingDecision, ShouldSample};

    use super::RootRule;

    /// The SDK sampler the same variables make (its `Config::default`, which reads the process
    /// environment, cannot be given one in a test).
    fn sdk(sampler: &str, argument: Option<&str>) -> Sampler {
        let ratio = argument.and_then(|a| a.parse::<f64>().ok()).unwrap_or(1.0);
        match sampler {
            "always_on" => Sampler::AlwaysOn,
            "always_off" => Sampler::AlwaysOff,
            "traceidratio" => Sampler::TraceIdRatioBased(ratio),
            "parentbased_always_on" => Sampler::ParentBased(Box::new(Sampler::AlwaysOn)),
            "parentbased_always_off" => Sampler::ParentBased(Box::new(Sampler::AlwaysOff)),
            "parentbased_traceidratio" => Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(ratio))),
            other => panic!("not a built-in sampler: {other}"),
        }
    }

    #[test]
    fn a_root_is_kept_exactly_when_the_sdk_sampler_keeps_it() {
        let ids = RandomIdGenerator::default();
        let cases = [
            ("always_on", None),
            ("always_off", None),
            ("parentbased_always_on", None),
            ("parentbased_always_off", None),
            ("traceidratio", Some("0.25")),
            ("parentbased_traceidratio", Some("0.01")),
            ("parentbased_traceidratio", Some("0.5")),
            ("parentbased_traceidratio", Some("1.5")),
            ("parentbased_traceidratio", Some("-1")),
            ("parentbased_traceidratio", Some("a quarter")),
            ("traceidratio", None),
        ];
        for (name, argument) in cases {
            let rule = RootRule::of(Some(name), argument);
            let sampler = sdk(name, argument);
            let mut kept = 0;
            for _ in 0..4000 {
                let trace_id = ids.new_trace_id();
                let decided = sampler.should_sample(None, trace_id, "tools/call", &SpanKind::Server, &[], &[]);
                let sdk_keeps = decided.decision == SamplingDecision::RecordAndSample;
                assert_eq!(rule.keeps(trace_id), Some(sdk_keeps), "{name} {argument:?} on {trace_id}");
                kept += usize::from(sdk_keeps);
            }
            if name.ends_with("ratio") && argument == Some("0.5") {
                assert!((1500..2500).contains(&kept), "half of 4000 kept: {kept}");
            }
        }
    }

    #[test]
    fn no_name_is_the_sdk_default_and_another_sampler_is_asked() {
        assert_eq!(RootRule::of(None, None), RootRule::Keep);
        assert_eq!(RootRule::of(Some("parentbased_jaeger_remote"), None), RootRule::Ask);
        assert_eq!(RootRule::of(Some("xray"), Some("0.1")), RootRule::Ask);
    }
}
