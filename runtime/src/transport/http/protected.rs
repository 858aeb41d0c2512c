//! An endpoint as an OAuth protected resource: its metadata document (RFC 9728) and the
//! `WWW-Authenticate` challenges of its refusals (RFC 6750, the MCP authorization spec), all
//! rendered once when the endpoint is made.

use axum::body::Bytes;
use axum::http::{HeaderValue, Uri};
use serde_json::json;

use super::auth::{ProtectedResource, Unauthorized};

/// Where a resource's metadata lives: the well-known prefix before the resource's path.
pub(super) const METADATA_PREFIX: &str = "/.well-known/oauth-protected-resource";

/// The challenges an endpoint answers refusals with, and its metadata when it has any.
#[derive(Debug)]
pub(super) struct Challenges {
    oauth: Option<OAuthEndpoint>,
}

#[derive(Debug)]
struct OAuthEndpoint {
    /// The resource, as tokens must name it.
    resource: String,
    /// The metadata document's URL, as challenges name it.
    metadata_url: String,
    /// The metadata document.
    document: Bytes,
    /// What a `401` asks for, space-separated; empty: nothing in particular.
    challenge_scope: String,
}

impl Challenges {
    /// The challenges of an endpoint at `path` whose public URL is `public_url` (when known),
    /// protected as `protected` says (when it is). Fails when the endpoint is a protected
    /// resource whose identifier is not known.
    pub(super) fn new(
        protected: Option<ProtectedResource>,
        public_url: Option<&str>,
        path: &str,
    ) -> Result<Self, String> {
        let Some(protected) = protected else { return Ok(Challenges { oauth: None }) };
        let resource = protected.resource.clone().or_else(|| public_url.map(str::to_owned)).ok_or_else(|| {
            format!(
                "the OAuth-protected endpoint at {path} does not know its own URL, which access tokens must be for: \
                 set the audience, or call Http::public_url"
            )
        })?;
        let uri: Uri = resource.parse().map_err(|_| format!("the resource {resource:?} is not a URL"))?;
        let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
            return Err(format!("the resource {resource:?} is not an absolute http(s) URL"));
        };
        let metadata_url = format!("{scheme}://{authority}{METADATA_PREFIX}{}", uri.path().trim_end_matches('/'));
        let mut document = json!({
            "resource": resource,
            "authorization_servers": protected.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !protected.scopes_supported.is_empty() {
            document["scopes_supported"] = json!(protected.scopes_supported);
        }
        let challenge_scope = protected.challenge_scopes.as_ref().unwrap_or(&protected.scopes_supported).join(" ");
        let document = Bytes::from(serde_json::to_vec(&document).unwrap_or_default());
        Ok(Challenges { oauth: Some(OAuthEndpoint { resource, metadata_url, document, challenge_scope }) })
    }

    /// The resource tokens must be for, when the endpoint is a protected resource.
    pub(super) fn resource(&self) -> Option<&str> {
        self.oauth.as_ref().map(|oauth| oauth.resource.as_str())
    }

    /// The paths the metadata is served at: the well-known prefix alone, and followed by the
    /// endpoint's path (as seen here and as the resource's URL has it, behind a proxy).
    pub(super) fn metadata_paths(&self, path: &str) -> Vec<String> {
        let Some(oauth) = &self.oauth else { return Vec::new() };
        let mut paths = vec![METADATA_PREFIX.to_owned(), format!("{METADATA_PREFIX}{}", path.trim_end_matches('/'))];
        if let Some(public) = oauth.metadata_url.find(METADATA_PREFIX).map(|at| &oauth.metadata_url[at..]) {
            paths.push(public.to_owned());
        }
        paths.sort();
        paths.dedup();
        paths
    }

    /// The metadata document.
    pub(super) fn document(&self) -> Option<Bytes> {
        self.oauth.as_ref().map(|oauth| oauth.document.clone())
    }

    /// The challenge of a `401`.
    pub(super) fn unauthorized(&self, refusal: &Unauthorized) -> HeaderValue {
        let mut challenge = match &self.oauth {
            Some(oauth) => {
                let mut text = format!("Bearer resource_metadata=\"{}\"", oauth.metadata_url);
                if !oauth.challenge_scope.is_empty() {
                    text.push_str(&format!(", scope=\"{}\"", oauth.challenge_scope));
                }
                text
            }
            None => "Bearer realm=\"mcp\"".to_owned(),
        };
        if let Some(error) = refusal.error {
            challenge.push_str(&format!(", error=\"{error}\""));
        }
        if let Some(description) = &refusal.description {
            challenge.push_str(&format!(", error_description=\"{}\"", quotable(description)));
        }
        header_value(challenge)
    }

    /// The challenge of a `403` for a request that needs `scope` (space-separated).
    pub(super) fn insufficient_scope(&self, scope: &str) -> HeaderValue {
        let mut challenge = format!("Bearer error=\"insufficient_scope\", scope=\"{}\"", quotable(scope));
        match &self.oauth {
            Some(oauth) => challenge.push_str(&format!(", resource_metadata=\"{}\"", oauth.metadata_url)),
            None => challenge.push_str(", realm=\"mcp\""),
        }
        header_value(challenge)
    }
}

/// `text` fit for a quoted-string: no quotes, backslashes or control characters.
fn quotable(text: &str) -> String {
    text.chars().filter(|c| *c != '"' && *c != '\\' && !c.is_control()).collect()
}

fn header_value(text: String) -> HeaderValue {
    HeaderValue::try_from(text).unwrap_or_else(|_| HeaderValue::from_static("Bearer realm=\"mcp\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected() -> ProtectedResource {
        ProtectedResource {
            authorization_servers: vec!["https://auth.example.com".into()],
            scopes_supported: vec!["notes:read".into(), "notes:write".into()],
            challenge_scopes: Some(vec!["notes:read".into()]),
            ..Default::default()
        }
    }

    #[test]
    fn the_metadata_names_the_resource_and_sits_beside_its_path() {
        let challenges = Challenges::new(Some(protected()), Some("https://notes.example.com/mcp"), "/mcp").unwrap();
        let document: serde_json::Value = serde_json::from_slice(&challenges.document().unwrap()).unwrap();
        assert_eq!(
            document,
            json!({
                "resource": "https://notes.example.com/mcp",
                "authorization_servers": ["https://auth.example.com"],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"],
            })
        );
        assert_eq!(
            challenges.metadata_paths("/mcp"),
            ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
        );
        let behind_proxy =
            Challenges::new(Some(protected()), Some("https://example.com/tools/notes/"), "/mcp").unwrap();
        assert!(behind_proxy.metadata_paths("/mcp").contains(&format!("{METADATA_PREFIX}/tools/notes")));
    }

    #[test]
    fn challenges_say_what_the_spec_says() {
        let challenges = Challenges::new(Some(protected()), Some("http://127.0.0.1:8787/mcp"), "/mcp").unwrap();
        let metadata = "http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            challenges.unauthorized(&Unauthorized::missing()),
            format!("Bearer resource_metadata=\"{metadata}\", scope=\"notes:read\"")
        );
        assert_eq!(
            challenges.unauthorized(&Unauthorized::invalid_token("The \"token\" expired")),
            format!(
                "Bearer resource_metadata=\"{metadata}\", scope=\"notes:read\", error=\"invalid_token\", \
                 error_description=\"The token expired\""
            )
        );
        assert_eq!(
            challenges.insufficient_scope("notes:write"),
            format!("Bearer error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{metadata}\"")
        );
        let plain = Challenges::new(None, None, "/mcp").unwrap();
        assert_eq!(plain.unauthorized(&Unauthorized::missing()), "Bearer realm=\"mcp\"");
    }

    #[test]
    fn a_protected_endpoint_must_know_its_url() {
        let problem = Challenges::new(Some(protected()), None, "/mcp").unwrap_err();
        assert!(problem.contains("Http::public_url"), "{problem}");
        assert!(Challenges::new(Some(protected()), Some("not a url"), "/mcp").is_err());
    }
}
