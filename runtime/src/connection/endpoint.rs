//! What an HTTP endpoint's other methods come to: a GET opens a legacy session's stream of
//! notifications outside requests, a DELETE ends a session. 2026-07-28 has neither.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::session_map::SessionMap;
use super::{Arrival, Connection, Refused, Status, refused, session_not_found};
use crate::context::Notifier;
use crate::error::Error;
use crate::server::Server;

impl Connection<SessionMap> {
    /// The connection of an endpoint serving `server`: a legacy session unused for `idle` is
    /// closed, and at most `max` are open at once; `shutdown` ends listen streams.
    pub(crate) fn endpoint(server: &Server, idle: Duration, max: usize, shutdown: CancellationToken) -> Self {
        Connection::new(server, SessionMap::new(idle, max), None, shutdown)
    }

    /// Opens the notification stream of the session `arrival` names (a GET): what belongs to
    /// no request (list changes, resource updates) goes to the returned receiver from now on.
    /// `readable`: whether the caller reads a stream at all.
    pub(crate) fn open_stream(
        &self,
        arrival: &Arrival<'_>,
        readable: bool,
        buffer: usize,
    ) -> Result<mpsc::Receiver<Vec<u8>>, Refused> {
        let name = session_named(arrival)?;
        if !readable {
            let error = Error::invalid_request("The notification stream is text/event-stream: accept it");
            return Err(refused(Status::NotAcceptable, None, &error));
        }
        let session = self.sessions().get(name, &arrival.principal).ok_or_else(session_not_found)?;
        let (sender, receiver) = mpsc::channel(buffer);
        if !session.attach_sink(Notifier::new(sender)) {
            let error = Error::invalid_request("This session already has a notification stream open");
            return Err(refused(Status::Conflict, None, &error));
        }
        Ok(receiver)
    }

    /// Ends the session `arrival` names (a DELETE).
    pub(crate) fn end_session(&self, arrival: &Arrival<'_>) -> Result<(), Refused> {
        let name = session_named(arrival)?;
        if self.sessions().remove(name, &arrival.principal) { Ok(()) } else { Err(session_not_found()) }
    }
}

/// The session a GET or DELETE is about; without one, the method has no meaning here.
fn session_named<'a>(arrival: &Arrival<'a>) -> Result<&'a str, Refused> {
    arrival.session.ok_or(Refused { status: Status::NotAllowed, bytes: Vec::new() })
}
