//! Finding who issues tokens for a server: its protected resource metadata (RFC 9728), then
//! its authorization server's metadata (RFC 8414, or OpenID Connect discovery), each at every
//! place the revision says to look, in order. Issuers and resources are kept as the strings
//! the documents give: a parser that adds a `/` would make them different strings.

use reqwest::Url;
use serde::Deserialize;

use super::LoginError;
use super::challenge::Challenge;

/// The protected resource metadata a server publishes.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ResourceMetadata {
    /// The resource, as the server names itself: sent as `resource` unchanged.
    pub(crate) resource: String,
    /// Its authorization servers (the first is used).
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    /// The scopes it understands.
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// An authorization server's metadata.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: String,
    #[serde(default)]
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
}

/// The resource metadata of the server at `server` (its MCP endpoint): the challenge's
/// `resource_metadata` first, then the well-known path for the endpoint's path, then the root.
pub(crate) async fn resource_metadata(
    http: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
) -> Result<ResourceMetadata, LoginError> {
    let mut candidates = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        candidates.push(url.clone());
    }
    let origin = server.origin().ascii_serialization();
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        candidates.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
    }
    candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    for candidate in &candidates {
        if let Some(found) = fetch::<ResourceMetadata>(http, candidate).await? {
            check_resource(&found.resource, server)?;
            return Ok(found);
        }
    }
    Err(LoginError::Discovery(format!("no protected resource metadata for {server} (tried {})", candidates.join(", "))))
}

/// A resource the server may claim: same origin as the endpoint, and a prefix of its path.
fn check_resource(resource: &str, server: &Url) -> Result<(), LoginError> {
    let refused =
        || LoginError::Discovery(format!("the metadata names resource {resource:?}, not this server ({server})"));
    let claimed = Url::parse(resource).map_err(|_| refused())?;
    if claimed.origin() != server.origin() || claimed.fragment().is_some() {
        return Err(refused());
    }
    let prefix = claimed.path().trim_end_matches('/');
    let path = server.path();
    let within = path == prefix || path.starts_with(&format!("{prefix}/")) || prefix.is_empty();
    if within { Ok(()) } else { Err(refused()) }
}

/// The metadata of the authorization server `issuer`, whose `issuer` must be exactly that.
pub(crate) async fn server_metadata(http: &reqwest::Client, issuer: &str) -> Result<ServerMetadata, LoginError> {
    let url = Url::parse(issuer).map_err(|e| LoginError::Discovery(format!("issuer {issuer:?} is not a URL: {e}")))?;
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    for candidate in &candidates {
        if let Some(found) = fetch::<ServerMetadata>(http, candidate).await? {
            // RFC 8414 §3.3: a document for another issuer is refused, whoever serves it.
            if found.issuer != issuer {
                return Err(LoginError::Discovery(format!(
                    "the metadata at {candidate} is for issuer {:?}, not {issuer:?}",
                    found.issuer
                )));
            }
            return Ok(found);
        }
    }
    Err(LoginError::Discovery(format!(
        "no authorization server metadata for {issuer} (tried {})",
        candidates.join(", ")
    )))
}

/// A JSON document at `url`; `None` when the server says it has none there (a 4xx), an error
/// when it cannot answer (5xx, unreachable) or answers something else.
async fn fetch<T: serde::de::DeserializeOwned>(http: &reqwest::Client, url: &str) -> Result<Option<T>, LoginError> {
    let response = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| LoginError::Discovery(format!("cannot fetch {url}: {e}")))?;
    let status = response.status();
    if status.is_client_error() || status.is_redirection() {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(LoginError::Discovery(format!("{url} answered HTTP {status}")));
    }
    let body = response.bytes().await.map_err(|e| LoginError::Discovery(format!("cannot read {url}: {e}")))?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| LoginError::Discovery(format!("{url} is not the metadata it should be: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_must_be_this_server_or_above_it() {
        let server = Url::parse("http://localhost:8/mcp").unwrap();
        for ok in ["http://localhost:8/mcp", "http://localhost:8", "http://localhost:8/"] {
            assert!(check_resource(ok, &server).is_ok(), "{ok}");
        }
        for bad in [
            "https://evil.example.com/mcp",
            "http://localhost:8/other",
            "http://localhost:8/mc",
            "http://localhost:9/mcp",
        ] {
            assert!(check_resource(bad, &server).is_err(), "{bad}");
        }
    }
}
