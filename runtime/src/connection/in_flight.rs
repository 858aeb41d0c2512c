//! Requests in flight by id: what `notifications/cancelled` names, and what keeps a client from
//! reusing an id while its request runs.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use serde_json::value::RawValue;

use crate::model::{CancelledNotificationParams, RequestId};

/// The requests in flight of one scope (a stdio connection, a legacy HTTP session).
#[derive(Clone, Debug, Default)]
pub(crate) struct InFlight {
    requests: Arc<Mutex<Requests>>,
}

/// Each request with the number it entered as: a cancelled request leaves at once (its id is
/// free for the next request), and its entry, dropped later, must not take the next one's.
#[derive(Debug, Default)]
struct Requests {
    /// Hashed with foldhash (seeded per process): the ids are the one client's own, and only
    /// its own requests share the map.
    by_id: HashMap<RequestId, (u64, CancellationToken), foldhash::fast::RandomState>,
    entered: u64,
}

/// A request in flight; it stops being cancellable by id when dropped.
#[derive(Debug)]
pub(crate) struct Entered {
    in_flight: InFlight,
    id: RequestId,
    number: u64,
    /// Cancelled by `notifications/cancelled` naming the request.
    pub(crate) token: CancellationToken,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let mut requests = self.in_flight.requests.lock().expect("in-flight lock");
        // Almost always its own entry: taken out at once, and put back in the rare case that
        // another request took the id since.
        if let Some((id, entry)) = requests.by_id.remove_entry(&self.id)
            && entry.0 != self.number
        {
            requests.by_id.insert(id, entry);
        }
    }
}

impl InFlight {
    /// Registers request `id`; `None` when a request with that id is already in flight.
    pub(crate) fn enter(&self, id: &RequestId) -> Option<Entered> {
        let token = CancellationToken::new();
        let mut requests = self.requests.lock().expect("in-flight lock");
        requests.entered += 1;
        let number = requests.entered;
        match requests.by_id.entry(id.clone()) {
            Entry::Occupied(_) => return None,
            Entry::Vacant(slot) => {
                slot.insert((number, token.clone()));
            }
        }
        Some(Entered { in_flight: self.clone(), id: id.clone(), number, token })
    }

    /// Cancels request `id`, if it is in flight, and frees its id at once: the client may
    /// reuse it before the cancelled work has wound down.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some((_, token)) = self.requests.lock().expect("in-flight lock").by_id.remove(id) {
            token.cancel();
        }
    }

    /// Cancels the request a `notifications/cancelled` with `params` names; params that do not
    /// name one (strictly: an object with a `requestId`) cancel nothing.
    pub(crate) fn cancel_notified(&self, params: Option<&RawValue>) {
        match crate::strict::from_str::<CancelledNotificationParams>(params.map_or("null", RawValue::get)) {
            Ok(p) => self.cancel(&p.request_id),
            Err(_) => tracing::debug!("notifications/cancelled without a usable requestId ignored"),
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
        // Cancelled, the id is free at once, and the old entry leaving later keeps the new one.
        let again = in_flight.enter(&id).unwrap();
        assert!(!again.token.is_cancelled(), "a new request with the id is a new request");
        drop(entered);
        assert!(in_flight.enter(&id).is_none(), "the new request is still in flight");
        drop(again);
        assert!(in_flight.enter(&id).is_some());
    }
}
