//! The parameters of a client request: the method's own fields plus the `_meta` envelope.

use serde::{Deserialize, Serialize};

use super::RequestMeta;

/// `params` of any request of this revision: `_meta` (required) and the method's fields.
///
/// ```
/// use mcp_rounds::model::{CallToolRequestParams, ClientCapabilities, RequestMeta, RequestParams};
///
/// let params = RequestParams::new(
///     RequestMeta::new("2026-07-28", ClientCapabilities::default()),
///     CallToolRequestParams::new("get_weather", Default::default()),
/// );
/// let json = serde_json::to_value(&params).unwrap();
/// assert_eq!(json["name"], "get_weather");
/// assert_eq!(json["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestParams<P> {
    /// The envelope.
    #[serde(rename = "_meta")]
    pub meta: RequestMeta,
    /// The method's own parameters.
    #[serde(flatten)]
    pub params: P,
}

impl<P> RequestParams<P> {
    /// Pairs an envelope with a method's parameters.
    pub fn new(meta: RequestMeta, params: P) -> Self {
        RequestParams { meta, params }
    }
}

/// The parameters of methods that take nothing but `_meta`, such as `server/discover`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmptyParams {}
