//! Finding who issues tokens for a server: its protected resource metadata (RFC 9728), then
//! its authorization server's metadata (RFC 8414, or OpenID Connect discovery), each at every
//! place the revision says to look, in order. Issuers and resources are kept as the strings
//! the documents give: a parser that adds a `/` would make them different strings. Every URL
//! a document names is checked before the client goes there.

use reqwest::Url;
use serde::Deserialize;

use super::LoginError;
use super::challenge::Challenge;
use super::requests;
use crate::client::address::UrlPolicy;

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
/// `resource_metadata` first (where `policy` lets the client go), then the well-known path for
/// the endpoint's path, then the root.
pub(crate) async fn resource_metadata(
    http: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
    policy: &UrlPolicy,
) -> Result<ResourceMetadata, LoginError> {
    let mut candidates = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        // On the server's own origin it is no further than the server itself, whose scheme
        // the application chose; anywhere else, the server is naming a place to go.
        let own = Url::parse(url).is_ok_and(|parsed| parsed.origin() == server.origin());
        if !own {
            let what = "the resource metadata the server points to";
            let checked = policy.check(url, what).map_err(LoginError::Refused)?;
            policy.check_resolved(&checked, what).await.map_err(LoginError::Refused)?;
        }
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
pub(crate) fn check_resource(resource: &str, server: &Url) -> Result<(), LoginError> {
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

/// The metadata of the authorization server `issuer`, whose `issuer` must be exactly that and
/// whose endpoints must be URLs the client may go to from there: https, or http on this
/// machine, and off this machine nothing on it or on a private network.
pub(crate) async fn server_metadata(
    http: &reqwest::Client,
    issuer: &str,
    allow_private: bool,
) -> Result<ServerMetadata, LoginError> {
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
            check_endpoints(&found, &url, allow_private)?;
            // A name may stand for an address the URL alone does not show.
            let policy = UrlPolicy::for_server(&url, allow_private);
            for endpoint in [
                Some(&found.token_endpoint),
                found.authorization_endpoint.as_ref(),
                found.registration_endpoint.as_ref(),
            ]
            .into_iter()
            .flatten()
            {
                if let Ok(endpoint) = Url::parse(endpoint) {
                    let what = format!("{issuer} names an endpoint");
                    policy.check_resolved(&endpoint, &what).await.map_err(LoginError::Refused)?;
                }
            }
            return Ok(found);
        }
    }
    Err(LoginError::Discovery(format!(
        "no authorization server metadata for {issuer} (tried {})",
        candidates.join(", ")
    )))
}

/// The endpoints an authorization server names, each where the client may go from the
/// issuer's own address (or anywhere private, where the application allows it).
pub(crate) fn check_endpoints(metadata: &ServerMetadata, issuer: &Url, allow_private: bool) -> Result<(), LoginError> {
    let policy = UrlPolicy::for_server(issuer, allow_private);
    let endpoints = [
        ("its token endpoint", Some(&metadata.token_endpoint)),
        ("its authorization endpoint", metadata.authorization_endpoint.as_ref()),
        ("its registration endpoint", metadata.registration_endpoint.as_ref()),
    ];
    for (what, endpoint) in endpoints {
        if let Some(endpoint) = endpoint {
            policy.check(endpoint, &format!("{} names {what}", metadata.issuer)).map_err(LoginError::Refused)?;
        }
    }
    Ok(())
}

/// A JSON document at `url`; `None` when the server says it has none there (a 4xx, or a
/// redirect, which is not followed), an error when it cannot answer (5xx, unreachable, too
/// slow) or answers something else.
async fn fetch<T: serde::de::DeserializeOwned>(http: &reqwest::Client, url: &str) -> Result<Option<T>, LoginError> {
    let parsed = Url::parse(url).map_err(|e| LoginError::Discovery(format!("{url:?} is not a URL: {e}")))?;
    let request = http.get(parsed.clone()).header(reqwest::header::ACCEPT, "application/json");
    let answer = requests::send(request, &parsed).await.map_err(LoginError::Discovery)?;
    let status = answer.status;
    if status.is_client_error() || status.is_redirection() {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(LoginError::Discovery(format!("{url} answered HTTP {status}")));
    }
    serde_json::from_slice(&answer.body)
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
