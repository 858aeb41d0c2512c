//! What a handler knows about the request it serves: who is calling, what the client declared,
//! and whether the request is still wanted.

use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::extract::StateMap;
use crate::jsonrpc::RequestId;
use crate::model::{ClientCapabilities, RequestMeta};
use crate::rounds::RoundsConfig;

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

/// The request being served.
#[derive(Clone, Debug)]
pub struct RequestContext {
    id: RequestId,
    meta: Arc<RequestMeta>,
    principal: Principal,
    cancellation: CancellationToken,
    shared: Arc<Shared>,
}

/// What every request of a server shares: registered state and the rounds configuration.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub(crate) state: StateMap,
    pub(crate) rounds: RoundsConfig,
}

impl RequestContext {
    pub(crate) fn new(
        id: RequestId,
        meta: RequestMeta,
        principal: Principal,
        cancellation: CancellationToken,
        shared: Arc<Shared>,
    ) -> Self {
        RequestContext { id, meta: Arc::new(meta), principal, cancellation, shared }
    }

    /// A context for calling a handler directly in a unit test (no shared state).
    pub fn for_test(meta: RequestMeta, principal: Principal) -> Self {
        RequestContext::new(RequestId::number(0), meta, principal, CancellationToken::new(), Arc::default())
    }

    /// The JSON-RPC id of this request.
    pub fn request_id(&self) -> &RequestId {
        &self.id
    }

    /// The validated `_meta` of this request.
    pub fn meta(&self) -> &RequestMeta {
        &self.meta
    }

    /// What the client declared it can do, for this request only.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.meta.client_capabilities
    }

    /// Who is calling.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// Shared state of type `T`, if the server registered one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.shared.state.get::<T>()
    }

    pub(crate) fn rounds(&self) -> &RoundsConfig {
        &self.shared.rounds
    }

    /// Cancelled when the client cancels the request or goes away; long work should stop then.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }
}
