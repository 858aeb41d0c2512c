//! The notes server behind a real authorization server (npm `oidc-provider`), called by the
//! mcp-rounds client that logs in by itself when the server answers 401.

mod common;

use common::Protected;
use mcp_rounds::client::oauth::{ClientCredentials, Login};
use mcp_rounds::client::{Client, ClientError, StreamableHttp, TransportError};
use mcp_rounds_tests::oauth::{FULL_CLIENT_ID, FULL_CLIENT_SECRET};
use serde_json::json;

#[tokio::test]
async fn a_machine_logs_in_with_its_client_credentials() {
    let protected = Protected::start("login-machine");
    let login = Login::client_credentials(ClientCredentials::secret(FULL_CLIENT_ID, FULL_CLIENT_SECRET));
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
    let login = Login::client_credentials(ClientCredentials::secret(FULL_CLIENT_ID, "not-the-secret"));
    let http = StreamableHttp::new(protected.resource()).login(login);
    let error = Client::builder().connect(http).await.expect_err("no token, no connection");
    let ClientError::Transport { source: TransportError::Unauthorized(why), .. } = &error else {
        panic!("an authorization failure: {error:?}")
    };
    assert!(why.contains("invalid_client"), "{why}");
    assert!(!why.contains("not-the-secret"), "the secret is never in a message: {why}");
}
