//! Opaque access tokens (RFC 7662): an endpoint whose `OAuth` authenticator finds everything
//! through the issuer's metadata and checks tokens at the real authorization server's
//! introspection endpoint (oidc-provider issuing opaque tokens). The principal, scopes per
//! tool, tokens for another resource or never issued, and answers remembered rather than asked
//! again on every request.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_rounds::transport::http::Http;
use mcp_rounds::transport::oauth::OAuth;
use mcp_rounds::{Principal, Server, handlers, tool};
use mcp_rounds_tests::http::{HttpResponse, post_mcp};
use mcp_rounds_tests::oauth::{AuthorizationServer, Client, INTROSPECTOR_ID, INTROSPECTOR_SECRET};
use mcp_rounds_tests::request;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// Who the caller is, as the handler sees it.
#[tool(read_only, scopes("notes:read"))]
fn whoami(principal: Principal) -> String {
    let scopes: Vec<&str> = principal.scopes().unwrap_or_default().iter().map(|s| &**s).collect();
    let client = principal.claims().and_then(|claims| claims.get("client_id")).and_then(Value::as_str);
    format!("{} [{}] client={}", principal.name().unwrap_or("-"), scopes.join(" "), client.unwrap_or("-"))
}

/// Writes nothing, but needs the right to.
#[tool(scopes("notes:write"))]
fn write() -> &'static str {
    "written"
}

/// The endpoint, served on a runtime of its own until dropped.
struct Endpoint {
    address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Endpoint {
    fn start(auth: &AuthorizationServer) -> Self {
        let issuer = auth.issuer().to_owned();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            runtime.block_on(async move {
                let server =
                    Server::builder("introspected", "1.0.0").handlers(handlers![whoami, write]).build().unwrap();
                // No key set or endpoint named: both come from the issuer's metadata.
                let oauth = OAuth::builder(issuer)
                    .scopes_supported(["notes:read", "notes:write"])
                    .introspection(INTROSPECTOR_ID, INTROSPECTOR_SECRET, Duration::from_secs(60))
                    .build()
                    .await
                    .expect("the authenticator finds the issuer's endpoints");
                let bound = Http::new(oauth).bind("127.0.0.1:0").await.unwrap();
                ready_tx.send(bound.local_addr()).unwrap();
                bound.serve(&server, async { drop(stopped.await) }).await.unwrap();
            });
        });
        let address = ready_rx.recv_timeout(Duration::from_secs(60)).expect("the endpoint starts");
        Endpoint { address, stop: Some(stop), thread: Some(thread) }
    }

    fn resource(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    fn call(&self, token: &str, tool: &str) -> HttpResponse {
        let message = request(json!(tool), "tools/call", json!({"name": tool, "arguments": {}}));
        post_mcp(&self.address.to_string(), Some(token), &message)
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn text(response: &HttpResponse) -> String {
    let answer = response.json();
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {answer}")).to_owned()
}

fn challenge(response: &HttpResponse) -> &str {
    response.header("www-authenticate").unwrap_or_else(|| panic!("no challenge: {response:?}"))
}

#[test]
fn opaque_tokens_are_introspected_scoped_and_remembered() {
    let auth = AuthorizationServer::start_opaque();
    let endpoint = Endpoint::start(&auth);
    let full = auth.token(Client::Full, "notes:read notes:write", &endpoint.resource()).unwrap();
    assert_eq!(full.matches('.').count(), 0, "an opaque token, not a JWT: {full}");

    // The client-credentials token's subject is its client; its scopes and claims come along.
    let answered = endpoint.call(&full, "whoami");
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(text(&answered), "notes-full [notes:read notes:write] client=notes-full");
    assert_eq!(text(&endpoint.call(&full, "write")), "written");
    assert_eq!(auth.introspection_requests(), 1, "the answer is remembered for the next requests");

    // A reader's token: reads, and the write gets the step-up challenge.
    let reader = auth.token(Client::Reader, "notes:read", &endpoint.resource()).unwrap();
    assert_eq!(text(&endpoint.call(&reader, "whoami")), "notes-reader [notes:read] client=notes-reader");
    let refused = endpoint.call(&reader, "write");
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(challenge(&refused).starts_with("Bearer error=\"insufficient_scope\", scope=\"notes:write\""));
    assert_eq!(refused.json()["error"]["code"], -31403);

    // Active tokens that are not for this endpoint, and tokens the server never issued.
    let elsewhere = auth.token(Client::Full, "notes:read", "http://127.0.0.1:9/mcp").unwrap();
    let cases = [
        ("another resource", elsewhere, "The token is for another resource"),
        ("never issued", "x".repeat(43), "The token is not active"),
    ];
    for (what, token, why) in cases {
        let before = auth.introspection_requests();
        let refused = endpoint.call(&token, "whoami");
        assert_eq!(refused.status, 401, "{what}: {refused:?}");
        let challenge = challenge(&refused);
        assert!(challenge.contains("error=\"invalid_token\""), "{what}: {challenge}");
        assert!(challenge.contains(why), "{what}: {challenge}");
        assert!(refused.body.is_empty(), "{what}: no MCP processing");
        assert_eq!(auth.introspection_requests(), before + 1, "{what}: asked once");
    }
}
