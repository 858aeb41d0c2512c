//! The notes server behind a real OAuth 2.1 authorization server (npm `oidc-provider`, started
//! by the test): its protected resource metadata, the `401` and `403` challenges, every kind of
//! bad token, scopes per tool, subjects binding `requestState`, key rotation while it runs, and
//! a start-up that cannot reach the keys. Raw HTTP, so that every status and header is seen
//! exactly as a client sees it.

mod common;

use std::thread;

use common::{BIN, DataDir, Protected, TPS};
use mcp_rounds_tests::http::{HttpResponse, post_mcp, request_to};
use mcp_rounds_tests::oauth::{self, Client, claims, unsigned_token};
use mcp_rounds_tests::request;
use serde_json::{Value, json};

impl Protected {
    /// A token from the authorization server for this resource.
    fn token(&self, client: Client, scope: &str) -> String {
        self.auth.token(client, scope, &self.resource()).expect("the authorization server issues a token")
    }

    /// A token signed with the authorization server's own `alg` key for `subject`.
    fn signed(&self, subject: &str, scope: &str) -> String {
        self.auth.key("ES256").sign(&claims(self.auth.issuer(), &self.resource(), subject, scope))
    }

    fn post(&self, token: Option<&str>, message: &Value) -> HttpResponse {
        post_mcp(&self.server.address, token, message)
    }

    fn call(&self, token: &str, id: &str, tool: &str, arguments: Value) -> HttpResponse {
        self.post(Some(token), &request(json!(id), "tools/call", json!({"name": tool, "arguments": arguments})))
    }
}

/// Whether an answer is a complete, successful result.
fn succeeded(answer: &Value) -> bool {
    answer["result"]["resultType"] == "complete" && answer["result"]["isError"] != true
}

fn challenge(response: &HttpResponse) -> &str {
    response.header("www-authenticate").unwrap_or_else(|| panic!("no challenge: {response:?}"))
}

#[test]
fn the_metadata_is_public_and_every_refusal_names_it() {
    let protected = Protected::start("metadata");
    let address = &protected.server.address;
    let expected = json!({
        "resource": protected.resource(),
        "authorization_servers": [protected.auth.issuer()],
        "scopes_supported": ["notes:read", "notes:write"],
        "bearer_methods_supported": ["header"],
    });
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let response = request_to(address, "GET", path, &[], b"");
        assert_eq!(response.status, 200, "{path}: {response:?}");
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert_eq!(response.json(), expected, "{path}");
    }

    // No token: a challenge naming the metadata and the scope to start with, no error code.
    let discover = request(json!(1), "server/discover", json!({}));
    let refused = protected.post(None, &discover);
    assert_eq!(refused.status, 401);
    assert_eq!(
        challenge(&refused),
        format!("Bearer resource_metadata=\"{}\", scope=\"notes:read\"", protected.metadata_url())
    );

    // A token from the authorization server gets in.
    let token = protected.token(Client::Full, "notes:read");
    let answered = protected.post(Some(&token), &discover);
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(answered.json()["result"]["supportedVersions"], json!(["2026-07-28"]));
}

#[test]
fn every_bad_token_is_refused_with_invalid_token_before_anything_runs() {
    let protected = Protected::start("bad-tokens");
    let (issuer, resource) = (protected.auth.issuer().to_owned(), protected.resource());
    let key = protected.auth.key("ES256");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let good = || claims(&issuer, &resource, "alice", "notes:read notes:write");
    let with = |field: &str, value: Value| {
        let mut claims = good();
        claims[field] = value;
        claims
    };
    let forged = {
        // A real token, its payload swapped for one naming another subject: the signature no
        // longer matches.
        let real = protected.token(Client::Reader, "notes:read");
        let parts: Vec<&str> = real.split('.').collect();
        let other = unsigned_token(&key.kid, &good());
        let payload = other.split('.').nth(1).unwrap();
        format!("{}.{payload}.{}", parts[0], parts[2])
    };
    let cases = [
        ("forged", forged, "signature does not verify"),
        ("expired", key.sign(&with("exp", json!(now - 300))), "expired"),
        ("not yet valid", key.sign(&with("nbf", json!(now + 300))), "not valid yet"),
        ("wrong issuer", key.sign(&with("iss", json!("http://127.0.0.1:9/evil"))), "another authorization server"),
        ("wrong audience", key.sign(&with("aud", json!("http://127.0.0.1:9/mcp"))), "another resource"),
        (
            "audience list without us",
            key.sign(&with("aud", json!(["http://a/mcp", "http://b/mcp"]))),
            "another resource",
        ),
        ("alg none", unsigned_token(&key.kid, &good()), "header is malformed"),
        (
            "unknown kid",
            protected.auth.unpublished_key("ES256").sign(&good()),
            "key the authorization server does not publish",
        ),
        ("HS256 with the public key", key.sign_hs256_with_public_key(&good()), "shared secret"),
        (
            "no subject",
            key.sign(&{
                let mut c = good();
                c.as_object_mut().unwrap().remove("sub");
                c
            }),
            "no subject",
        ),
        ("not a JWT", "0123456789abcdef0123456789abcdef".to_owned(), "not a JWT"),
    ];
    let create = |id: &str| {
        request(
            json!(id),
            "tools/call",
            json!({"name": "notes_create", "arguments": {
                "workspaceUri": protected.dir.workspace_uri(), "title": "Should not exist", "body": "x"}}),
        )
    };
    for (what, token, why) in &cases {
        let refused = protected.post(Some(token), &create(what));
        assert_eq!(refused.status, 401, "{what}: {refused:?}");
        let challenge = challenge(&refused);
        assert!(
            challenge.starts_with(&format!(
                "Bearer resource_metadata=\"{}\", scope=\"notes:read\", error=\"invalid_token\", error_description=\"",
                protected.metadata_url()
            )),
            "{what}: {challenge}"
        );
        assert!(challenge.contains(why), "{what}: {challenge}");
        assert!(refused.body.is_empty(), "{what}: no MCP processing, no JSON-RPC answer");
    }
    protected.dir.assert_intact();

    // The same claims, signed properly with each kind of key the server publishes, get in.
    let read = request(
        json!("r"),
        "tools/call",
        json!({"name": "notes_list", "arguments": {
        "workspaceUri": protected.dir.workspace_uri()}}),
    );
    for alg in oauth::ALGORITHMS {
        let token = protected.auth.key(alg).sign(&good());
        let answered = protected.post(Some(&token), &read);
        assert_eq!(answered.status, 200, "{alg}: {answered:?}");
        assert!(succeeded(&answered.json()), "{alg}: {}", answered.json());
    }

    // Nothing of any token reached the log, not even the signature.
    let Protected { auth, server, .. } = protected;
    let logs = server.stop();
    assert!(logs.contains("access token refused"), "the refusals are logged (at debug):\n{logs}");
    for (what, token, _) in &cases {
        for part in token.split('.').filter(|part| part.len() >= 16) {
            assert!(!logs.contains(part), "{what}: part of the token is in the log");
        }
    }
    drop(auth);
}

#[test]
fn scopes_are_checked_before_the_tool_runs_and_listings_show_everything() {
    let protected = Protected::start("scopes");
    let workspace = protected.dir.workspace_uri();
    let reader = protected.token(Client::Reader, "notes:read");

    // Reading works, and the listing shows the tools a reader cannot use too.
    let listed = protected.post(Some(&reader), &request(json!(1), "tools/list", json!({})));
    assert_eq!(listed.status, 200);
    let listed = listed.json();
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"notes_create") && names.contains(&"notes_delete"), "{names:?}");
    let read = protected.call(&reader, "2", "notes_read", json!({"workspaceUri": workspace, "id": "reading-list"}));
    assert_eq!(read.status, 200);
    assert!(succeeded(&read.json()), "{read:?}");
    let resource = protected
        .post(Some(&reader), &request(json!(3), "resources/read", json!({"uri": "notes://workspace/roadmap-meeting"})));
    assert_eq!(resource.status, 200, "{resource:?}");

    // Writing needs notes:write: a 403 naming it, before anything is done (no elicitation
    // for the delete, no file for the create, no edit).
    let before = std::fs::read_to_string(protected.dir.workspace().join("reading-list.md")).unwrap();
    let writes = [
        ("notes_create", json!({"workspaceUri": workspace, "title": "Reader's note", "body": "no"})),
        ("notes_edit", json!({"workspaceUri": workspace, "id": "reading-list", "body": "changed"})),
        ("notes_delete", json!({"workspaceUri": workspace, "title": "tps report"})),
    ];
    for (tool, arguments) in writes {
        let refused = protected.call(&reader, tool, tool, arguments);
        assert_eq!(refused.status, 403, "{tool}: {refused:?}");
        assert_eq!(
            challenge(&refused),
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{}\"",
                protected.metadata_url()
            ),
            "{tool}"
        );
        let error = &refused.json()["error"];
        assert_eq!(
            (error["code"].clone(), error["data"].clone()),
            (json!(-31403), json!({"requiredScopes": ["notes:write"]})),
            "{tool}"
        );
    }
    protected.dir.assert_intact();
    assert_eq!(std::fs::read_to_string(protected.dir.workspace().join("reading-list.md")).unwrap(), before);

    // A token with notes:write alone cannot read: listing notes, reading, the prompt.
    let writer = protected.signed("alice", "notes:write");
    let reads = [
        request(json!(4), "resources/list", json!({})),
        request(json!(5), "resources/read", json!({"uri": "notes://workspace/roadmap-meeting"})),
        request(
            json!(6),
            "prompts/get",
            json!({"name": "review_note", "arguments": {"uri": "notes://workspace/roadmap-meeting"}}),
        ),
        request(json!(7), "tools/call", json!({"name": "notes_list", "arguments": {"workspaceUri": workspace}})),
    ];
    for message in &reads {
        let refused = protected.post(Some(&writer), message);
        assert_eq!(refused.status, 403, "{message}: {refused:?}");
        assert!(
            challenge(&refused).starts_with("Bearer error=\"insufficient_scope\", scope=\"notes:read\""),
            "{message}"
        );
    }
}

#[test]
fn a_confirmed_delete_runs_end_to_end_and_its_state_is_bound_to_the_subject() {
    let protected = Protected::start("subjects");
    let workspace = protected.dir.workspace_uri();
    let alice = protected.signed("alice", "notes:read notes:write");
    let bob = protected.signed("bob", "notes:read notes:write");
    let capabilities = json!({"elicitation": {"form": {}}});
    let delete = |token: &str, id: &str, extra: Value| {
        let mut message = request(
            json!(id),
            "tools/call",
            json!({"name": "notes_delete", "arguments": {
            "workspaceUri": workspace, "title": "tps report"}}),
        );
        message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities.clone();
        if let Value::Object(extra) = extra {
            message["params"].as_object_mut().unwrap().extend(extra);
        }
        protected.post(Some(token), &message)
    };
    let asked = delete(&alice, "round-1", json!({})).json();
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"].clone();
    let key = asked["result"]["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let answer = json!({"requestState": state, "inputResponses": {key: {"action": "accept", "content": {"note": TPS[1], "confirm": true}}}});

    // Bob, with every scope, cannot use a state minted for alice.
    let stolen = delete(&bob, "stolen", answer.clone()).json();
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    protected.dir.assert_intact();

    let done = delete(&alice, "round-2", answer).json();
    assert!(succeeded(&done), "{done}");
    protected.dir.assert_notes_without(&[TPS[1]]);
}

#[test]
fn a_rotated_key_is_picked_up_and_a_burst_of_unknown_keys_costs_one_fetch() {
    let protected = Protected::start_signing_with("rotation", "RS256");
    let notes_list = request(
        json!("l"),
        "tools/call",
        json!({"name": "notes_list", "arguments": {
        "workspaceUri": protected.dir.workspace_uri()}}),
    );
    let before_rotation = protected.token(Client::Full, "notes:read");
    assert_eq!(protected.post(Some(&before_rotation), &notes_list).status, 200);
    let fetched_at_start = protected.auth.jwks_requests();
    assert_eq!(fetched_at_start, 1, "the keys are fetched once, at start");

    // The authorization server rotates its keys; the server keeps running.
    let rotated = protected.auth.rotate();
    let token = protected.token(Client::Full, "notes:read");
    let (header, _) = oauth::decode_unverified(&token);
    assert!(rotated.iter().any(|k| k.kid == header["kid"]), "the new token is signed with a new key");
    let answered = protected.post(Some(&token), &notes_list);
    assert_eq!(answered.status, 200, "{answered:?}");
    assert_eq!(protected.auth.jwks_requests(), fetched_at_start + 1, "the new key cost one fetch");
    // Known from now on: no more fetches.
    assert_eq!(protected.post(Some(&token), &notes_list).status, 200);
    assert_eq!(protected.auth.jwks_requests(), fetched_at_start + 1);

    // Sixteen requests at once with tokens of sixteen made-up key ids: all refused, for at
    // most one more fetch.
    let unpublished = protected.auth.unpublished_key("RS256");
    let claims = claims(protected.auth.issuer(), &protected.resource(), "alice", "notes:read");
    let statuses: Vec<u16> = thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|i| {
                let token = unpublished.sign_as(Some(&format!("made-up-{i}")), &claims);
                let (address, message) = (&protected.server.address, &notes_list);
                scope.spawn(move || post_mcp(address, Some(&token), message).status)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(statuses, [401; 16]);
    let after_burst = protected.auth.jwks_requests();
    assert!(
        after_burst <= fetched_at_start + 2,
        "a burst of unknown kids fetched {} times",
        after_burst - fetched_at_start - 1
    );
}

#[test]
fn keys_that_cannot_be_fetched_stop_the_start() {
    let dir = DataDir::seeded("oauth-unreachable");
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut config = dir.config();
    config.push_str(&format!(
        "\n[oauth]\nissuer = \"http://127.0.0.1:{port}\"\njwks_uri = \"http://127.0.0.1:{port}/jwks\"\n"
    ));
    dir.set_config(&config);
    let output = std::process::Command::new(BIN)
        .args(["--data", dir.arg(), "--listen", "127.0.0.1:0"])
        .output()
        .expect("run notes-server");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("notes-server: [oauth]: OAuth keys: http://127.0.0.1:"), "{stderr}");
    dir.assert_intact();
}

#[test]
fn the_python_sdk_client_authorizes_steps_up_and_survives_a_key_rotation() {
    use mcp_rounds_tests::{process::run_to_end, python};
    let protected = Protected::start("python");
    let seeded = protected.dir.notes();
    let seeded_reading_list = std::fs::read_to_string(protected.dir.workspace().join("reading-list.md")).unwrap();
    let mut command = std::process::Command::new(python::interpreter());
    command
        .arg(python::workspace_root().join("tests/python/oauth_client.py"))
        .args([protected.resource(), protected.auth.issuer().to_owned(), protected.dir.workspace_uri()])
        .env("NOTES_FULL_CLIENT", format!("{}:{}", oauth::FULL_CLIENT_ID, oauth::FULL_CLIENT_SECRET))
        .env("NOTES_READER_CLIENT", format!("{}:{}", oauth::READER_CLIENT_ID, oauth::READER_CLIENT_SECRET));
    let (status, stdout, stderr) = run_to_end(command, std::time::Duration::from_secs(120), "the Python client");
    assert!(status.success(), "Python client failed ({status}): {stderr}");
    let seen: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    let responses = |who: &str| -> Vec<Value> {
        seen["responses"].as_array().unwrap().iter().filter(|r| r["who"] == who).cloned().collect()
    };
    let write_challenge = format!(
        "Bearer error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{}\"",
        protected.metadata_url()
    );

    // The full client: discovered the metadata from the first 401, started with what that
    // asked for (notes:read), stepped up on the first write's 403, and did everything.
    let full = &seen["full"];
    let first = &responses("full")[0];
    assert_eq!(
        (first["status"].clone(), first["www_authenticate"].clone()),
        (json!(401), json!(format!("Bearer resource_metadata=\"{}\", scope=\"notes:read\"", protected.metadata_url())))
    );
    assert!(
        responses("full")
            .iter()
            .any(|r| r["path"] == "/.well-known/oauth-protected-resource/mcp" && r["status"] == 200)
    );
    let step_up: Vec<Value> = responses("full").into_iter().filter(|r| r["status"] == 403).collect();
    assert_eq!(step_up.len(), 1, "one step-up: {step_up:?}");
    assert_eq!(
        (step_up[0]["name"].clone(), step_up[0]["www_authenticate"].clone()),
        (json!("notes_create"), json!(write_challenge))
    );
    assert_eq!(full["granted"], json!(["notes:read", "notes:read notes:write"]));
    assert!(full["tools"].as_array().unwrap().len() >= 7, "{}", full["tools"]);
    assert_eq!(full["list"]["structuredContent"]["notes"].as_array().unwrap().len(), 6);
    assert!(full["read"]["contents"][0]["text"].as_str().unwrap().starts_with("# Roadmap meeting"));
    let created = full["create"]["structuredContent"].to_string();
    assert_eq!(full["create"]["isError"], false, "{}", full["create"]);
    assert_eq!(seen["elicited"], json!(["oauth-probe"]), "the delete offered the note just created");
    assert!(created.contains("oauth-probe"), "{created}");
    assert_eq!(full["delete"]["isError"], false, "{}", full["delete"]);

    // The reader: reads, and every write refused with the 403 challenge, its step-up refused
    // by the authorization server; it never held more than notes:read.
    let reader = &seen["reader"];
    assert_eq!(reader["list"]["isError"], false, "{}", reader["list"]);
    for tool in ["notes_create", "notes_edit", "notes_delete"] {
        let raised = &reader[tool]["raised"];
        assert_eq!(raised["type"], "OAuthTokenError", "{tool}: {raised}");
        assert!(raised["message"].as_str().unwrap().contains("invalid_scope"), "{tool}: {raised}");
        let answers: Vec<Value> = responses("reader").into_iter().filter(|r| r["name"] == tool).collect();
        assert!(
            !answers.is_empty()
                && answers.iter().all(|r| r["status"] == 403 && r["www_authenticate"] == json!(write_challenge)),
            "{tool}: {answers:?}"
        );
    }
    assert!(reader["granted"].as_array().unwrap().iter().all(|g| g == "notes:read"), "{}", reader["granted"]);

    // After the rotation: a token signed with a new key, accepted at once, for one more fetch.
    let (header, _) = oauth::decode_unverified(seen["rotated"]["token"].as_str().unwrap());
    assert!(seen["rotated_kids"].as_array().unwrap().contains(&header["kid"]), "{header}");
    assert_eq!(seen["rotated"]["list"]["isError"], false);
    assert_eq!(protected.auth.jwks_requests(), 2, "once at start, once for the rotated key");

    // Nothing the reader tried changed anything; the full client's note came and went.
    assert_eq!(protected.dir.notes(), seeded);
    assert_eq!(
        std::fs::read_to_string(protected.dir.workspace().join("reading-list.md")).unwrap(),
        seeded_reading_list
    );
}
