//! The notes server behind a real authorization server (npm `oidc-provider`), called by the
//! mcp-rounds client that logs in by itself when the server answers 401.

mod common;

use std::time::{Duration, Instant};

use common::Protected;
use mcp_rounds::client::oauth::{Authorizer, ClientCredentials, Login, LoginError};
use mcp_rounds::client::{Client, ClientError, StreamableHttp, TransportError};
use mcp_rounds::future::BoxFuture;
use mcp_rounds_tests::oauth::{
    AGENT_CLIENT_ID, AGENT_REDIRECT, AuthorizationServer, FULL_CLIENT_ID, FULL_CLIENT_SECRET,
};
use mcp_rounds_tests::{browser, wait};
use serde_json::json;

#[tokio::test]
async fn a_machine_logs_in_with_its_client_credentials() {
    let protected = Protected::start("login-machine");
    let issuer = protected.auth.issuer();
    let login =
        Login::client_credentials(ClientCredentials::secret(issuer, FULL_CLIENT_ID, FULL_CLIENT_SECRET)).build();
    let http = StreamableHttp::new(protected.resource()).login(login);
    let client = Client::builder().connect(http).await.expect("connected after logging in");
    let listed = client
        .call_tool("notes_list", json!({"workspaceUri": protected.dir.workspace_uri(), "query": "tps"}))
        .await
        .expect("a call with the token");
    assert_eq!(listed.structured_content.unwrap()["notes"].as_array().map(Vec::len), Some(3));
    assert_eq!(protected.auth.token_requests(), 1, "one token, kept for every request");
    client.close().await;
}

#[tokio::test]
async fn a_machine_with_a_wrong_secret_is_told_authorization_failed() {
    let protected = Protected::start("login-machine-refused");
    let issuer = protected.auth.issuer();
    let login = Login::client_credentials(ClientCredentials::secret(issuer, FULL_CLIENT_ID, "not-the-secret")).build();
    let http = StreamableHttp::new(protected.resource()).login(login);
    let error = Client::builder().connect(http).await.expect_err("no token, no connection");
    let ClientError::Transport { source: TransportError::Unauthorized(why), .. } = &error else {
        panic!("an authorization failure: {error:?}")
    };
    assert!(why.contains("invalid_client"), "{why}");
    assert!(!why.contains("not-the-secret"), "the secret is never in a message: {why}");
}

/// A person at a browser, signing in as `alice` and consenting on the server's own pages.
struct Alice;

impl Authorizer for Alice {
    fn authorize<'a>(&'a self, url: &'a str, redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
        Box::pin(async move { browser::sign_in(url, redirect_uri, "alice").await.map_err(LoginError::Authorization) })
    }
}

fn alice_login(protected: &Protected) -> Login {
    Login::builder(AGENT_REDIRECT, Alice).preregistered(protected.auth.issuer(), AGENT_CLIENT_ID, None).build()
}

async fn list_tps(client: &Client, protected: &Protected) -> Result<usize, ClientError> {
    let listed =
        client.call_tool("notes_list", json!({"workspaceUri": protected.dir.workspace_uri(), "query": "tps"})).await?;
    Ok(listed.structured_content.and_then(|s| s["notes"].as_array().map(Vec::len)).unwrap_or_default())
}

#[tokio::test]
async fn a_person_logs_in_through_the_login_and_consent_pages() {
    let protected = Protected::start("login-person");
    let http = StreamableHttp::new(protected.resource()).login(alice_login(&protected));
    let client = Client::builder().connect(http).await.expect("connected after alice logged in");
    assert_eq!(list_tps(&client, &protected).await.unwrap(), 3);
    assert_eq!(protected.auth.token_requests(), 1, "one code exchanged, its token kept");
    client.close().await;
}

#[tokio::test]
async fn an_expired_token_is_refreshed_and_a_revoked_refresh_token_means_log_in_again() {
    const TTL: Duration = Duration::from_secs(3);
    let protected =
        Protected::trusting("login-refresh", AuthorizationServer::start_with_access_token_ttl(TTL.as_secs()));
    let http = StreamableHttp::new(protected.resource()).login(alice_login(&protected));
    let client = Client::builder().connect(http).await.expect("connected after alice logged in");
    assert_eq!(list_tps(&client, &protected).await.unwrap(), 3);
    let logged_in = Instant::now();
    assert_eq!(protected.auth.token_requests(), 1);

    // Past the token's life, a call refreshes it first: no page, no person.
    wait::until(logged_in + TTL);
    assert_eq!(list_tps(&client, &protected).await.unwrap(), 3);
    assert_eq!(protected.auth.token_requests(), 2, "one refresh");

    // Refresh tokens revoked: once the access token is past its life, the person must log in again.
    assert!(protected.auth.revoke_refresh_tokens() >= 1);
    wait::until(Instant::now() + TTL);
    let error = list_tps(&client, &protected).await.expect_err("no token without a person");
    let ClientError::Transport { source: TransportError::Unauthorized(why), .. } = &error else {
        panic!("an authorization failure: {error:?}")
    };
    assert!(why.starts_with("log in again"), "{why}");
}
