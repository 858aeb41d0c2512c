//! A rate limit per principal: a token bucket for each caller, so that one busy client slows
//! down only itself.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::context::Principal;
use crate::dispatch::{BoxError, McpRequest, McpResponse};
use crate::error::Error;
use crate::future::BoxFuture;

/// Buckets kept before full ones (callers idle long enough to have their whole allowance back,
/// who lose nothing by being forgotten) are dropped.
const SWEEP_ABOVE: usize = 1024;

/// Limits every principal to a number of requests per period, refilled continuously, with
/// bursts of up to that number. A request over the limit is answered -31429 with
/// `data.retryAfterMs` (HTTP: status 429 and `Retry-After`) and never reaches its handler.
/// Anonymous callers share one allowance.
#[derive(Clone, Debug)]
pub struct RateLimitLayer {
    limiter: Arc<Limiter>,
}

impl RateLimitLayer {
    /// `requests` per `period` for each principal, in bursts of up to `requests`.
    pub fn per_principal(requests: u32, period: Duration) -> Self {
        let requests = f64::from(requests.max(1));
        let refill_per_second = requests / period.as_secs_f64().max(f64::MIN_POSITIVE);
        RateLimitLayer { limiter: Arc::new(Limiter { burst: requests, refill_per_second, buckets: Mutex::default() }) }
    }

    /// Bursts of up to `requests` (default: the requests of one period).
    pub fn burst(self, requests: u32) -> Self {
        let Limiter { refill_per_second, .. } = *self.limiter;
        RateLimitLayer {
            limiter: Arc::new(Limiter {
                burst: f64::from(requests.max(1)),
                refill_per_second,
                buckets: Mutex::default(),
            }),
        }
    }
}

impl<S> tower::Layer<S> for RateLimitLayer {
    type Service = RateLimit<S>;

    fn layer(&self, inner: S) -> RateLimit<S> {
        RateLimit { inner, limiter: self.limiter.clone() }
    }
}

/// The service of [`RateLimitLayer`].
#[derive(Clone, Debug)]
pub struct RateLimit<S> {
    inner: S,
    limiter: Arc<Limiter>,
}

#[derive(Debug)]
struct Limiter {
    burst: f64,
    refill_per_second: f64,
    buckets: Mutex<HashMap<Principal, Bucket>>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Limiter {
    /// Takes one request from `principal`'s allowance, or says how long until there is one.
    fn admit(&self, principal: &Principal, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock().expect("rate limit lock");
        if buckets.len() > SWEEP_ABOVE {
            buckets.retain(|_, bucket| self.tokens(bucket, now) < self.burst);
        }
        let bucket = buckets.entry(principal.clone()).or_insert(Bucket { tokens: self.burst, at: now });
        bucket.tokens = self.tokens(bucket, now);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        Err(Duration::from_secs_f64((1.0 - bucket.tokens) / self.refill_per_second))
    }

    /// What `bucket` holds at `now`.
    fn tokens(&self, bucket: &Bucket, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        (bucket.tokens + elapsed * self.refill_per_second).min(self.burst)
    }
}

impl<S> tower::Service<McpRequest> for RateLimit<S>
where
    S: tower::Service<McpRequest, Response = McpResponse>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        match self.limiter.admit(request.principal(), Instant::now()) {
            Ok(()) => {
                let answering = self.inner.call(request);
                Box::pin(async move { answering.await.map_err(Into::into) })
            }
            Err(retry_after) => {
                tracing::debug!(principal = ?request.principal(), "request over the rate limit refused");
                let refused = McpResponse::error(request.id().clone(), Error::rate_limited(retry_after));
                Box::pin(async move { Ok(refused) })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_principal_has_its_own_allowance_refilled_over_time() {
        let layer = RateLimitLayer::per_principal(2, Duration::from_secs(10));
        let limiter = &layer.limiter;
        let (alice, bob) = (Principal::new("alice"), Principal::new("bob"));
        let start = Instant::now();
        assert!(limiter.admit(&alice, start).is_ok());
        assert!(limiter.admit(&alice, start).is_ok());
        let wait = limiter.admit(&alice, start).unwrap_err();
        assert_eq!(wait, Duration::from_secs(5), "one request comes back every 5 s");
        assert!(limiter.admit(&bob, start).is_ok(), "bob is not slowed down by alice");
        assert!(limiter.admit(&alice, start + Duration::from_secs(5)).is_ok());
        assert!(limiter.admit(&alice, start + Duration::from_secs(5)).is_err());
        // Idle for long, the allowance is back, but never above the burst.
        let later = start + Duration::from_secs(3600);
        assert!(limiter.admit(&alice, later).is_ok() && limiter.admit(&alice, later).is_ok());
        assert!(limiter.admit(&alice, later).is_err());
    }

    #[test]
    fn callers_that_are_back_to_a_full_allowance_are_forgotten() {
        let limiter = RateLimitLayer::per_principal(1, Duration::from_secs(1)).limiter;
        let start = Instant::now();
        for i in 0..=SWEEP_ABOVE {
            limiter.admit(&Principal::new(format!("p{i}")), start).unwrap();
        }
        limiter.admit(&Principal::new("late"), start + Duration::from_secs(2)).unwrap();
        assert_eq!(limiter.buckets.lock().unwrap().len(), 1, "only the caller that just spent remains");
    }
}
