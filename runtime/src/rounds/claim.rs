//! The claim of a single-use round, for a mutation that must commit together with it.

use crate::replay::PendingClaim;

use super::session::ClaimSlot;

/// The claim a single-use round holds while its tool runs.
///
/// A tool that takes a `Claim` holds its state's claim open: the framework claims the nonce
/// before the tool runs and commits the claim after it returns a result that is not a failure
/// (a tool that takes neither this nor an [`IdempotencyKey`](super::IdempotencyKey) has its
/// claim committed before it runs). Run the tool's mutation inside the claim's transaction,
/// in the same database as the replay store: then the claim and the mutation commit together,
/// or (a failure, an error, a crash) neither does. A commit that fails is answered -31503, and
/// sending the same request again is safe: the mutation rolled back with the claim, so the
/// state is still usable and nothing happened yet.
///
/// ```no_run
/// # #[cfg(feature = "sqlite")] {
/// use mcp_rounds::form::FormRequest;
/// use mcp_rounds::replay::SqliteClaim;
/// use mcp_rounds::rounds::{Claim, Elicitation, Round, Step};
/// use mcp_rounds::{Form, Rounds, ToolError, tool};
///
/// #[derive(Form)]
/// struct Confirm {
///     /// Really close it?
///     confirm: bool,
/// }
///
/// #[derive(Rounds)]
/// enum Close {
///     Confirm {
///         #[answer]
///         confirm: Elicitation<Confirm>,
///     },
/// }
///
/// /// Closes an account, once the user confirms.
/// #[tool(destructive)]
/// async fn close_account(id: i64, round: Round<Close>, claim: Claim) -> Result<Step<Close, String>, ToolError> {
///     match round {
///         Round::Start => Ok(Close::ask_confirm(FormRequest::new("Close it?")).into()),
///         Round::Resumed(Close::Confirm { confirm: Elicitation::Accept(Confirm { confirm: true }) }) => {
///             let mut claim = claim.lock().await;
///             let sqlite = claim.get_mut::<SqliteClaim>().ok_or_else(|| ToolError::new("not claimed"))?;
///             sqlite.connection().execute("UPDATE accounts SET closed = 1 WHERE id = ?1", [id])?;
///             Ok(Step::Done("closed".into()))
///         }
///         Round::Resumed(_) => Ok(Step::Done("kept".into())),
///     }
/// }
/// # }
/// ```
#[derive(Clone)]
pub struct Claim {
    slot: ClaimSlot,
}

impl std::fmt::Debug for Claim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Claim").finish_non_exhaustive()
    }
}

impl Claim {
    pub(crate) fn new(slot: ClaimSlot) -> Self {
        Claim { slot }
    }

    /// Waits for the claim. Hold the guard only while using it.
    pub async fn lock(&self) -> ClaimGuard<'_> {
        ClaimGuard { claim: self.slot.lock().await }
    }
}

/// A locked [`Claim`].
pub struct ClaimGuard<'a> {
    claim: tokio::sync::MutexGuard<'a, Option<Box<dyn PendingClaim>>>,
}

impl ClaimGuard<'_> {
    /// Whether a claim is held: only on a retry of a single-use round, while the tool runs.
    pub fn is_held(&self) -> bool {
        self.claim.is_some()
    }

    /// The store's own claim (such as `SqliteClaim` or `PostgresClaim`), if one is held and
    /// it is of that type.
    pub fn get_mut<C: PendingClaim>(&mut self) -> Option<&mut C> {
        self.claim.as_mut()?.as_any_mut()?.downcast_mut::<C>()
    }
}
