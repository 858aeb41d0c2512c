//! Requests in flight by id: what `notifications/cancelled` names, and what keeps a client from
//! reusing an id while its request runs.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::model::RequestId;

/// The requests in flight of one scope (a stdio connection, a legacy HTTP session).
#[derive(Clone, Debug, Default)]
pub(crate) struct InFlight {
    requests: Arc<Mutex<HashMap<RequestId, CancellationToken>>>,
}

/// A request in flight; it stops being cancellable by id when dropped.
#[derive(Debug)]
pub(crate) struct Entered {
    in_flight: InFlight,
    id: RequestId,
    /// Cancelled by `notifications/cancelled` naming the request.
    pub(crate) token: CancellationToken,
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.in_flight.requests.lock().expect("in-flight lock").remove(&self.id);
    }
}

impl InFlight {
    /// Registers request `id`; `None` when a request with that id is already in flight.
    pub(crate) fn enter(&self, id: &RequestId) -> Option<Entered> {
        let token = CancellationToken::new();
        match self.requests.lock().expect("in-flight lock").entry(id.clone()) {
            Entry::Occupied(_) => return None,
            Entry::Vacant(slot) => {
                slot.insert(token.clone());
            }
        }
        Some(Entered { in_flight: self.clone(), id: id.clone(), token })
    }

    /// Cancels request `id`, if it is in flight.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(token) = self.requests.lock().expect("in-flight lock").get(id) {
            token.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_in_flight_until_its_entry_is_dropped() {
        let in_flight = InFlight::default();
        let id = RequestId::number(1);
        let entered = in_flight.enter(&id).unwrap();
        assert!(in_flight.enter(&id).is_none(), "the same id twice");
        in_flight.cancel(&id);
        assert!(entered.token.is_cancelled());
        drop(entered);
        let again = in_flight.enter(&id).unwrap();
        assert!(!again.token.is_cancelled(), "a new request with the id is a new request");
    }
}
