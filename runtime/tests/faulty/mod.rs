//! A replay store that fails where a test tells it to.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::SystemTime;

use mcp_rounds::future::BoxFuture;
use mcp_rounds::replay::{PendingClaim, ReplayStore, StoreError};

/// A replay store that fails where it is told to: at `begin`, at a claim's commit (leaving the
/// claim uncommitted, so that it rolls back when dropped), or at `release`.
#[derive(Clone)]
pub struct Faulty<S> {
    inner: S,
    pub at_begin: Arc<AtomicBool>,
    pub at_commit: Arc<AtomicBool>,
    pub at_release: Arc<AtomicBool>,
    /// How many claims were released.
    pub releases: Arc<AtomicUsize>,
}

impl<S> Faulty<S> {
    pub fn new(inner: S) -> Self {
        Faulty {
            inner,
            at_begin: Arc::default(),
            at_commit: Arc::default(),
            at_release: Arc::default(),
            releases: Arc::default(),
        }
    }
}

fn fails(at: &AtomicBool, what: &str) -> Result<(), StoreError> {
    match at.load(Ordering::SeqCst) {
        true => Err(StoreError(format!("connection lost at {what}"))),
        false => Ok(()),
    }
}

impl<S: ReplayStore> ReplayStore for Faulty<S> {
    fn is_claimed(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<bool, StoreError>> {
        self.inner.is_claimed(nonce)
    }

    fn begin(
        &self,
        nonce: [u8; 16],
        expires_at: SystemTime,
    ) -> BoxFuture<'_, Result<Option<Box<dyn PendingClaim>>, StoreError>> {
        Box::pin(async move {
            fails(&self.at_begin, "begin")?;
            let claim = self.inner.begin(nonce, expires_at).await?;
            let at_commit = self.at_commit.clone();
            Ok(claim.map(|inner| Box::new(FaultyClaim { inner, at_commit }) as Box<dyn PendingClaim>))
        })
    }

    fn release(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            fails(&self.at_release, "release")?;
            self.releases.fetch_add(1, Ordering::SeqCst);
            self.inner.release(nonce).await
        })
    }

    fn system(&self) -> Option<&'static str> {
        self.inner.system()
    }
}

struct FaultyClaim {
    inner: Box<dyn PendingClaim>,
    at_commit: Arc<AtomicBool>,
}

impl PendingClaim for FaultyClaim {
    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        match fails(&self.at_commit, "commit") {
            // The inner claim is dropped uncommitted: rolled back, as a lost connection does.
            Err(e) => Box::pin(async move { Err(e) }),
            Ok(()) => self.inner.commit(),
        }
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        self.inner.as_any_mut()
    }
}
