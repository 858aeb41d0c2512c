//! The suite's authorization scenarios: the logins the client needs, from the scenario and its
//! context, and the suite's headless authorization step.

use mcp_rounds::client::oauth::{Authorizer, ClientCredentials, Issuer, Login, LoginError};
use mcp_rounds::future::BoxFuture;
use serde_json::Value;

/// Where the suite's authorization server sends the browser back (nothing listens there: the
/// redirect is read, not followed).
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The client ID metadata document's URL the suite expects of a client (it never fetches it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The logins of an `auth/…` scenario; `None` for the others.
pub fn for_scenario(scenario: &str, context: &Value) -> Option<Login> {
    let text = |name: &str| context[name].as_str().map(str::to_owned);
    // The suite gives credentials without saying whose they are: trusting whichever issuer
    // its server names is safe here alone, where both servers are the suite's own.
    let issuer = || text("issuer").map_or_else(Issuer::trust_server_named, Issuer::named);
    match scenario {
        "auth/client-credentials-basic" => {
            let secret = ClientCredentials::secret(issuer(), text("client_id")?, text("client_secret")?);
            Some(Login::client_credentials(secret).build())
        }
        "auth/client-credentials-jwt" => {
            let algorithm = text("signing_algorithm").unwrap_or_else(|| "ES256".into()).parse().ok()?;
            let key =
                ClientCredentials::private_key_jwt(issuer(), text("client_id")?, text("private_key_pem")?, algorithm);
            Some(Login::client_credentials(key).build())
        }
        auth if auth.starts_with("auth/") => {
            let mut builder = Login::builder(REDIRECT_URI, Headless::new())
                .client_name("mcp-rounds-conformance-client")
                .client_metadata_url(CLIENT_METADATA_URL);
            if let Some(client_id) = text("client_id") {
                builder = builder.preregistered(issuer(), client_id, text("client_secret"));
            }
            Some(builder.build())
        }
        _ => None,
    }
}

/// The suite's authorization server approves at once with a redirect: the authorization URL is
/// fetched, and the redirect read from its `Location` instead of followed.
struct Headless {
    http: reqwest::Client,
}

impl Headless {
    fn new() -> Self {
        // reqwest is built without a crypto provider of its own; ring is the library's.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap_or_default();
        Headless { http }
    }
}

impl Authorizer for Headless {
    fn authorize<'a>(&'a self, url: &'a str, _redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
        Box::pin(async move {
            let failed = |why: String| LoginError::Authorization(why);
            let response = self.http.get(url).send().await.map_err(|e| failed(format!("cannot reach {url}: {e}")))?;
            let location = response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
            location
                .map(str::to_owned)
                .ok_or_else(|| failed(format!("{url} answered {} without a redirect", response.status())))
        })
    }
}
