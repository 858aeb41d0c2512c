//! Who the client is to an authorization server, chosen in the revision's order: credentials
//! registered beforehand for that issuer, else a client ID metadata document (its `client_id`
//! is the document's HTTPS URL) where the server takes one, else dynamic registration (RFC
//! 7591). And how those credentials go with a token request.

use base64::Engine;
use serde::Deserialize;
use serde_json::json;

use super::discovery::ServerMetadata;
use super::{LoginError, requests};

/// A client's credentials at one issuer.
#[derive(Clone)]
pub(crate) struct Registered {
    pub(crate) client_id: String,
    pub(crate) secret: Option<String>,
    /// `none`, `client_secret_basic`, `client_secret_post` or `private_key_jwt`.
    pub(crate) method: String,
    /// The signing key of `private_key_jwt`: PEM and algorithm.
    pub(crate) key: Option<(String, jsonwebtoken::Algorithm)>,
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A secret or a private key never appears in a debug string.
        f.debug_struct("Registered")
            .field("client_id", &self.client_id)
            .field("method", &self.method)
            .field("secret", &self.secret.as_ref().map(|_| "…"))
            .field("key", &self.key.as_ref().map(|(_, algorithm)| algorithm))
            .finish()
    }
}

/// The method to use with a secret (or without) at `server`: one it advertises, the client's
/// preference first.
pub(crate) fn method_for(server: &ServerMetadata, has_secret: bool) -> String {
    let supported = server.token_endpoint_auth_methods_supported.as_deref();
    let offers = |m: &str| supported.is_none_or(|s| s.iter().any(|x| x == m));
    let preference: &[&str] = if has_secret { &["client_secret_basic", "client_secret_post"] } else { &["none"] };
    preference.iter().find(|m| offers(m)).unwrap_or(&preference[0]).to_string()
}

#[derive(Deserialize)]
struct RegistrationAnswer {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// Registers with `server` (RFC 7591) as a native application that redirects to `redirect_uri`.
pub(crate) async fn register(
    http: &reqwest::Client,
    server: &ServerMetadata,
    client_name: &str,
    redirect_uri: &str,
    scope: Option<&str>,
) -> Result<Registered, LoginError> {
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(LoginError::Registration(format!(
            "{} takes no dynamic registration and no client ID metadata document: register the client beforehand",
            server.issuer
        )));
    };
    let supported = server.token_endpoint_auth_methods_supported.as_deref().unwrap_or_default();
    // A native application is a public client where the server allows it.
    let method = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| supported.is_empty() || supported.iter().any(|s| s == m))
        .unwrap_or("none");
    let mut body = json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": "native",
    });
    if let Some(scope) = scope {
        body["scope"] = scope.into();
    }
    let url = reqwest::Url::parse(endpoint)
        .map_err(|e| LoginError::Registration(format!("{endpoint:?} is not a URL: {e}")))?;
    let request =
        http.post(url.clone()).header(reqwest::header::CONTENT_TYPE, "application/json").body(body.to_string());
    let answer = requests::send(request, &url).await.map_err(LoginError::Registration)?;
    let (status, text) = (answer.status, answer.text());
    if !status.is_success() {
        return Err(LoginError::Registration(format!(
            "{endpoint} refused the registration: HTTP {status}: {}",
            excerpt(&text)
        )));
    }
    let answer: RegistrationAnswer = serde_json::from_str(&text)
        .map_err(|e| LoginError::Registration(format!("{endpoint} answered something else: {e}")))?;
    let secret = answer.client_secret.filter(|s| !s.is_empty());
    let method = answer
        .token_endpoint_auth_method
        .unwrap_or_else(|| if secret.is_some() { "client_secret_basic".to_owned() } else { method.to_owned() });
    Ok(Registered { client_id: answer.client_id, secret, method, key: None })
}

/// The start of an error body, for a message (never a token: only error answers get here).
pub(crate) fn excerpt(text: &str) -> String {
    text.chars().take(200).collect()
}

/// `form` and `request` with the client's credentials, as its method says. `audience` is the
/// issuer: what a client assertion is for.
pub(crate) fn authenticate(
    request: reqwest::RequestBuilder,
    form: &mut Vec<(&'static str, String)>,
    client: &Registered,
    audience: &str,
) -> Result<reqwest::RequestBuilder, LoginError> {
    match (client.method.as_str(), &client.secret, &client.key) {
        ("client_secret_basic", Some(secret), _) => {
            let encode = |s: &str| percent_encoding::utf8_percent_encode(s, FORM).to_string();
            let pair = format!("{}:{}", encode(&client.client_id), encode(secret));
            let value = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair));
            Ok(request.header(reqwest::header::AUTHORIZATION, value))
        }
        ("client_secret_post", Some(secret), _) => {
            form.push(("client_id", client.client_id.clone()));
            form.push(("client_secret", secret.clone()));
            Ok(request)
        }
        ("private_key_jwt", _, Some((pem, algorithm))) => {
            form.push(("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into()));
            form.push(("client_assertion", assertion(&client.client_id, audience, pem, *algorithm)?));
            Ok(request)
        }
        _ => {
            form.push(("client_id", client.client_id.clone()));
            Ok(request)
        }
    }
}

/// Characters escaped in a form body and in a Basic credential (RFC 6749 §2.3.1, Appendix B).
pub(crate) const FORM: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A client assertion (RFC 7523): the client, for `audience`, for five minutes, used once.
fn assertion(
    client_id: &str,
    audience: &str,
    pem: &str,
    algorithm: jsonwebtoken::Algorithm,
) -> Result<String, LoginError> {
    let key = match algorithm {
        jsonwebtoken::Algorithm::ES256 | jsonwebtoken::Algorithm::ES384 => {
            jsonwebtoken::EncodingKey::from_ec_pem(pem.as_bytes())
        }
        jsonwebtoken::Algorithm::EdDSA => jsonwebtoken::EncodingKey::from_ed_pem(pem.as_bytes()),
        _ => jsonwebtoken::EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|e| LoginError::Registration(format!("the private key does not read as {algorithm:?}: {e}")))?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs();
    let mut id = [0u8; 16];
    getrandom::fill(&mut id).map_err(|e| LoginError::Registration(format!("no randomness: {e}")))?;
    let claims = json!({
        "iss": client_id, "sub": client_id, "aud": audience,
        "iat": now, "exp": now + 300,
        "jti": base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(id),
    });
    jsonwebtoken::encode(&jsonwebtoken::Header::new(algorithm), &claims, &key)
        .map_err(|e| LoginError::Registration(format!("cannot sign the client assertion: {e}")))
}
