//! Deliberate faults for the fleet test, which must show that its checker catches each one.
//! Only a debug build reads them, from `NOTES_TEST_BROKEN` (a comma-separated list); a release
//! build behaves correctly whatever the environment says.
//!
//! - `reuse-states`: single-use states are never used up (a replay store that forgets).
//! - `drop-changes`: changes to some notes are never announced to listen streams.
//! - `keep-tasks`: a task whose server died stays `working` (its lease never runs out).
//!
//! `NOTES_TEST_EXPORT_PAUSE_MS` makes `notes_export` take that long per note, so that a fault
//! can land while tasks run.

use std::time::{Duration, SystemTime};

use mcp_rounds::future::BoxFuture;
use mcp_rounds::replay::{PendingClaim, ReplayStore, StoreError};

/// Whether the fault `name` is switched on.
pub fn broken(name: &str) -> bool {
    cfg!(debug_assertions)
        && std::env::var("NOTES_TEST_BROKEN").is_ok_and(|list| list.split(',').any(|item| item.trim() == name))
}

/// How long an export pauses per note.
pub fn export_pause() -> Option<Duration> {
    if !cfg!(debug_assertions) {
        return None;
    }
    let millis: u64 = std::env::var("NOTES_TEST_EXPORT_PAUSE_MS").ok()?.parse().ok()?;
    Some(Duration::from_millis(millis))
}

/// Whether a change to note `id` is one `drop-changes` loses: the same notes in every process,
/// so that no other instance announces it either.
pub fn drops_change(id: &str) -> bool {
    broken("drop-changes") && id.bytes().map(u32::from).sum::<u32>() % 3 == 0
}

/// A replay store that never remembers a claim: every state may be used again.
pub struct Forgetful<S>(pub S);

impl<S: ReplayStore> ReplayStore for Forgetful<S> {
    fn is_claimed(&self, _nonce: [u8; 16]) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(async { Ok(false) })
    }

    fn begin(
        &self,
        _nonce: [u8; 16],
        expires_at: SystemTime,
    ) -> BoxFuture<'_, Result<Option<Box<dyn PendingClaim>>, StoreError>> {
        // Claims a nonce no one else will ever use, so nothing is refused.
        let mut fresh = [0u8; 16];
        let _ = getrandom::fill(&mut fresh);
        self.0.begin(fresh, expires_at)
    }

    fn release(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<(), StoreError>> {
        self.0.release(nonce)
    }

    fn system(&self) -> Option<&'static str> {
        self.0.system()
    }
}
