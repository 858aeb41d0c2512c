//! The login's readers, for the fuzz targets: a challenge, and the metadata documents with the
//! checks the client makes of them before it goes anywhere they point.

use reqwest::Url;

use super::challenge::Challenge;
use super::discovery::{ResourceMetadata, ServerMetadata, check_endpoints, check_resource};
use crate::client::address::UrlPolicy;

/// A challenge's `resource_metadata`, `scope` and `error`.
pub(crate) fn challenge<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<[Option<String>; 3]> {
    Challenge::read(values).map(|c| [c.resource_metadata, c.scope, c.error])
}

/// Whether `body` reads as the resource metadata of the server at `server`, and where its
/// first authorization server is if the client would go there.
pub fn resource_metadata(body: &[u8], server: &str) -> Result<Option<String>, String> {
    let server = Url::parse(server).map_err(|e| e.to_string())?;
    let metadata: ResourceMetadata = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    check_resource(&metadata.resource, &server).map_err(|e| e.to_string())?;
    let policy = UrlPolicy::for_server(&server, false);
    Ok(metadata.authorization_servers.first().and_then(|issuer| policy.check(issuer, "issuer").ok()).map(String::from))
}

/// Whether `body` reads as the metadata of the authorization server `issuer`, its endpoints
/// places the client may go.
pub fn server_metadata(body: &[u8], issuer: &str) -> Result<(), String> {
    let url = Url::parse(issuer).map_err(|e| e.to_string())?;
    let metadata: ServerMetadata = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    if metadata.issuer != issuer {
        return Err("another issuer".into());
    }
    check_endpoints(&metadata, &url, false).map_err(|e| e.to_string())
}
