//! What every request of a server shares: registered state, how round state is signed and
//! claimed, and the change announcements.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::changes::Changes;
use crate::replay::{MemoryReplayStore, ReplayStore};
use crate::request_state::{DEFAULT_STATE_TTL, KeyRing};

/// What every request of a server shares.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub(crate) state: StateMap,
    pub(crate) rounds: RoundsConfig,
    pub(crate) changes: Changes,
}

/// Shared state by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.0.insert(TypeId::of::<T>(), value);
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0.get(&TypeId::of::<T>()).cloned().and_then(|v| v.downcast::<T>().ok())
    }

    pub(crate) fn contains(&self, type_id: TypeId) -> bool {
        self.0.contains_key(&type_id)
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateMap({} entries)", self.0.len())
    }
}

/// How a server signs and checks the state of its multi-round handlers.
#[derive(Clone)]
pub(crate) struct RoundsConfig {
    pub(crate) keys: Option<KeyRing>,
    pub(crate) ttl: Duration,
    pub(crate) store: Arc<dyn ReplayStore>,
}

impl Default for RoundsConfig {
    fn default() -> Self {
        RoundsConfig { keys: None, ttl: DEFAULT_STATE_TTL, store: Arc::new(MemoryReplayStore::default()) }
    }
}

impl fmt::Debug for RoundsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RoundsConfig").field("keys", &self.keys).field("ttl", &self.ttl).finish_non_exhaustive()
    }
}
