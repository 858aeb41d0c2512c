//! Authorization server metadata (RFC 8414, and OpenID Connect Discovery as its fallback):
//! where an issuer keeps its keys and its introspection endpoint.

use serde::Deserialize;

use super::fetch::{FetchError, Fetcher};

/// The part of the metadata a resource server uses.
#[derive(Debug, Deserialize)]
pub(super) struct Metadata {
    pub(super) issuer: String,
    pub(super) jwks_uri: Option<String>,
    pub(super) introspection_endpoint: Option<String>,
}

/// The well-known URLs of `issuer`'s metadata, in the order RFC 8414 §3.1 and §5 give them.
fn candidates(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let (origin, path) = match issuer.find("://").and_then(|at| issuer[at + 3..].find('/').map(|p| at + 3 + p)) {
        Some(split) => issuer.split_at(split),
        None => (issuer, ""),
    };
    let mut urls = vec![format!("{origin}/.well-known/oauth-authorization-server{path}")];
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/openid-configuration{path}"));
    }
    urls.push(format!("{issuer}/.well-known/openid-configuration"));
    urls
}

/// `issuer`'s metadata, from the first well-known URL that has it. The document must name
/// exactly `issuer` (RFC 8414 §3.3): anything else could point at someone else's keys.
pub(super) async fn discover(fetcher: &Fetcher, issuer: &str) -> Result<Metadata, FetchError> {
    let mut problems = Vec::new();
    for url in candidates(issuer) {
        match fetcher.get_json::<Metadata>(&url).await {
            Ok(metadata) if metadata.issuer == issuer => return Ok(metadata),
            Ok(metadata) => {
                return Err(format!("{url} describes issuer {:?}, not {issuer:?}", metadata.issuer));
            }
            Err(problem) => problems.push(problem),
        }
    }
    Err(format!("no authorization server metadata for {issuer}: {}", problems.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::candidates;

    #[test]
    fn well_known_urls_follow_rfc_8414() {
        assert_eq!(
            candidates("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            candidates("https://example.com/realms/dev"),
            [
                "https://example.com/.well-known/oauth-authorization-server/realms/dev",
                "https://example.com/.well-known/openid-configuration/realms/dev",
                "https://example.com/realms/dev/.well-known/openid-configuration"
            ]
        );
    }
}
