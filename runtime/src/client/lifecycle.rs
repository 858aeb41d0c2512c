//! How a client settles on a protocol with its server: `server/discover` (2026-07-28), the
//! `initialize` handshake (2025-11-25), or discover first and the handshake on any answer that
//! is not a modern one.

use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::error::ClientError;
use super::link::{Link, Sending};
use super::message::{Protocol, Stamp};
use super::transport::EventQueue;
use super::transport::{Outbound, OutboundKind, TransportError};
use crate::error::ErrorCode;
use crate::jsonrpc;
use crate::method::Method;
use crate::model::{
    ClientCapabilities, DiscoverResult, EmptyParams, Implementation, InitializeRequestParams, InitializeResult,
};
use crate::version::{LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS};

/// How a client opens its conversation with a server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lifecycle {
    /// `server/discover` first; the 2025-11-25 handshake on any answer that is not a modern
    /// one: -32601 or another error than the modern ones, an HTTP 4xx without a modern
    /// JSON-RPC error, a body that is not JSON-RPC, a closed pipe or an exited process
    /// (started again for the handshake), or no answer within the probe timeout. A modern
    /// error (-32020, -32021, -32022) means a modern server: the client corrects the request
    /// and retries, and never falls back on one.
    #[default]
    Auto,
    /// 2026-07-28 only: `server/discover`, then every request with its own `_meta`.
    Discover,
    /// 2025-11-25 only: the `initialize` handshake and its session.
    Legacy,
    /// 2026-07-28 without `server/discover`: the first request goes out straight away (a
    /// -32022 is answered by one retry, as for any request). One round trip fewer, and
    /// nothing known of the server until it answers.
    Direct,
}

/// What the server said when the client connected.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ServerHello {
    /// A modern server's `server/discover` result.
    Discovered(DiscoverResult),
    /// A 2025-11-25 server's `initialize` result.
    Initialized(InitializeResult),
    /// Nothing: the client did not ask ([`Lifecycle::Direct`]).
    Unasked,
}

/// What the builder says about the conversation.
#[derive(Clone, Debug)]
pub(crate) struct Opening {
    pub(crate) lifecycle: Lifecycle,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) info: Implementation,
    pub(crate) probe_timeout: Duration,
    pub(crate) request_timeout: Option<Duration>,
    /// The version to offer first (the newest the client speaks, unless set).
    pub(crate) version: Option<String>,
}

/// The settled conversation.
pub(crate) struct Settled {
    pub(crate) stamp: Stamp,
    pub(crate) hello: ServerHello,
    pub(crate) events: EventQueue,
}

/// Why a probe did not settle on a modern server.
enum Probe {
    /// Not a modern answer (`why`): try the handshake.
    Legacy { reopen: bool, why: String },
    /// The server lists only versions of the handshake.
    OnlyLegacy,
    /// A failure that no handshake would cure.
    Fatal(ClientError),
}

#[derive(Deserialize)]
struct Unsupported {
    #[serde(default)]
    supported: Vec<String>,
}

impl Opening {
    fn stamp(&self, protocol: Protocol) -> Stamp {
        Stamp::new(protocol, &self.capabilities, &self.info)
    }

    /// Settles on a protocol over `link`, as the lifecycle says.
    pub(crate) async fn settle(&self, link: &mut Link, mut events: EventQueue) -> Result<Settled, ClientError> {
        let legacy_version = match &self.version {
            Some(v) if LEGACY_PROTOCOL_VERSIONS.contains(&v.as_str()) => v.clone(),
            _ => LEGACY_PROTOCOL_VERSIONS[0].to_owned(),
        };
        if self.lifecycle == Lifecycle::Legacy {
            let (stamp, initialized) = self.handshake(link, &legacy_version).await?;
            return Ok(Settled { stamp, hello: ServerHello::Initialized(initialized), events });
        }
        let first = match &self.version {
            Some(v) if SUPPORTED_PROTOCOL_VERSIONS.contains(&v.as_str()) => v.clone(),
            // Sent as given: a client may mean to see what a server says to another version.
            Some(v) if self.lifecycle == Lifecycle::Direct => v.clone(),
            _ => LATEST_PROTOCOL_VERSION.to_owned(),
        };
        if self.lifecycle == Lifecycle::Direct {
            let stamp = self.stamp(Protocol::Modern(first));
            return Ok(Settled { stamp, hello: ServerHello::Unasked, events });
        }
        let probe_timeout = match self.lifecycle {
            Lifecycle::Auto => Some(self.probe_timeout),
            _ => self.request_timeout,
        };
        let probed = self.probe(link, &first, probe_timeout).await;
        let reopen = match probed {
            Ok((stamp, discovered)) => {
                return Ok(Settled { stamp, hello: ServerHello::Discovered(discovered), events });
            }
            Err(Probe::Fatal(error)) => return Err(error),
            Err(Probe::OnlyLegacy) => false,
            Err(Probe::Legacy { why, .. }) if self.lifecycle == Lifecycle::Discover => {
                return Err(ClientError::Version(format!(
                    "the server does not answer server/discover as a 2026-07-28 server does ({why})"
                )));
            }
            Err(Probe::Legacy { reopen, .. }) => reopen,
        };
        if reopen {
            events = link.reopen().await.map_err(|e| ClientError::from_transport("connect", e))?;
        }
        match self.handshake(link, &legacy_version).await {
            Ok((stamp, initialized)) => Ok(Settled { stamp, hello: ServerHello::Initialized(initialized), events }),
            // A modern server after all: one slow to answer the probe (which it then answered,
            // making the connection a modern one) refuses the handshake with a modern error.
            // Ask it again, and wait for the answer this time.
            Err(error) if is_modern(&error) => match self.probe(link, &first, self.request_timeout).await {
                Ok((stamp, discovered)) => Ok(Settled { stamp, hello: ServerHello::Discovered(discovered), events }),
                Err(_) => Err(error),
            },
            Err(error) => Err(error),
        }
    }

    /// `server/discover` at `version`, and once more at a version the server lists on -32022.
    async fn probe(
        &self,
        link: &Link,
        version: &str,
        timeout: Option<Duration>,
    ) -> Result<(Stamp, DiscoverResult), Probe> {
        let mut stamp = self.stamp(Protocol::Modern(version.to_owned()));
        let mut retried = false;
        loop {
            match self.discover(link, &stamp, timeout).await {
                Ok(raw) => {
                    return match serde_json::from_str::<DiscoverResult>(raw.get()) {
                        Ok(result) => Ok((stamp, result)),
                        Err(e) if self.lifecycle == Lifecycle::Auto => {
                            tracing::debug!(error = %e, "server/discover answered something else: trying the handshake");
                            Err(Probe::Legacy { reopen: false, why: format!("its answer does not read: {e}") })
                        }
                        Err(e) => {
                            Err(Probe::Fatal(ClientError::unexpected(Method::ServerDiscover.name(), e.to_string())))
                        }
                    };
                }
                Err(error) if error.is(ErrorCode::UnsupportedProtocolVersion) => {
                    let supported = error
                        .error_object()
                        .and_then(|e| e.data.as_ref())
                        .and_then(|data| Unsupported::deserialize(data).ok())
                        .map(|u| u.supported)
                        .unwrap_or_default();
                    let next = supported.iter().find(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v.as_str()));
                    // Once, even at the same version: the server may have refused the request
                    // for something else that changed (it says only which versions it speaks).
                    match next {
                        Some(next) if !retried => {
                            stamp = self.stamp(Protocol::Modern(next.clone()));
                            retried = true;
                        }
                        _ if supported.iter().any(|v| LEGACY_PROTOCOL_VERSIONS.contains(&v.as_str())) => {
                            return Err(Probe::OnlyLegacy);
                        }
                        _ => {
                            return Err(Probe::Fatal(ClientError::Version(format!(
                                "the server speaks {supported:?}; this client speaks {SUPPORTED_PROTOCOL_VERSIONS:?} and \
                                 {LEGACY_PROTOCOL_VERSIONS:?}"
                            ))));
                        }
                    }
                }
                Err(error) if is_modern(&error) => return Err(Probe::Fatal(error)),
                Err(error) => return Err(not_modern(error)),
            }
        }
    }

    async fn discover(
        &self,
        link: &Link,
        stamp: &Stamp,
        timeout: Option<Duration>,
    ) -> Result<Box<RawValue>, ClientError> {
        let method = Method::ServerDiscover.name();
        let id = link.next_id();
        let body = stamp.request(&id, method, &EmptyParams::default(), None).expect("discover params serialize");
        let mut outbound = Outbound::new(body, OutboundKind::Request(id.clone()));
        outbound.headers = stamp.headers(method, None, Vec::new());
        let sending = Sending { method: method.into(), outbound, timeout, always_notify: false, open_ended: false };
        link.request(id, sending).await
    }

    /// `initialize` offering `version`, then `notifications/initialized`.
    async fn handshake(&self, link: &Link, version: &str) -> Result<(Stamp, InitializeResult), ClientError> {
        let method = Method::Initialize.name();
        let stamp = self.stamp(Protocol::Legacy(version.to_owned()));
        let params = InitializeRequestParams::new(version, self.capabilities.clone(), self.info.clone());
        let id = link.next_id();
        let body = stamp.request(&id, method, &params, None).expect("initialize params serialize");
        let mut outbound = Outbound::new(body, OutboundKind::Request(id.clone()));
        outbound.headers = stamp.headers(method, None, Vec::new());
        let sending = Sending {
            method: method.into(),
            outbound,
            timeout: self.request_timeout,
            always_notify: true,
            open_ended: false,
        };
        let raw = link.request(id, sending).await?;
        let result: InitializeResult =
            serde_json::from_str(raw.get()).map_err(|e| ClientError::unexpected(method, e.to_string()))?;
        if !LEGACY_PROTOCOL_VERSIONS.contains(&result.protocol_version.as_str()) {
            return Err(ClientError::Version(format!(
                "the server settled the handshake on {:?}; this client speaks {LEGACY_PROTOCOL_VERSIONS:?}",
                result.protocol_version
            )));
        }
        let stamp = self.stamp(Protocol::Legacy(result.protocol_version.clone()));
        let initialized = jsonrpc::encode_notification(Method::NotificationsInitialized, &EmptyParams::default());
        let mut outbound = Outbound::new(initialized, OutboundKind::Notification);
        outbound.headers = stamp.headers(Method::NotificationsInitialized.name(), None, Vec::new());
        link.transport.send(outbound).await.map_err(|e| ClientError::from_transport(method, e))?;
        Ok((stamp, result))
    }
}

/// An error only a 2026-07-28 server sends.
fn is_modern(error: &ClientError) -> bool {
    [ErrorCode::HeaderMismatch, ErrorCode::MissingRequiredClientCapability, ErrorCode::UnsupportedProtocolVersion]
        .into_iter()
        .any(|code| error.is(code))
}

/// What a probe's failure says: a legacy server (try the handshake, starting over when the
/// connection is gone), or a failure the handshake would meet too.
fn not_modern(error: ClientError) -> Probe {
    let why = error.to_string();
    match &error {
        ClientError::Protocol { .. } | ClientError::Timeout { .. } => Probe::Legacy { reopen: false, why },
        ClientError::Transport { source, .. } => match source {
            TransportError::Closed(_) => Probe::Legacy { reopen: true, why },
            TransportError::Malformed(_) => Probe::Legacy { reopen: false, why },
            TransportError::Status { status, .. } | TransportError::Rejected { status, .. }
                if (400..500).contains(status) =>
            {
                Probe::Legacy { reopen: false, why }
            }
            _ => Probe::Fatal(error),
        },
        _ => Probe::Fatal(error),
    }
}
