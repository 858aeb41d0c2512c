//! Where the legacy sessions of a connection live: a stdio connection has at most one, an
//! HTTP endpoint many, named by `Mcp-Session-Id` (see `SessionMap`).

use std::sync::{Arc, Mutex};

use super::legacy::Session;
use crate::context::Principal;

/// Where a connection finds its legacy sessions.
pub(crate) trait Sessions: Send + Sync + 'static {
    /// Whether requests name their session (HTTP): then a session is kept only once its
    /// handshake succeeded, and a request with the 2026-07-28 envelope that names one is
    /// refused. A connection that carries one session (stdio) keeps it from its first
    /// `initialize`, and serves such requests statelessly.
    const NAMED: bool;

    /// The session `named` (or the connection's own), if `principal` opened it.
    fn find(&self, named: Option<&str>, principal: &Principal) -> Option<Arc<Session>>;

    /// Keeps `session`; the name its client will use, if sessions are named.
    fn keep(&self, session: Arc<Session>) -> Option<Arc<str>>;

    /// Ends every session (the connection or endpoint is going away).
    fn close_all(&self);
}

/// The one session of a stdio connection.
#[derive(Default)]
pub(crate) struct OwnSession(Mutex<Option<Arc<Session>>>);

impl Sessions for OwnSession {
    const NAMED: bool = false;

    fn find(&self, _: Option<&str>, _: &Principal) -> Option<Arc<Session>> {
        self.0.lock().expect("session lock").clone()
    }

    fn keep(&self, session: Arc<Session>) -> Option<Arc<str>> {
        *self.0.lock().expect("session lock") = Some(session);
        None
    }

    fn close_all(&self) {
        if let Some(session) = self.0.lock().expect("session lock").take() {
            session.close();
        }
    }
}
