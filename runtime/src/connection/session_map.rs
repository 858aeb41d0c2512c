//! The legacy sessions of an HTTP endpoint, by `Mcp-Session-Id`.
//!
//! A session id is 128 random bits in hex: unguessable, and only visible ASCII as the 2025
//! transport requires. A session belongs to the principal that opened it; presented by anyone
//! else it does not exist. Sessions nobody used for the idle timeout are closed (unless their
//! notification stream is open), and at the limit the least recently used one makes room.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::legacy::Session;
use super::sessions::Sessions;
use crate::context::Principal;

/// Default time a session may sit unused before it is closed.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// Default number of sessions open at once.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;

struct Entry {
    session: Arc<Session>,
    last_used: Instant,
    /// When it was last used, in order of use: two uses within one clock tick still rank.
    use_order: u64,
}

/// The open sessions of one HTTP endpoint, by id.
pub(crate) struct SessionMap {
    open: Mutex<Open>,
    idle: Duration,
    max: usize,
}

#[derive(Default)]
struct Open {
    entries: HashMap<Arc<str>, Entry>,
    uses: u64,
}

impl Open {
    fn next_use(&mut self) -> u64 {
        self.uses += 1;
        self.uses
    }
}

impl SessionMap {
    pub(crate) fn new(idle: Duration, max: usize) -> Self {
        SessionMap { open: Mutex::default(), idle, max: max.max(1) }
    }

    /// Keeps `session` and returns its new id.
    pub(crate) fn insert(&self, session: Arc<Session>) -> Arc<str> {
        let id: Arc<str> = crate::ids::random_id().into();
        let now = Instant::now();
        let mut open = self.open.lock().expect("sessions lock");
        open.entries.retain(|_, entry| {
            let keep = entry.session.has_sink() || now.duration_since(entry.last_used) < self.idle;
            if !keep {
                entry.session.close();
            }
            keep
        });
        if open.entries.len() >= self.max
            && let Some(oldest) = open.entries.iter().min_by_key(|(_, e)| e.use_order).map(|(id, _)| id.clone())
            && let Some(entry) = open.entries.remove(&oldest)
        {
            tracing::warn!(limit = self.max, "session limit reached; the least recently used session was closed");
            entry.session.close();
        }
        let use_order = open.next_use();
        open.entries.insert(id.clone(), Entry { session, last_used: now, use_order });
        id
    }

    /// The session `id` of `principal`, marked as used.
    pub(crate) fn get(&self, id: &str, principal: &Principal) -> Option<Arc<Session>> {
        let mut open = self.open.lock().expect("sessions lock");
        let use_order = open.next_use();
        let entry = open.entries.get_mut(id).filter(|e| e.session.principal() == principal)?;
        entry.last_used = Instant::now();
        entry.use_order = use_order;
        Some(entry.session.clone())
    }

    /// Ends the session `id` of `principal`; `false` if there is none.
    pub(crate) fn remove(&self, id: &str, principal: &Principal) -> bool {
        let mut open = self.open.lock().expect("sessions lock");
        if !open.entries.get(id).is_some_and(|e| e.session.principal() == principal) {
            return false;
        }
        if let Some(entry) = open.entries.remove(id) {
            entry.session.close();
        }
        true
    }
}

impl Sessions for SessionMap {
    const NAMED: bool = true;

    fn find(&self, named: Option<&str>, principal: &Principal) -> Option<Arc<Session>> {
        self.get(named?, principal)
    }

    fn keep(&self, session: Arc<Session>) -> Option<Arc<str>> {
        Some(self.insert(session))
    }

    fn close_all(&self) {
        for (_, entry) in self.open.lock().expect("sessions lock").entries.drain() {
            entry.session.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Server;

    fn session(principal: &str) -> Arc<Session> {
        Session::new(&Server::builder("s", "1").build().unwrap(), Principal::new(principal), None)
    }

    #[test]
    fn ids_are_visible_ascii_and_sessions_belong_to_their_principal() {
        let sessions = SessionMap::new(DEFAULT_SESSION_IDLE, 10);
        let id = sessions.insert(session("alice"));
        assert_eq!(id.len(), 32);
        assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        assert!(sessions.get(&id, &Principal::new("alice")).is_some());
        assert!(sessions.get(&id, &Principal::new("bob")).is_none());
        assert!(sessions.get(&id, &Principal::anonymous()).is_none());
        assert!(!sessions.remove(&id, &Principal::new("bob")), "bob cannot end alice's session");
        assert!(sessions.remove(&id, &Principal::new("alice")));
        assert!(sessions.get(&id, &Principal::new("alice")).is_none());
    }

    #[test]
    fn the_limit_closes_the_least_recently_used_and_idle_ones_go() {
        let sessions = SessionMap::new(DEFAULT_SESSION_IDLE, 2);
        let first = sessions.insert(session("a"));
        let second = sessions.insert(session("a"));
        assert!(sessions.get(&first, &Principal::new("a")).is_some(), "using it makes it recent");
        let third = sessions.insert(session("a"));
        assert!(sessions.get(&second, &Principal::new("a")).is_none());
        assert!(sessions.get(&first, &Principal::new("a")).is_some());
        assert!(sessions.get(&third, &Principal::new("a")).is_some());

        let short = SessionMap::new(Duration::ZERO, 10);
        let gone = short.insert(session("a"));
        let kept = short.insert(session("a"));
        assert!(short.get(&gone, &Principal::new("a")).is_none(), "idle sessions are closed");
        assert!(short.get(&kept, &Principal::new("a")).is_some());
    }
}
