//! Who is calling.

use std::fmt;
use std::sync::Arc;

/// Who is calling, as established by the transport (a bearer token over HTTP, configuration
/// over stdio). Never taken from anything the client says about itself.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Principal(Option<Arc<str>>);

impl Principal {
    /// A named, authenticated principal.
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        Principal(Some(name.into()))
    }

    /// Nobody in particular: the transport authenticated no one.
    pub fn anonymous() -> Self {
        Principal(None)
    }

    /// The name, if authenticated.
    pub fn name(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// True for [`Principal::anonymous`].
    pub fn is_anonymous(&self) -> bool {
        self.0.is_none()
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(name) => write!(f, "Principal({name:?})"),
            None => f.write_str("Principal(anonymous)"),
        }
    }
}

impl Default for Principal {
    fn default() -> Self {
        Principal::anonymous()
    }
}
