//! Deliberate faults for the fleet test, which must show that its checker catches each one.
//! Only a build with the `fleet-faults` feature reads them, from `NOTES_TEST_BROKEN` (a
//! comma-separated list); any other build behaves correctly whatever the environment says.
//!
//! - `reuse-states`: single-use states are never used up (a replay store that forgets).
//! - `drop-changes`: changes to some notes are never announced to listen streams.
//! - `no-relay`: changes are never relayed to the other instances.
//! - `keep-tasks`: a task whose server died stays `working` (its lease never runs out).
//! - `tasks-twice`: an export runs twice for one task.
//! - `skip-writes`: edits of some notes answer success without writing anything.
//! - `lose-answers`: an edit of some notes is written, then the instance dies before answering.
//!
//! The feature's probes: `NOTES_TEST_EXPORT_PAUSE_MS` makes `notes_export` take that long per
//! note, so that a fault can land while tasks run; `NOTES_TEST_EXPORT_RUNS` names a directory
//! where each run of an export leaves a file named by its request, so that the checker can
//! count how often each task ran.

use std::time::{Duration, SystemTime};

use mcp_rounds::future::BoxFuture;
use mcp_rounds::replay::{PendingClaim, ReplayStore, StoreError};

/// Whether the fault `name` is switched on.
pub fn broken(name: &str) -> bool {
    cfg!(feature = "fleet-faults")
        && std::env::var("NOTES_TEST_BROKEN").is_ok_and(|list| list.split(',').any(|item| item.trim() == name))
}

/// How long an export pauses per note.
pub fn export_pause() -> Option<Duration> {
    if !cfg!(feature = "fleet-faults") {
        return None;
    }
    let millis: u64 = std::env::var("NOTES_TEST_EXPORT_PAUSE_MS").ok()?.parse().ok()?;
    Some(Duration::from_millis(millis))
}

/// Whether note `id` is one of the third of notes a fault picks: the same notes in every
/// process, so that no other instance makes up for it.
fn picked(id: &str) -> bool {
    id.bytes().map(u32::from).sum::<u32>() % 3 == 0
}

/// Whether a change to note `id` is one `drop-changes` loses.
pub fn drops_change(id: &str) -> bool {
    broken("drop-changes") && picked(id)
}

/// Whether an edit of note `id` is one `skip-writes` only pretends to make.
pub fn skips_write(id: &str) -> bool {
    broken("skip-writes") && picked(id)
}

/// Whether the instance dies after writing this edit of note `id` (`lose-answers`): once it
/// has been edited a few times, so that the run is under way.
pub fn loses_answer(id: &str, body: Option<&str>) -> bool {
    broken("lose-answers") && picked(id) && body.is_some_and(|b| b.contains(" v3 begins"))
}

/// Records one run of the export answering request `request`, when the fleet asks
/// (`NOTES_TEST_EXPORT_RUNS`).
pub fn record_export_run(request: &str) {
    if !cfg!(feature = "fleet-faults") {
        return;
    }
    let Some(dir) = std::env::var_os("NOTES_TEST_EXPORT_RUNS") else { return };
    let mut unique = [0u8; 8];
    let _ = getrandom::fill(&mut unique);
    let suffix: String = unique.iter().map(|b| format!("{b:02x}")).collect();
    let safe: String = request.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    let path = std::path::Path::new(&dir).join(format!("{safe}.{suffix}"));
    if let Err(e) = std::fs::write(&path, b"") {
        tracing::warn!(error = %e, "cannot record an export run");
    }
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
