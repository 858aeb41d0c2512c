//! The connection layer: what every transport shares between the bytes it frames and the
//! server.
//!
//! A [`Connection`] takes one decoded message at a time and decides everything protocol-wide
//! about it: its era (a request with the 2026-07-28 `_meta` is stateless; an `initialize`
//! without it opens a 2025-11-25 [`Session`](legacy::Session), found again through a
//! [`Sessions`] store), which requests are in flight under which id (what
//! `notifications/cancelled` names, and a reused id refused), what shuts listen streams down,
//! and what each answer means to a transport with statuses ([`Status`], which depends on the
//! era). A transport gets back what a message comes to ([`Received`]): a request to run, an
//! answer to send at once, or nothing; it only frames what it is given and maps a [`Status`]
//! to its own.

#[cfg(feature = "http")]
mod endpoint;
pub(crate) mod era;
mod in_flight;
pub(crate) mod legacy;
#[cfg(feature = "http")]
pub(crate) mod session_map;
pub(crate) mod sessions;
mod status;

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use tokio_util::sync::CancellationToken;

use crate::context::{Notifier, Principal};
use crate::dispatch::{Encoded, McpRequest, McpResponse, Origin, Stream};
use crate::error::Error;
use crate::future::BoxFuture;
use crate::headers::StandardHeaders;
use crate::jsonrpc::{self, Incoming, Request, encode_error};
use crate::method::Method;
use crate::model::{RequestId, TraceContext};
use crate::server::Server;
use crate::telemetry::Transport;
use crate::version::LEGACY_PROTOCOL_VERSIONS;
pub(crate) use era::Era;
use era::{is_modern, is_modern_header};
use in_flight::{Entered, InFlight};
use legacy::Session;
use sessions::Sessions;
pub(crate) use status::Status;

/// The connection of one byte stream (stdio), which carries at most one legacy session.
pub(crate) type StreamConnection = Connection<sessions::OwnSession>;

/// The connection of an endpoint (HTTP), whose legacy sessions are named by their clients.
#[cfg(feature = "http")]
pub(crate) type EndpointConnection = Connection<session_map::SessionMap>;

#[cfg(feature = "http")]
pub(crate) use session_map::{DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE};

/// One peer's side of MCP over one transport connection (stdio) or endpoint (HTTP).
pub(crate) struct Connection<S: Sessions> {
    server: Server,
    sessions: Arc<S>,
    /// Requests in flight when the connection is their scope (a stream transport); requests
    /// of named sessions have their session's.
    in_flight: InFlight,
    /// Where a new session's notifications outside requests go (stdout), if anywhere yet.
    sink: Option<Notifier>,
    /// Cancelled when the server shuts down: listen streams end with a result.
    shutdown: CancellationToken,
}

/// What came with one message besides its bytes.
#[derive(Debug, Default)]
pub(crate) struct Arrival<'a> {
    /// Who sent it, as the transport authenticated them.
    pub(crate) principal: Principal,
    /// The session it names (HTTP's `Mcp-Session-Id`).
    pub(crate) session: Option<&'a str>,
    /// HTTP's standard headers: the version a message claims outside its body, and what a
    /// 2026-07-28 request's body is checked against.
    pub(crate) headers: Option<StandardHeaders>,
    /// Where the request's own notifications go (its response stream); `None` when the
    /// client reads none.
    pub(crate) notifier: Option<Notifier>,
    /// The transport it came over.
    pub(crate) transport: Transport,
    /// The caller's trace context as the transport carried it (HTTP's `traceparent`
    /// headers), for requests whose `_meta` has none.
    pub(crate) trace: Option<Box<TraceContext>>,
}

impl Arrival<'_> {
    /// The protocol version the message claims outside its body (`MCP-Protocol-Version`).
    fn version(&self) -> Option<&str> {
        self.headers.as_ref()?.protocol_version.as_deref()
    }
}

/// What a message comes to.
pub(crate) enum Received {
    /// Run a request; its answer comes when it is done.
    Run(Running),
    /// Answer at once.
    Refused(Refused),
    /// Nothing to answer (a notification, or a response from the client).
    Accepted,
}

/// A request on its way.
#[cfg_attr(not(feature = "http"), allow(dead_code))] // a stream transport needs only the answer
pub(crate) struct Running {
    /// Cancelled when the client cancels it (by id, or by closing the request's stream).
    pub(crate) cancellation: CancellationToken,
    /// Its answer; `None` when it was cancelled, and then nothing is sent.
    pub(crate) answer: BoxFuture<'static, Option<Answered>>,
}

/// A request's answer.
#[derive(Debug)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Answered {
    pub(crate) encoded: Encoded,
    /// What it means to a transport with statuses, by the rules of the request's era.
    pub(crate) status: Status,
    /// The session its `initialize` opened, by the name the client will use.
    pub(crate) opened: Option<Arc<str>>,
}

/// A message answered at once with an error.
#[derive(Debug)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Refused {
    pub(crate) status: Status,
    /// One JSON-RPC error response.
    pub(crate) bytes: Vec<u8>,
}

impl StreamConnection {
    /// The connection of one byte stream serving `server`: what belongs to no request goes to
    /// `sink`, and `shutdown` ends listen streams.
    pub(crate) fn stream(server: &Server, sink: Notifier, shutdown: CancellationToken) -> Self {
        Connection::new(server, sessions::OwnSession::default(), Some(sink), shutdown)
    }
}

impl<S: Sessions> Connection<S> {
    /// A connection of `server` whose sessions live in `sessions`.
    fn new(server: &Server, sessions: S, sink: Option<Notifier>, shutdown: CancellationToken) -> Self {
        Connection {
            server: server.clone(),
            sessions: Arc::new(sessions),
            in_flight: InFlight::default(),
            sink,
            shutdown,
        }
    }

    /// Where the sessions live.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn sessions(&self) -> &S {
        &self.sessions
    }

    /// Takes one message.
    pub(crate) fn receive(&self, bytes: &[u8], arrival: Arrival<'_>) -> Received {
        // A message that names its session belongs to it, or to nothing.
        let named = match arrival.session.filter(|_| S::NAMED) {
            None => None,
            Some(name) => match self.named(name, &arrival) {
                Ok(session) => Some(session),
                Err(refused) => return Received::Refused(refused),
            },
        };
        match jsonrpc::decode(bytes) {
            Incoming::Request(request) => self.request(request, named, arrival),
            Incoming::Notification(notification) => {
                // Whatever it carries, a notification is never answered.
                let params = notification.params.as_deref();
                let method = Method::from_name(&notification.method);
                if method == Some(Method::NotificationsCancelled) && !S::NAMED {
                    self.in_flight.cancel_notified(params);
                } else if let Some(session) = named.or_else(|| self.own_session(&arrival)) {
                    session.notification(&notification.method, params);
                } else {
                    tracing::debug!(method = %notification.method, "notification ignored");
                }
                Received::Accepted
            }
            Incoming::Response if S::NAMED && named.is_none() => {
                let error = Error::invalid_request("Clients do not send responses in protocol 2026-07-28");
                refuse(Status::Invalid, None, &error)
            }
            Incoming::Response => {
                // Only a legacy session asks the client anything; anything else is dropped
                // rather than answered, so two peers never bounce errors at each other.
                if !named.or_else(|| self.own_session(&arrival)).is_some_and(|session| session.answer(bytes)) {
                    tracing::debug!("a response that answers nothing this server asked was ignored");
                }
                Received::Accepted
            }
            Incoming::Invalid { id, error } => refuse(Status::Invalid, id.as_ref(), &error),
        }
    }

    /// The session a message names, checked against what else the message says.
    fn named(&self, name: &str, arrival: &Arrival<'_>) -> Result<Arc<Session>, Refused> {
        let Some(session) = self.sessions.find(Some(name), &arrival.principal) else {
            return Err(session_not_found());
        };
        // The version header, when sent, is the one the handshake settled on.
        if let Some(version) = arrival.version()
            && session.version().is_some_and(|negotiated| negotiated != version)
        {
            let error = Error::invalid_request(format!(
                "MCP-Protocol-Version {version:?} is not this session's; it negotiated {} (sessions speak {})",
                session.version().unwrap_or_default(),
                LEGACY_PROTOCOL_VERSIONS.join(", ")
            ));
            return Err(refused(Status::Invalid, None, &error));
        }
        Ok(session)
    }

    /// The connection's own session (stdio), when it has one.
    fn own_session(&self, arrival: &Arrival<'_>) -> Option<Arc<Session>> {
        if S::NAMED { None } else { self.sessions.find(None, &arrival.principal) }
    }

    fn request(&self, request: Request, named: Option<Arc<Session>>, arrival: Arrival<'_>) -> Received {
        // Whether the request carries the 2026-07-28 envelope is read only where a session
        // could serve it: most requests arrive where none exists, and are never scanned twice.
        let modern = || is_modern(request.params.as_deref());
        if let Some(session) = named {
            if modern() {
                let error = Error::invalid_request(
                    "A request with the 2026-07-28 _meta is stateless: send it without Mcp-Session-Id",
                );
                return refuse(Status::Invalid, Some(&request.id), &error);
            }
            return self.in_session(session, request, arrival, false);
        }
        if let Some(session) = self.own_session(&arrival)
            && !modern()
        {
            return self.in_session(session, request, arrival, false);
        }
        let opens = Method::from_name(&request.method) == Some(Method::Initialize)
            && self.server.inner.legacy_sessions
            && !is_modern_header(arrival.version())
            && !modern();
        if opens {
            let session = Session::new(&self.server, arrival.principal.clone(), self.sink.clone());
            // A connection that carries one session keeps it from the start; named sessions
            // exist only once their handshake succeeded.
            if !S::NAMED {
                self.sessions.keep(session.clone());
            }
            return self.in_session(session, request, arrival, S::NAMED);
        }
        self.stateless(request, arrival)
    }

    /// Registers `id` in flight in `scope`, or refuses a second request with it.
    fn enter(scope: &InFlight, id: &RequestId) -> Result<Entered, Received> {
        scope.enter(id).ok_or_else(|| {
            let error = Error::invalid_request("Request id is already in use by a request in flight");
            // A session's error travels as its answer; a stream's is one line like any other.
            refuse(Status::Ok, Some(id), &error)
        })
    }

    fn in_session(&self, session: Arc<Session>, request: Request, arrival: Arrival<'_>, keep: bool) -> Received {
        let scope = if S::NAMED { &session.in_flight } else { &self.in_flight };
        let entered = match Self::enter(scope, &request.id) {
            Ok(entered) => entered,
            Err(received) => return received,
        };
        let cancellation = entered.token.clone();
        let stream =
            Stream { cancellation: cancellation.clone(), notifier: arrival.notifier, shutdown: self.shutdown.clone() };
        let origin = Origin {
            transport: arrival.transport,
            session: arrival.session.map(Arc::from),
            version: None,
            trace: arrival.trace,
        };
        let request = session.request(request, stream, origin);
        let work = self.answer(request, Era::Legacy);
        let keeper = keep.then(|| (self.sessions.clone(), session));
        let answer = until_cancelled(entered, work, move |encoded| {
            let opened = match keeper {
                Some((sessions, session)) if encoded.error.is_none() => sessions.keep(session),
                _ => None,
            };
            Answered { status: Status::of(Era::Legacy, encoded.error), encoded, opened }
        });
        Received::Run(Running { cancellation, answer })
    }

    fn stateless(&self, request: Request, arrival: Arrival<'_>) -> Received {
        // Over HTTP a closed stream cancels a request; a stream connection cancels by id.
        let entered = if S::NAMED {
            None
        } else {
            match Self::enter(&self.in_flight, &request.id) {
                Ok(entered) => Some(entered),
                Err(received) => return received,
            }
        };
        let cancellation = entered.as_ref().map(|e| e.token.clone()).unwrap_or_default();
        let stream =
            Stream { cancellation: cancellation.clone(), notifier: arrival.notifier, shutdown: self.shutdown.clone() };
        let origin = Origin { transport: arrival.transport, session: None, version: None, trace: arrival.trace };
        let request = McpRequest::checked(request, arrival.principal, arrival.headers, origin, stream);
        let work = self.answer(request, Era::Current);
        let answer = until_cancelled(entered, work, |encoded| Answered {
            status: Status::of(Era::Current, encoded.error),
            encoded,
            opened: None,
        });
        Received::Run(Running { cancellation, answer })
    }

    /// `request`'s answer from the server, encoded for a client of `era`.
    fn answer(&self, request: McpRequest, era: Era) -> Encoding<impl Future<Output = McpResponse> + Send + 'static> {
        Encoding { answering: self.server.call(request), server: Some(self.server.clone()), era }
    }
}

pin_project_lite::pin_project! {
    /// A request's answer on its way, encoded for its era once it comes (a future of its own,
    /// not an async block, which would hold what it awaits twice).
    struct Encoding<F> {
        #[pin]
        answering: F,
        server: Option<Server>,
        era: Era,
    }
}

impl<F: Future<Output = McpResponse>> Future for Encoding<F> {
    type Output = Encoded;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Encoded> {
        let this = self.project();
        let response = std::task::ready!(this.answering.poll(cx));
        let server = this.server.take().expect("an answer is encoded once");
        Poll::Ready(server.encode(response, *this.era))
    }
}

impl<S: Sessions> Drop for Connection<S> {
    fn drop(&mut self) {
        // A session holds senders of the transport's streams: let them go, so they can end.
        self.sessions.close_all();
    }
}

/// `work`'s answer, unless the request is cancelled first (then nothing is sent); the request
/// stays in flight until then.
fn until_cancelled<F>(
    entered: impl Into<Option<Entered>>,
    work: F,
    answered: impl FnOnce(Encoded) -> Answered + Send + 'static,
) -> BoxFuture<'static, Option<Answered>>
where
    F: Future<Output = Encoded> + Send + 'static,
{
    let entered = entered.into();
    let token = entered.as_ref().map(|e| e.token.clone());
    Box::pin(async move {
        let mut work = std::pin::pin!(work);
        // Most requests finish at the first poll: no need to watch the token for those.
        let first = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await;
        let encoded = match (first, &token) {
            (Poll::Ready(encoded), _) => Some(encoded),
            (Poll::Pending, None) => Some(work.await),
            (Poll::Pending, Some(token)) => tokio::select! {
                biased;
                () = token.cancelled() => None,
                encoded = work => Some(encoded),
            },
        };
        // A request cancelled while it was finishing (a listen stream that saw the
        // cancellation first and ended with an error) is not answered either.
        let encoded = encoded.filter(|_| !token.as_ref().is_some_and(CancellationToken::is_cancelled));
        drop(entered);
        if encoded.is_none() {
            tracing::debug!("request cancelled; no response sent");
        }
        encoded.map(answered)
    })
}

/// The answer to a message naming a session that does not exist, or no longer: the 2025
/// transport's signal to start over with a new `initialize`.
fn session_not_found() -> Refused {
    let error = Error::invalid_request("Session not found: it ended or never existed; initialize again");
    refused(Status::NotFound, None, &error)
}

fn refused(status: Status, id: Option<&RequestId>, error: &Error) -> Refused {
    Refused { status, bytes: encode_error(id, error) }
}

fn refuse(status: Status, id: Option<&RequestId>, error: &Error) -> Received {
    Received::Refused(refused(status, id, error))
}
