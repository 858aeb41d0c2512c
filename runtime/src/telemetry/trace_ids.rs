//! Trace and span ids: random, as W3C trace context asks, from a generator each thread seeds
//! from the operating system once. Drawing an id is a few multiplications on one word of
//! state, with no lock and no first-use check beyond the seed's.

use std::cell::{Cell, RefCell};

use opentelemetry::trace::{SpanId, TraceId};
use opentelemetry_sdk::trace::IdGenerator;

thread_local! {
    /// This thread's generator; seed 0: not seeded yet.
    static RNG: RefCell<fastrand::Rng> = const { RefCell::new(fastrand::Rng::with_seed(0)) };

    /// The trace id of a root span the framework sampled before asking the SDK to build it.
    pub(super) static CHOSEN: Cell<Option<TraceId>> = const { Cell::new(None) };
}

fn with_rng<T>(draw: impl FnOnce(&mut fastrand::Rng) -> T) -> T {
    RNG.with_borrow_mut(|rng| {
        if rng.get_seed() == 0 {
            rng.seed(seed());
        }
        draw(rng)
    })
}

/// A seed from the operating system, or, should it have none to give, from the process's
/// random hasher keys and the thread; never 0, which marks a generator not seeded yet.
fn seed() -> u64 {
    getrandom::u64().unwrap_or_else(|_| {
        use std::hash::BuildHasher as _;
        std::collections::hash_map::RandomState::new().hash_one(std::thread::current().id())
    }) | 1
}

/// A fresh trace id and span id, drawn at once.
pub(super) fn fresh() -> (TraceId, SpanId) {
    with_rng(|rng| (TraceId::from(rng.u128(..)), SpanId::from(rng.u64(..))))
}

/// A fresh trace id, for a root span.
fn trace_id() -> TraceId {
    with_rng(|rng| TraceId::from(rng.u128(..)))
}

/// A fresh span id, for a span whose trace is its parent's.
pub(super) fn span_id() -> SpanId {
    with_rng(|rng| SpanId::from(rng.u64(..)))
}

/// The ids of a provider the framework's spans are made by directly: this module's, and a root
/// server span keeps the trace id its sampling decision was made on, so that the SDK's sampler,
/// asked again, decides the same.
#[derive(Debug, Default)]
pub(crate) struct Ids;

impl IdGenerator for Ids {
    fn new_trace_id(&self) -> TraceId {
        CHOSEN.take().unwrap_or_else(trace_id)
    }

    fn new_span_id(&self) -> SpanId {
        span_id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_valid_and_differ_from_draw_to_draw_and_thread_to_thread() {
        let here: Vec<_> = (0..1000).map(|_| fresh()).collect();
        let there = std::thread::spawn(|| (0..1000).map(|_| fresh()).collect::<Vec<_>>()).join().unwrap();
        let mut traces = std::collections::HashSet::new();
        let mut spans = std::collections::HashSet::new();
        for (trace, span) in here.iter().chain(&there) {
            assert!(*trace != TraceId::INVALID && *span != SpanId::INVALID);
            traces.insert(*trace);
            spans.insert(*span);
        }
        assert_eq!((traces.len(), spans.len()), (2000, 2000));
    }

    #[test]
    fn a_chosen_trace_id_is_handed_out_once() {
        CHOSEN.set(Some(TraceId::from(42u128)));
        assert_eq!(Ids.new_trace_id(), TraceId::from(42u128));
        assert_ne!(Ids.new_trace_id(), TraceId::from(42u128));
    }
}
