//! Who is calling: a subject, the scopes it was granted, and the verified claims of its token.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::error::Error;
use crate::model::JsonObject;

/// Who is calling, as established by the transport (a bearer token over HTTP, configuration
/// over stdio). Never taken from anything the client says about itself.
///
/// A principal is its subject: two principals with the same subject are equal, whatever
/// their scopes, so a `requestState`, a private cache entry or a task made for one subject
/// serves that subject alone. Principals established without OAuth (static tokens, stdio)
/// have unrestricted scopes; an OAuth access token's principal has exactly the scopes the
/// token grants, and its verified claims.
///
/// ```
/// use mcp_rounds::Principal;
///
/// let alice = Principal::new("alice").with_scopes(["notes:read"]);
/// assert!(alice.has_scope("notes:read"));
/// assert!(!alice.has_scope("notes:write"));
/// assert_eq!(alice, Principal::new("alice"), "the same subject");
/// assert!(Principal::new("bob").has_scope("anything"), "no scopes given: unrestricted");
/// ```
#[derive(Clone, Default)]
pub struct Principal(Option<Arc<Identity>>);

#[derive(Clone)]
struct Identity {
    subject: Arc<str>,
    /// `None`: unrestricted.
    scopes: Option<Arc<[Arc<str>]>>,
    claims: Option<Arc<JsonObject>>,
}

impl Principal {
    /// A named, authenticated principal, with unrestricted scopes.
    pub fn new(subject: impl Into<Arc<str>>) -> Self {
        Principal(Some(Arc::new(Identity { subject: subject.into(), scopes: None, claims: None })))
    }

    /// Nobody in particular: the transport authenticated no one. Unrestricted, as nothing is
    /// being authorized.
    pub fn anonymous() -> Self {
        Principal(None)
    }

    /// The same subject, granted exactly `scopes` (as an access token's `scope` lists them).
    /// On the anonymous principal this does nothing.
    #[must_use]
    pub fn with_scopes<S: Into<Arc<str>>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        if let Some(identity) = self.0.as_mut() {
            Arc::make_mut(identity).scopes = Some(scopes.into_iter().map(Into::into).collect());
        }
        self
    }

    /// The same subject, carrying the verified claims of its token. On the anonymous principal
    /// this does nothing.
    #[must_use]
    pub fn with_claims(mut self, claims: JsonObject) -> Self {
        if let Some(identity) = self.0.as_mut() {
            Arc::make_mut(identity).claims = Some(Arc::new(claims));
        }
        self
    }

    /// The subject (an access token's `sub`, a static token's principal name), if
    /// authenticated.
    pub fn name(&self) -> Option<&str> {
        self.0.as_deref().map(|identity| &*identity.subject)
    }

    /// The same as [`name`](Self::name).
    pub fn subject(&self) -> Option<&str> {
        self.name()
    }

    /// True for [`Principal::anonymous`].
    pub fn is_anonymous(&self) -> bool {
        self.0.is_none()
    }

    /// The scopes granted, or `None` when they are unrestricted (no OAuth).
    pub fn scopes(&self) -> Option<&[Arc<str>]> {
        self.0.as_deref().and_then(|identity| identity.scopes.as_deref())
    }

    /// Whether `scope` was granted (always, when scopes are unrestricted).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes().is_none_or(|granted| granted.iter().any(|s| &**s == scope))
    }

    /// Those of `needed` that were not granted, in their order; empty when all were.
    pub fn missing_scopes<'a, S: AsRef<str> + ?Sized + 'a>(
        &self,
        needed: impl IntoIterator<Item = &'a S>,
    ) -> Vec<&'a str> {
        needed.into_iter().map(AsRef::as_ref).filter(|scope| !self.has_scope(scope)).collect()
    }

    /// `Ok` when every scope of `needed` was granted, else the -31403 error naming them all
    /// (over HTTP, a 403 `insufficient_scope` challenge). For handlers whose needs depend on
    /// their arguments; needs known up front go on the attribute (`#[tool(scopes("..."))]`).
    pub fn require_scopes<S: AsRef<str>>(&self, needed: &[S]) -> Result<(), Error> {
        if needed.iter().all(|scope| self.has_scope(scope.as_ref())) {
            Ok(())
        } else {
            Err(Error::insufficient_scope(needed))
        }
    }

    /// The verified claims of the access token, when the principal came from one.
    pub fn claims(&self) -> Option<&JsonObject> {
        self.0.as_deref().and_then(|identity| identity.claims.as_deref())
    }
}

/// Whether `scope` is an OAuth scope token (RFC 6749 §3.3): visible ASCII but `"` and `\`,
/// at least one character (the same rule `scopes("...")` applies when it compiles).
pub fn is_scope_token(scope: &str) -> bool {
    mcp_rounds_grammar::is_scope_token(scope)
}

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Principal {}

impl Hash for Principal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The subject and scopes only: claims may carry personal data.
        match &self.0 {
            Some(identity) => match &identity.scopes {
                Some(scopes) => write!(f, "Principal({:?}, scopes: {:?})", identity.subject, scopes),
                None => write!(f, "Principal({:?})", identity.subject),
            },
            None => f.write_str("Principal(anonymous)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_restrict_and_subjects_identify() {
        let reader = Principal::new("svc").with_scopes(["notes:read"]);
        assert_eq!(reader.missing_scopes(["notes:read", "notes:write"]), ["notes:write"]);
        assert!(Principal::new("svc").missing_scopes(["notes:write"]).is_empty());
        let refused = reader.require_scopes(&["notes:read", "notes:write"]).unwrap_err();
        assert_eq!(refused.required_scopes(), ["notes:read", "notes:write"]);
        assert!(reader.require_scopes(&["notes:read"]).is_ok());
        assert!(Principal::anonymous().with_scopes(["x"]).has_scope("y"), "nobody is being authorized");
        let none = Principal::new("svc").with_scopes(Vec::<String>::new());
        assert!(!none.has_scope("notes:read"), "an empty grant grants nothing");
        assert_eq!(reader, none);
        assert_ne!(reader, Principal::new("other"));
        assert_eq!(format!("{reader:?}"), "Principal(\"svc\", scopes: [\"notes:read\"])");
    }
}
