//! A request as the negotiated protocol writes it: the 2026-07-28 `_meta` envelope on every
//! request (written once per client, then copied), or a 2025-11-25 session's bare params; and
//! the standard headers for a transport that has headers.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::headers::encode_value;
use crate::jsonrpc::{JSONRPC_VERSION, RequestId};
use crate::method::Method;
use crate::model::{ClientCapabilities, Implementation, ProgressToken, RequestMeta};

/// The protocol a client speaks with its server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// A revision where every request carries its `_meta` (2026-07-28): no session.
    Modern(String),
    /// A session opened by the 2025-11-25 (or earlier) `initialize` handshake.
    Legacy(String),
}

impl Protocol {
    /// The version, e.g. `"2026-07-28"`.
    pub fn version(&self) -> &str {
        match self {
            Protocol::Modern(v) | Protocol::Legacy(v) => v,
        }
    }

    /// Whether this is a 2025-11-25 session.
    pub fn is_legacy(&self) -> bool {
        matches!(self, Protocol::Legacy(_))
    }
}

/// What a client stamps on each request for one protocol: the envelope, encoded once.
#[derive(Clone, Debug)]
pub(crate) struct Stamp {
    pub(crate) protocol: Protocol,
    meta: RequestMeta,
    /// `meta` as JSON, for requests without a progress token (all but a few).
    encoded: Box<RawValue>,
}

#[derive(Serialize)]
struct Wire<'a, P> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: WithMeta<'a, P>,
}

#[derive(Serialize)]
struct WithMeta<'a, P> {
    #[serde(flatten)]
    own: &'a P,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct Progress<'a> {
    #[serde(rename = "progressToken")]
    progress_token: &'a ProgressToken,
}

impl Stamp {
    pub(crate) fn new(protocol: Protocol, capabilities: &ClientCapabilities, info: &Implementation) -> Self {
        let meta = RequestMeta {
            client_info: Some(info.clone()),
            ..RequestMeta::new(protocol.version(), capabilities.clone())
        };
        let encoded = match protocol {
            Protocol::Modern(_) => serde_json::value::to_raw_value(&meta),
            // A session's requests carry no envelope: the handshake said it all.
            Protocol::Legacy(_) => RawValue::from_string("{}".to_owned()),
        }
        .expect("a request's _meta serializes");
        Stamp { protocol, meta, encoded }
    }

    /// The JSON-RPC request `id` calling `method` with `params`, enveloped; with
    /// `progress`, the server is asked for progress notifications under that token.
    pub(crate) fn request<P: Serialize>(
        &self,
        id: &RequestId,
        method: &str,
        params: &P,
        progress: Option<&ProgressToken>,
    ) -> Result<Vec<u8>, serde_json::Error> {
        let with_progress;
        let meta = match (progress, &self.protocol) {
            (None, Protocol::Modern(_)) => Some(&*self.encoded),
            (None, Protocol::Legacy(_)) => None,
            (Some(token), Protocol::Modern(_)) => {
                let meta = RequestMeta { progress_token: Some(token.clone()), ..self.meta.clone() };
                with_progress = serde_json::value::to_raw_value(&meta)?;
                Some(&*with_progress)
            }
            (Some(token), Protocol::Legacy(_)) => {
                with_progress = serde_json::value::to_raw_value(&Progress { progress_token: token })?;
                Some(&*with_progress)
            }
        };
        serde_json::to_vec(&Wire { jsonrpc: JSONRPC_VERSION, id, method, params: WithMeta { own: params, meta } })
    }

    /// The headers of a request calling `method` that names `subject` (a tool or prompt name, a
    /// URI, a task id), plus `extra` (a tool's `Mcp-Param-*` headers).
    pub(crate) fn headers(
        &self,
        method: &str,
        subject: Option<&str>,
        extra: Vec<(String, String)>,
    ) -> Vec<(String, String)> {
        let mut headers = extra;
        match &self.protocol {
            Protocol::Modern(version) => {
                headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
                headers.push(("Mcp-Method".to_owned(), method.to_owned()));
                if let Some(subject) = subject {
                    headers.push(("Mcp-Name".to_owned(), encode_value(subject).into_owned()));
                }
            }
            Protocol::Legacy(version) if method != Method::Initialize.name() => {
                headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
            }
            Protocol::Legacy(_) => {}
        }
        headers
    }
}
