//! What an answer means to a transport that has statuses: decided here, by the rules of the
//! request's era, so that a transport only maps each [`Status`] to one of its own.

use super::era::Era;
use crate::error::ErrorCode;

/// What an answer or a refusal means, whatever the transport calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "http"), allow(dead_code))] // the endpoint's GET and DELETE are HTTP's
pub(crate) enum Status {
    /// Answered: a result, or an error a 2025-11-25 session carries as its answer.
    Ok,
    /// The message cannot be processed as it is.
    Invalid,
    /// No such method, or no such session.
    NotFound,
    /// The endpoint does not take this kind of message at all (2026-07-28 has no session
    /// streams to open or end).
    NotAllowed,
    /// The caller cannot receive what it asked for (a notification stream it does not read).
    NotAcceptable,
    /// What it asks for is taken already (a session's one notification stream).
    Conflict,
    /// The caller lacks a scope the request needs.
    Forbidden,
    /// The caller is over its rate.
    TooManyRequests,
    /// Something the request needs is down for now; the same request may come again.
    Unavailable,
    /// The server failed.
    Failed,
}

impl Status {
    /// The status of an answer for a client of `era` that failed with `error`, if it did:
    /// 2026-07-28 gives each code its own; a 2025-11-25 session's errors travel as answers.
    /// Authorization is the transport's in both revisions: OAuth clients step up on it.
    pub(crate) fn of(era: Era, error: Option<ErrorCode>) -> Self {
        match (era, error) {
            (_, None) => Status::Ok,
            (_, Some(ErrorCode::InsufficientScope)) => Status::Forbidden,
            (Era::Legacy, Some(_)) => Status::Ok,
            (Era::Current, Some(ErrorCode::MethodNotFound)) => Status::NotFound,
            (Era::Current, Some(ErrorCode::InternalError)) => Status::Failed,
            (Era::Current, Some(ErrorCode::RateLimited)) => Status::TooManyRequests,
            (Era::Current, Some(ErrorCode::Unavailable)) => Status::Unavailable,
            (Era::Current, Some(_)) => Status::Invalid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_has_its_own_status_in_2026_and_travels_as_the_answer_in_a_session() {
        assert_eq!(Status::of(Era::Current, None), Status::Ok);
        assert_eq!(Status::of(Era::Current, Some(ErrorCode::MethodNotFound)), Status::NotFound);
        assert_eq!(Status::of(Era::Current, Some(ErrorCode::InvalidParams)), Status::Invalid);
        assert_eq!(Status::of(Era::Current, Some(ErrorCode::RateLimited)), Status::TooManyRequests);
        assert_eq!(Status::of(Era::Current, Some(ErrorCode::InternalError)), Status::Failed);
        assert_eq!(Status::of(Era::Current, Some(ErrorCode::Unavailable)), Status::Unavailable);
        assert_eq!(Status::of(Era::Legacy, Some(ErrorCode::MethodNotFound)), Status::Ok);
        for era in [Era::Current, Era::Legacy] {
            assert_eq!(Status::of(era, Some(ErrorCode::InsufficientScope)), Status::Forbidden);
        }
    }
}
