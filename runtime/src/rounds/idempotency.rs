//! A key for making the effect of a confirmed round idempotent.

/// Names the verified state a retry presents: the same every time that state is presented,
/// and different for every state the server signs. `None` on a first call (no state), or when
/// the state does not verify (then the `Round<R>` parameter refuses the call anyway).
///
/// A tool that takes the key holds its single-use state's claim open while it runs, and the
/// claim commits after the tool returns (a tool that takes neither this nor a
/// [`Claim`](super::Claim) has its claim committed before it runs). So take it to key the
/// effect: tag what the tool changes with it (a file moved to a trash named by it, a row
/// holding it), and neither a crash between the change and the commit nor a commit that fails
/// (answered -31503, to send again) can make a retry of the same state change things twice:
/// the retry finds its own tag and reports what was done.
///
/// ```
/// use mcp_rounds::rounds::{Elicitation, IdempotencyKey, Round, Step};
/// use mcp_rounds::form::FormRequest;
/// use mcp_rounds::{Form, Rounds, tool};
///
/// #[derive(Form)]
/// struct Confirm {
///     /// Really pay?
///     confirm: bool,
/// }
///
/// #[derive(Rounds)]
/// enum Pay {
///     Confirm {
///         amount: u64,
///         #[answer]
///         confirm: Elicitation<Confirm>,
///     },
/// }
///
/// /// Pays an invoice once the user confirms.
/// #[tool(destructive)]
/// fn pay(amount: u64, round: Round<Pay>, key: IdempotencyKey) -> Step<Pay, String> {
///     match round {
///         Round::Start => Pay::ask_confirm(amount, FormRequest::new("Pay it?")).into(),
///         Round::Resumed(Pay::Confirm { amount, confirm: Elicitation::Accept(Confirm { confirm: true }) }) => {
///             // A payment provider that deduplicates by key never charges twice.
///             Step::Done(format!("paid {amount} with key {}", key.get().unwrap_or_default()))
///         }
///         Round::Resumed(_) => Step::Done("not paid".into()),
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey(Option<String>);

impl IdempotencyKey {
    /// The key (32 lowercase hex digits), if a verified state was presented.
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    pub(crate) fn from_nonce(nonce: Option<[u8; 16]>) -> Self {
        IdempotencyKey(nonce.map(|n| n.iter().map(|b| format!("{b:02x}")).collect()))
    }
}
