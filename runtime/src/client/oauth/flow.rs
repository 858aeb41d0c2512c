//! The grants: authorization code with PKCE (S256) through the person-facing step, refresh,
//! and client credentials; every request with the `resource` it is for (RFC 8707), and the
//! redirect checked (its `state`, and its `iss` against the metadata's issuer, RFC 9207).

use std::time::{Duration, Instant};

use base64::Engine;
use reqwest::Url;
use serde::Deserialize;
use sha2::Digest;

use super::discovery::ServerMetadata;
use super::registration::{Registered, authenticate, excerpt};
use super::{Authorizer, LoginError, requests};

/// Tokens from one issuer for one resource.
#[derive(Clone)]
pub(crate) struct Grant {
    pub(crate) issuer: String,
    pub(crate) access: String,
    pub(crate) refresh: Option<String>,
    /// When to refresh it: a little before it expires (a tenth of its life, at most 30 s).
    pub(crate) refresh_at: Option<Instant>,
    /// The scope asked for (the next step-up asks for it and more).
    pub(crate) scope: Option<String>,
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Tokens are secrets: never in a debug string.
        f.debug_struct("Grant").field("issuer", &self.issuer).field("scope", &self.scope).finish_non_exhaustive()
    }
}

impl Grant {
    /// Whether it is time to refresh it.
    pub(crate) fn expiring(&self) -> bool {
        self.refresh_at.is_some_and(|at| at <= Instant::now())
    }
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
}

#[derive(Deserialize)]
struct TokenRefusal {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

fn random(bytes: usize) -> Result<String, LoginError> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer).map_err(|e| LoginError::Authorization(format!("no randomness: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buffer))
}

/// Asks the person (through `authorizer`) to authorize `client` at `server`, and exchanges the
/// code for tokens.
#[allow(clippy::too_many_arguments)] // one call site; each is one fact of the request
pub(crate) async fn authorization_code(
    http: &reqwest::Client,
    authorizer: &dyn Authorizer,
    server: &ServerMetadata,
    client: &Registered,
    redirect_uri: &str,
    resource: &str,
    scope: Option<&str>,
) -> Result<Grant, LoginError> {
    let Some(endpoint) = &server.authorization_endpoint else {
        return Err(LoginError::Authorization(format!("{} has no authorization endpoint", server.issuer)));
    };
    // The revision: a server that does not list its PKCE methods does not support PKCE, and
    // the client must not go on without it.
    match &server.code_challenge_methods_supported {
        None => {
            return Err(LoginError::Authorization(format!(
                "{} does not say it supports PKCE (its metadata has no code_challenge_methods_supported): refused",
                server.issuer
            )));
        }
        Some(methods) if !methods.iter().any(|m| m == "S256") => {
            return Err(LoginError::Authorization(format!("{} does not support PKCE with S256", server.issuer)));
        }
        Some(_) => {}
    }
    let verifier = random(48)?;
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()));
    let state = random(24)?;
    let mut url = Url::parse(endpoint).map_err(|e| LoginError::Authorization(format!("{endpoint}: {e}")))?;
    {
        let mut query = url.query_pairs_mut();
        query.append_pair("response_type", "code");
        query.append_pair("client_id", &client.client_id);
        query.append_pair("redirect_uri", redirect_uri);
        query.append_pair("code_challenge", &challenge);
        query.append_pair("code_challenge_method", "S256");
        query.append_pair("state", &state);
        query.append_pair("resource", resource);
        if let Some(scope) = scope {
            query.append_pair("scope", scope);
            if scope.split(' ').any(|s| s == "offline_access") {
                // OpenID Connect grants offline access only with consent asked for.
                query.append_pair("prompt", "consent");
            }
        }
    }
    let redirected = authorizer.authorize(url.as_str(), redirect_uri).await?;
    let code = check_redirect(&redirected, &state, server)?;
    let form = vec![
        ("grant_type", "authorization_code".to_owned()),
        ("code", code),
        ("redirect_uri", redirect_uri.to_owned()),
        ("code_verifier", verifier),
        ("resource", resource.to_owned()),
    ];
    let mut grant = token(http, server, client, form).await?;
    grant.scope = scope.map(str::to_owned);
    Ok(grant)
}

/// The code of the redirect the authorization server sent the person to, once its `state` and
/// `iss` check out.
fn check_redirect(redirected: &str, state: &str, server: &ServerMetadata) -> Result<String, LoginError> {
    let url =
        Url::parse(redirected).map_err(|e| LoginError::Authorization(format!("the redirect is not a URL: {e}")))?;
    let value = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    if let Some(error) = value("error") {
        let description = value("error_description").map(|d| format!(": {d}")).unwrap_or_default();
        return Err(LoginError::Authorization(format!("the authorization server refused: {error}{description}")));
    }
    if value("state").as_deref() != Some(state) {
        return Err(LoginError::Authorization("the redirect's state is not the one sent: refused".into()));
    }
    match value("iss") {
        // RFC 9207: compared as strings, exactly, whether or not the server advertises it.
        Some(iss) if iss != server.issuer => {
            return Err(LoginError::Authorization(format!(
                "the redirect comes from issuer {iss:?}, not {:?}: refused",
                server.issuer
            )));
        }
        None if server.authorization_response_iss_parameter_supported => {
            return Err(LoginError::Authorization("the redirect lacks the iss its server advertises: refused".into()));
        }
        _ => {}
    }
    value("code").ok_or_else(|| LoginError::Authorization("the redirect carries no code".into()))
}

/// New tokens for `refresh`, with the same resource.
pub(crate) async fn refresh(
    http: &reqwest::Client,
    server: &ServerMetadata,
    client: &Registered,
    old: &Grant,
    refresh: &str,
    resource: &str,
) -> Result<Grant, LoginError> {
    let form = vec![
        ("grant_type", "refresh_token".to_owned()),
        ("refresh_token", refresh.to_owned()),
        ("resource", resource.to_owned()),
    ];
    let mut grant = token(http, server, client, form).await?;
    grant.scope = old.scope.clone();
    // A server that does not rotate refresh tokens keeps the one it gave.
    grant.refresh = grant.refresh.or_else(|| Some(refresh.to_owned()));
    Ok(grant)
}

/// Tokens for the client itself (a machine, no person): the client credentials grant.
pub(crate) async fn client_credentials(
    http: &reqwest::Client,
    server: &ServerMetadata,
    client: &Registered,
    resource: &str,
    scope: Option<&str>,
) -> Result<Grant, LoginError> {
    let mut form = vec![("grant_type", "client_credentials".to_owned()), ("resource", resource.to_owned())];
    if let Some(scope) = scope {
        form.push(("scope", scope.to_owned()));
    }
    let mut grant = token(http, server, client, form).await?;
    grant.scope = scope.map(str::to_owned);
    Ok(grant)
}

async fn token(
    http: &reqwest::Client,
    server: &ServerMetadata,
    client: &Registered,
    mut form: Vec<(&'static str, String)>,
) -> Result<Grant, LoginError> {
    let endpoint = &server.token_endpoint;
    let url = Url::parse(endpoint).map_err(|e| LoginError::Token(format!("{endpoint:?} is not a URL: {e}")))?;
    let request = authenticate(http.post(url.clone()), &mut form, client, &server.issuer)?
        .header(reqwest::header::ACCEPT, "application/json")
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form_body(&form));
    let answer = requests::send(request, &url).await.map_err(LoginError::Token)?;
    let (status, text) = (answer.status, answer.text());
    if !status.is_success() {
        return Err(match serde_json::from_str::<TokenRefusal>(&text) {
            Ok(refusal) if refusal.error == "invalid_grant" => LoginError::LoginAgain(format!(
                "{} no longer accepts the grant{}",
                server.issuer,
                refusal.error_description.map(|d| format!(" ({d})")).unwrap_or_default()
            )),
            Ok(refusal) => LoginError::Token(format!(
                "{endpoint} refused: {}{}",
                refusal.error,
                refusal.error_description.map(|d| format!(": {d}")).unwrap_or_default()
            )),
            Err(_) => LoginError::Token(format!("{endpoint} answered HTTP {status}: {}", excerpt(&text))),
        });
    }
    let answer: TokenAnswer =
        serde_json::from_str(&text).map_err(|e| LoginError::Token(format!("{endpoint} answered no token: {e}")))?;
    Ok(Grant {
        issuer: server.issuer.clone(),
        access: answer.access_token,
        refresh: answer.refresh_token,
        refresh_at: answer.expires_in.map(|life| {
            let life = Duration::from_secs(life);
            Instant::now() + life - (life / 10).min(Duration::from_secs(30))
        }),
        scope: None,
    })
}

/// `application/x-www-form-urlencoded` of `form`.
fn form_body(form: &[(&str, String)]) -> String {
    let encode = |s: &str| percent_encoding::utf8_percent_encode(s, super::registration::FORM).to_string();
    form.iter().map(|(name, value)| format!("{}={}", encode(name), encode(value))).collect::<Vec<_>>().join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(advertises_iss: bool) -> ServerMetadata {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://as", "token_endpoint": "http://as/token",
            "authorization_response_iss_parameter_supported": advertises_iss,
        }))
        .unwrap()
    }

    struct Never;

    impl Authorizer for Never {
        fn authorize<'a>(&'a self, _: &'a str, _: &'a str) -> crate::future::BoxFuture<'a, Result<String, LoginError>> {
            Box::pin(async { panic!("a person was asked to authorize without PKCE") })
        }
    }

    #[tokio::test]
    async fn no_person_is_sent_to_a_server_that_does_not_list_pkce() {
        let mut metadata = server(false);
        metadata.authorization_endpoint = Some("http://as/authorize".into());
        let client = Registered { client_id: "c".into(), secret: None, method: "none".into(), key: None };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::new();
        let refused =
            authorization_code(&http, &Never, &metadata, &client, "http://127.0.0.1/cb", "http://mcp", None).await;
        let message = refused.unwrap_err().to_string();
        assert!(message.contains("does not say it supports PKCE"), "{message}");
        metadata.code_challenge_methods_supported = Some(vec!["plain".into()]);
        let refused =
            authorization_code(&http, &Never, &metadata, &client, "http://127.0.0.1/cb", "http://mcp", None).await;
        assert!(refused.unwrap_err().to_string().contains("S256"));
    }

    #[test]
    fn a_redirect_is_taken_only_with_its_state_and_the_right_issuer() {
        let ok = "http://localhost/cb?code=c1&state=s1&iss=http%3A%2F%2Fas";
        assert_eq!(check_redirect(ok, "s1", &server(true)).unwrap(), "c1");
        assert!(check_redirect(ok, "s2", &server(true)).is_err(), "another state");
        let wrong = "http://localhost/cb?code=c1&state=s1&iss=http%3A%2F%2Fas%2F";
        assert!(check_redirect(wrong, "s1", &server(false)).is_err(), "compared as strings, advertised or not");
        let missing = "http://localhost/cb?code=c1&state=s1";
        assert!(check_redirect(missing, "s1", &server(true)).is_err(), "advertised, so required");
        assert_eq!(check_redirect(missing, "s1", &server(false)).unwrap(), "c1");
        let refused = "http://localhost/cb?error=access_denied&state=s1";
        assert!(check_redirect(refused, "s1", &server(false)).unwrap_err().to_string().contains("access_denied"));
    }
}
