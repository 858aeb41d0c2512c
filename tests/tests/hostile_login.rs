//! Where a client's login goes when a hostile server tells it where (the `hostile-server`
//! fixture, whose "elsewhere" origin records everything that reaches it): credentials only to
//! the issuer they belong to, a token only to its resource, no person sent to a server without
//! PKCE, and no URL followed that is not https (or http on this machine), nor one on this
//! machine named by a server that is not.

use std::sync::Mutex;

use mcp_rounds::client::oauth::{Authorizer, ClientCredentials, Issuer, Login, LoginError, SavedLogin, TokenStore};
use mcp_rounds::client::{Client, ClientError, StreamableHttp, TransportError};
use mcp_rounds::future::BoxFuture;
use mcp_rounds_tests::hostile::Hostile;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_hostile-server");

/// An issuer nobody runs: the one the credentials of these tests belong to.
const LEGIT: &str = "http://127.0.0.1:9/legit";

/// The refusal a login ended in, read from the transport's error.
fn login_failure(error: &ClientError) -> &str {
    match error {
        ClientError::Transport { source: TransportError::Unauthorized(why), .. } => why,
        other => panic!("a login failure, not {other:?}"),
    }
}

/// The whole record as text, to search for a secret anywhere in it.
fn everything(server: &Hostile) -> String {
    server.record().to_string()
}

/// Whether `secret` of client `id` appears anywhere in what reached the fixture: as it is (a
/// form body) or in a Basic credential.
fn leaked(server: &Hostile, id: &str, secret: &str) -> bool {
    use base64::Engine as _;
    let record = everything(server);
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
    record.contains(secret) || record.contains(&basic)
}

/// The paths of the requests that reached the other origin.
fn paths_elsewhere(server: &Hostile) -> Vec<String> {
    let record = server.record();
    let requests = record["elsewhere"].as_array().cloned().unwrap_or_default();
    requests.iter().map(|r| r["path"].as_str().unwrap_or_default().to_owned()).collect()
}

#[tokio::test]
async fn client_credentials_go_to_their_own_issuer_alone() {
    let server = Hostile::start(BIN);
    let secret = ClientCredentials::secret(LEGIT, "machine", "secret-of-the-machine");
    let http = StreamableHttp::new(server.url("harvest")).login(Login::client_credentials(secret).build());
    let error = Client::builder().connect(http).await.expect_err("refused");
    let why = login_failure(&error);
    assert!(why.starts_with("refused:") && why.contains(LEGIT) && why.contains("/as"), "{why}");
    assert!(!paths_elsewhere(&server).iter().any(|p| p.ends_with("/token")), "no token request elsewhere");
    assert!(!leaked(&server, "machine", "secret-of-the-machine"), "the secret reached nobody");

    // A private key's assertion is held back the same way.
    let pem = "-----BEGIN PRIVATE KEY-----\nnot-read\n-----END PRIVATE KEY-----";
    let key = ClientCredentials::private_key_jwt(LEGIT, "machine", pem, jsonwebtoken::Algorithm::ES256);
    let http = StreamableHttp::new(server.url("harvest")).login(Login::client_credentials(key).build());
    let error = Client::builder().connect(http).await.expect_err("refused");
    assert!(login_failure(&error).starts_with("refused:"), "{error}");
    assert!(!paths_elsewhere(&server).iter().any(|p| p.ends_with("/token")));
}

#[tokio::test]
async fn only_the_explicit_opt_in_sends_credentials_where_the_server_says() {
    let server = Hostile::start(BIN);
    let secret = ClientCredentials::secret(Issuer::trust_server_named(), "machine", "secret-given-away");
    let http = StreamableHttp::new(server.url("harvest")).login(Login::client_credentials(secret).build());
    let client = Client::builder().connect(http).await.expect("logged in where the server said");
    client.call_tool("whoami", json!({})).await.expect("a call with the harvested token");
    let record = server.record();
    let token = record["elsewhere"].as_array().unwrap().iter().find(|r| r["path"] == "/as/token").cloned();
    let token = token.expect("a token request reached the server's issuer");
    use base64::Engine as _;
    let basic = base64::engine::general_purpose::STANDARD.encode("machine:secret-given-away");
    assert_eq!(token["headers"]["authorization"], format!("Basic {basic}"), "the opt-in does what it says");
}

/// A person who completes any authorization at once, the way the fixture's server answers
/// (a redirect straight back), never seeing a page.
struct Approves;

impl Authorizer for Approves {
    fn authorize<'a>(&'a self, url: &'a str, _: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
        Box::pin(async move {
            let _ = rustls::crypto::ring::default_provider().install_default();
            let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
            let answer = http.get(url).send().await.map_err(|e| LoginError::Authorization(e.to_string()))?;
            let location = answer.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
            location.map(str::to_owned).ok_or_else(|| LoginError::Authorization("no redirect".into()))
        })
    }
}

#[tokio::test]
async fn a_secret_registered_for_one_issuer_is_not_sent_to_another() {
    let server = Hostile::start(BIN);
    let login = Login::builder("http://127.0.0.1:1/callback", Approves)
        .preregistered(LEGIT, "registered-at-legit", Some("secret-of-legit".to_owned()))
        .build();
    let client = Client::builder()
        .connect(StreamableHttp::new(server.url("harvest")).login(login))
        .await
        .expect("logged in with a registration of the other issuer's own");
    client.call_tool("whoami", json!({})).await.expect("a call");
    assert!(paths_elsewhere(&server).iter().any(|p| p == "/as/register"), "registered there instead");
    assert!(!leaked(&server, "registered-at-legit", "secret-of-legit"));
    assert!(!everything(&server).contains("registered-at-legit"), "not even its id");
}

/// A person who must never be asked.
struct NeverAsked;

impl Authorizer for NeverAsked {
    fn authorize<'a>(&'a self, url: &'a str, _: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
        panic!("the person was sent to {url}")
    }
}

#[tokio::test]
async fn no_person_is_sent_to_an_authorization_server_without_pkce() {
    let server = Hostile::start(BIN);
    let login = Login::builder("http://127.0.0.1:1/callback", NeverAsked).build();
    let error =
        Client::builder().connect(StreamableHttp::new(server.url("no-pkce")).login(login)).await.expect_err("refused");
    assert!(login_failure(&error).contains("does not say it supports PKCE"), "{error}");
    let record = server.record();
    assert_eq!((record["nopkce_authorize"].as_u64(), record["nopkce_token"].as_u64()), (Some(0), Some(0)));
}

#[tokio::test]
async fn plain_http_metadata_off_this_machine_is_never_fetched() {
    let server = Hostile::start(BIN);
    let login = Login::builder("http://127.0.0.1:1/callback", NeverAsked).build();
    let http = StreamableHttp::new(server.url("harvest-http-metadata")).login(login);
    let error = Client::builder().connect(http).await.expect_err("refused");
    let why = login_failure(&error);
    assert!(why.starts_with("refused:") && why.contains("neither https nor http on this machine"), "{why}");
    assert_eq!(paths_elsewhere(&server), Vec::<String>::new(), "nothing fetched");
}

/// The server as a client elsewhere would see it: by a name that is not this machine's,
/// which the application's own client resolves to it.
fn named_elsewhere(server: &Hostile) -> (String, reqwest::Client) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let address: std::net::SocketAddr = server.main_address().parse().unwrap();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .resolve("mcp.example.test", address)
        .build()
        .unwrap();
    (format!("http://mcp.example.test:{}/harvest/mcp", address.port()), http)
}

#[tokio::test]
async fn a_server_off_this_machine_cannot_point_the_login_at_it() {
    let server = Hostile::start(BIN);
    let (url, http) = named_elsewhere(&server);
    let login = Login::builder("http://127.0.0.1:1/callback", NeverAsked).build();
    let transport = StreamableHttp::new(&url).with_client(http.clone()).login(login);
    let error = Client::builder().connect(transport).await.expect_err("refused");
    let why = login_failure(&error);
    assert!(why.starts_with("refused:") && why.contains("is on this machine"), "{why}");

    // Allowed, the login goes on to the metadata, which names another resource than the
    // server as the client knows it: refused for that, further on.
    let login = Login::builder("http://127.0.0.1:1/callback", NeverAsked).allow_private_addresses().build();
    let transport = StreamableHttp::new(&url).with_client(http).login(login);
    let error = Client::builder().connect(transport).await.expect_err("another resource");
    let why = login_failure(&error);
    assert!(why.starts_with("discovery:") && why.contains("not this server"), "{why}");
}

/// A store holding one login, as a keyring would.
struct Kept(Mutex<Option<SavedLogin>>);

impl TokenStore for Kept {
    fn load(&self) -> Option<SavedLogin> {
        self.0.lock().unwrap().clone()
    }

    fn save(&self, login: &SavedLogin) {
        *self.0.lock().unwrap() = Some(login.clone());
    }

    fn clear(&self) {
        *self.0.lock().unwrap() = None;
    }
}

#[tokio::test]
async fn a_token_goes_only_to_the_resource_it_was_issued_for() {
    let server = Hostile::start(BIN);
    let saved: SavedLogin = serde_json::from_value(json!({
        "issuer": LEGIT, "resource": "http://127.0.0.1:9/other/mcp", "client_id": "c",
        "token_endpoint_auth_method": "none", "access_token": "token-for-another-resource"
    }))
    .unwrap();
    let store = Kept(Mutex::new(Some(saved)));
    let login = Login::builder("http://127.0.0.1:1/callback", NeverAsked).store(store).build();
    let url = format!("{}/stolen/mcp", server.elsewhere_origin());
    let _ = Client::builder().connect(StreamableHttp::new(url).login(login)).await;
    let record = server.record();
    let requests: &Vec<Value> = record["elsewhere"].as_array().unwrap();
    assert!(!requests.is_empty(), "the client did talk to that server");
    assert!(!record.to_string().contains("token-for-another-resource"), "{record}");
}
