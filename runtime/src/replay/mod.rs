//! The replay store: where the nonces of single-use states are claimed, so that a state that
//! authorized a mutation can never authorize it again, in this process or any other sharing
//! the store.
//!
//! A claim is a transaction: [`ReplayStore::begin`] takes the nonce (refusing one already
//! used), [`PendingClaim::commit`] makes the claim permanent, and dropping the pending claim
//! instead leaves the nonce free; two servers racing on one state cannot both proceed.
//!
//! The framework commits the claim before the handler runs, so that no answer telling the
//! client to try again can follow an effect that began; [`ReplayStore::release`] gives the
//! state back when the handler failed. A handler that runs its mutation in the claim's own
//! transaction ([`Claim`](crate::rounds::Claim)) or keys its effect on the state
//! ([`IdempotencyKey`](crate::rounds::IdempotencyKey)) holds the claim open instead, and it
//! commits after the handler succeeded.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::future::BoxFuture;

/// A store that could not be used.
#[derive(Debug, thiserror::Error)]
#[error("store: {0}")]
pub struct StoreError(pub String);

impl StoreError {
    /// The answer to a request this failure stopped: -31503, to send again in a second (a
    /// database restarting is back in about that, and a pool reconnects on the next use).
    pub(crate) fn refusal(&self) -> crate::error::Error {
        crate::error::Error::unavailable(self, std::time::Duration::from_secs(1))
    }
}

/// Where nonces are claimed.
pub trait ReplayStore: Send + Sync + 'static {
    /// Whether `nonce` was already claimed.
    fn is_claimed(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<bool, StoreError>>;

    /// Starts claiming `nonce` until `expires_at`; `None` when it was claimed already. Other
    /// claims on the same store wait until this one is committed or dropped.
    fn begin(
        &self,
        nonce: [u8; 16],
        expires_at: SystemTime,
    ) -> BoxFuture<'_, Result<Option<Box<dyn PendingClaim>>, StoreError>>;

    /// Removes the committed claim of `nonce`, so that its state can be used again. The
    /// framework calls it only for a handler that failed after its claim was committed.
    fn release(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<(), StoreError>>;

    /// What keeps the nonces, as telemetry names it (`db.system.name`: `sqlite`,
    /// `postgresql`), when it is a database.
    fn system(&self) -> Option<&'static str> {
        None
    }
}

/// A claim in progress. Dropping it without [`commit`](PendingClaim::commit) releases the nonce.
pub trait PendingClaim: Send + 'static {
    /// Makes the claim permanent.
    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>>;

    /// The store's own claim type, for a mutation that runs in the claim's transaction (see
    /// [`Claim`](crate::rounds::Claim)); `None` for stores without one.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

fn millis(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Nonces in memory: for tests and single-process servers. Bounded; expired nonces are pruned.
#[derive(Clone)]
pub struct MemoryReplayStore {
    claimed: Arc<Mutex<HashMap<[u8; 16], i64>>>,
    // Claims are serialized, like a database's write lock, so "check then claim" cannot race.
    gate: Arc<tokio::sync::Mutex<()>>,
    capacity: usize,
}

impl std::fmt::Debug for MemoryReplayStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryReplayStore").field("capacity", &self.capacity).finish_non_exhaustive()
    }
}

impl Default for MemoryReplayStore {
    fn default() -> Self {
        MemoryReplayStore::with_capacity(100_000)
    }
}

impl MemoryReplayStore {
    /// A store holding at most `capacity` unexpired nonces; when full it refuses new claims
    /// (with an error) rather than forget a nonce that could then be replayed.
    pub fn with_capacity(capacity: usize) -> Self {
        MemoryReplayStore { claimed: Arc::default(), gate: Arc::default(), capacity }
    }
}

struct MemoryClaim {
    claimed: Arc<Mutex<HashMap<[u8; 16], i64>>>,
    nonce: [u8; 16],
    expires_at: i64,
    _gate: tokio::sync::OwnedMutexGuard<()>,
}

impl PendingClaim for MemoryClaim {
    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        Box::pin(async move {
            self.claimed.lock().expect("replay map lock").insert(self.nonce, self.expires_at);
            Ok(())
        })
    }
}

impl ReplayStore for MemoryReplayStore {
    fn is_claimed(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(async move { Ok(self.claimed.lock().expect("replay map lock").contains_key(&nonce)) })
    }

    fn begin(
        &self,
        nonce: [u8; 16],
        expires_at: SystemTime,
    ) -> BoxFuture<'_, Result<Option<Box<dyn PendingClaim>>, StoreError>> {
        Box::pin(async move {
            let gate = self.gate.clone().lock_owned().await;
            {
                let mut claimed = self.claimed.lock().expect("replay map lock");
                if claimed.contains_key(&nonce) {
                    return Ok(None);
                }
                if claimed.len() >= self.capacity {
                    let now = millis(SystemTime::now());
                    claimed.retain(|_, expires| *expires > now);
                    if claimed.len() >= self.capacity {
                        return Err(StoreError("the in-memory replay store is full".into()));
                    }
                }
            }
            Ok(Some(Box::new(MemoryClaim {
                claimed: self.claimed.clone(),
                nonce,
                expires_at: millis(expires_at),
                _gate: gate,
            }) as Box<dyn PendingClaim>))
        })
    }

    fn release(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.claimed.lock().expect("replay map lock").remove(&nonce);
            Ok(())
        })
    }
}

#[cfg(feature = "sqlite")]
pub(crate) mod sqlite;
#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteClaim, SqliteReplayStore};

#[cfg(feature = "postgres")]
pub(crate) mod postgres;
#[cfg(feature = "postgres")]
pub use postgres::{PostgresClaim, PostgresReplayStore, PostgresSettings};

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn exercise(store: &dyn ReplayStore) {
        let expires = SystemTime::now() + Duration::from_secs(60);
        let nonce = [1u8; 16];
        assert!(!store.is_claimed(nonce).await.unwrap());

        // A claim that is dropped leaves the nonce free.
        let pending = store.begin(nonce, expires).await.unwrap().expect("free");
        drop(pending);
        assert!(!store.is_claimed(nonce).await.unwrap());

        // A committed claim is permanent.
        let pending = store.begin(nonce, expires).await.unwrap().expect("still free");
        pending.commit().await.unwrap();
        assert!(store.is_claimed(nonce).await.unwrap());
        assert!(store.begin(nonce, expires).await.unwrap().is_none(), "a used nonce cannot be claimed again");

        // Other nonces are unaffected.
        assert!(store.begin([2u8; 16], expires).await.unwrap().is_some());

        // A released claim frees the nonce for one more use, and only that nonce.
        let other = [3u8; 16];
        store.begin(other, expires).await.unwrap().expect("free").commit().await.unwrap();
        let released = [4u8; 16];
        store.begin(released, expires).await.unwrap().expect("free").commit().await.unwrap();
        store.release(released).await.unwrap();
        assert!(!store.is_claimed(released).await.unwrap());
        assert!(store.is_claimed(other).await.unwrap(), "releasing one nonce leaves the others claimed");
        store.begin(released, expires).await.unwrap().expect("free again").commit().await.unwrap();
        assert!(store.begin(released, expires).await.unwrap().is_none(), "and then used up");
        // Releasing a nonce that was never claimed changes nothing.
        store.release([5u8; 16]).await.unwrap();
        assert!(!store.is_claimed([5u8; 16]).await.unwrap());
    }

    #[tokio::test]
    async fn memory_store_claims_once() {
        exercise(&MemoryReplayStore::default()).await;
    }

    #[tokio::test]
    async fn memory_store_prunes_and_refuses_when_full() {
        let store = MemoryReplayStore::with_capacity(1);
        let past = SystemTime::now() - Duration::from_secs(1);
        store.begin([1; 16], past).await.unwrap().unwrap().commit().await.unwrap();
        // The expired nonce is pruned to make room.
        let future = SystemTime::now() + Duration::from_secs(60);
        store.begin([2; 16], future).await.unwrap().unwrap().commit().await.unwrap();
        assert!(store.begin([3; 16], future).await.is_err(), "full of live nonces: refuse, never forget");
    }

    #[tokio::test]
    async fn concurrent_claims_of_one_nonce_let_one_through() {
        let store = MemoryReplayStore::default();
        let expires = SystemTime::now() + Duration::from_secs(60);
        let mut wins = 0;
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move {
                    match store.begin([9; 16], expires).await.unwrap() {
                        Some(claim) => {
                            claim.commit().await.unwrap();
                            true
                        }
                        None => false,
                    }
                })
            })
            .collect();
        for task in tasks {
            wins += usize::from(task.await.unwrap());
        }
        assert_eq!(wins, 1);
    }

    #[cfg(feature = "sqlite")]
    #[tokio::test]
    async fn sqlite_store_claims_once_and_persists() {
        let dir = std::env::temp_dir().join(format!("mcp-rounds-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.sqlite3");
        let _ = std::fs::remove_file(&path);
        exercise(&SqliteReplayStore::open(&path).unwrap()).await;
        // A second handle (as another process would open) sees the same claims.
        let again = SqliteReplayStore::open(&path).unwrap();
        assert!(again.is_claimed([1u8; 16]).await.unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn many_opening_one_new_file_together_all_succeed() {
        let dir = std::env::temp_dir().join(format!("mcp-rounds-replay-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for round in 0..20 {
            let path = dir.join(format!("state-{round}.sqlite3"));
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
            let openers: Vec<_> = (0..8)
                .map(|_| {
                    let (path, barrier) = (path.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        SqliteReplayStore::open(&path).map(drop)
                    })
                })
                .collect();
            for opener in openers {
                opener.join().unwrap().unwrap_or_else(|e| panic!("round {round}: {e}"));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
