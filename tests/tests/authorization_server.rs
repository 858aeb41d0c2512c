//! A self-check of the authorization server harness (`mcp_rounds_tests::oauth`): discovery,
//! the JWKS, tokens for each client and what they claim, the request counters, and rotation.

use std::collections::BTreeSet;

use mcp_rounds_tests::oauth::{
    ACCESS_TOKEN_TTL, ALGORITHMS, AuthorizationServer, Client, DEFAULT_RESOURCE, TestKey, decode_unverified,
};
use serde_json::{Value, json};

const RESOURCE: &str = "http://127.0.0.1:9/mcp";

fn jwks(server: &AuthorizationServer) -> Value {
    let response = server.get(server.path_of(&server.jwks_uri()));
    assert_eq!(response.status, 200, "JWKS: {}", String::from_utf8_lossy(&response.body));
    response.json()
}

fn kids_of(jwks: &Value) -> BTreeSet<String> {
    jwks["keys"].as_array().expect("a key list").iter().map(|key| key["kid"].as_str().unwrap().to_owned()).collect()
}

fn published_kids(keys: &[TestKey]) -> BTreeSet<String> {
    keys.iter().filter(|key| key.published).map(|key| key.kid.clone()).collect()
}

#[test]
fn discovery_names_the_issuer_and_its_endpoints() {
    let server = AuthorizationServer::start();
    let port = server.issuer().strip_prefix("http://127.0.0.1:").expect("a loopback issuer");
    assert!(port.parse::<u16>().is_ok_and(|port| port > 0), "{}", server.issuer());
    let metadata = server.metadata();
    assert_eq!(metadata["jwks_uri"], format!("{}/jwks", server.issuer()));
    assert_eq!(metadata["token_endpoint"], format!("{}/token", server.issuer()));
    assert!(metadata["grant_types_supported"].as_array().unwrap().contains(&json!("client_credentials")));
    for scope in ["notes:read", "notes:write"] {
        assert!(metadata["scopes_supported"].as_array().unwrap().contains(&json!(scope)), "{metadata}");
    }
    // RFC 8414 metadata too, the same document.
    let oauth = server.get("/.well-known/oauth-authorization-server");
    assert_eq!(oauth.status, 200);
    assert_eq!(&oauth.json(), metadata);
    assert_eq!(server.get("/__control/unknown").status, 404);
}

#[test]
fn the_jwks_publishes_one_key_per_algorithm_and_counts_its_requests() {
    let server = AuthorizationServer::start();
    assert_eq!(server.jwks_requests(), 0);
    let keys = server.keys();
    assert_eq!(keys.len(), 6, "three published, three unpublished: {keys:?}");
    for alg in ALGORITHMS {
        assert_eq!(keys.iter().filter(|key| key.alg == alg && key.published).count(), 1, "{alg}");
        assert_eq!(keys.iter().filter(|key| key.alg == alg && !key.published).count(), 1, "{alg}");
    }
    for key in &keys {
        assert!(key.private_pem.starts_with("-----BEGIN PRIVATE KEY-----"), "{key:?}");
        assert!(key.public_pem.starts_with("-----BEGIN PUBLIC KEY-----"), "{key:?}");
        assert_eq!(key.public_jwk["kid"], key.kid.as_str());
        assert_eq!(key.public_jwk["alg"], key.alg.as_str());
        assert!(key.public_jwk.get("d").is_none(), "a public JWK has no private part: {key:?}");
    }

    let published = jwks(&server);
    assert_eq!(kids_of(&published), published_kids(&keys), "only the published keys are in the JWKS");
    for key in published["keys"].as_array().unwrap() {
        assert_eq!(key["use"], "sig");
        assert!(key.get("d").is_none(), "the JWKS holds public keys only: {key}");
        let described = keys.iter().find(|k| k.kid == key["kid"].as_str().unwrap()).unwrap();
        assert_eq!(key, &described.public_jwk, "the JWKS entry is the key's public JWK");
    }
    jwks(&server);
    assert_eq!(server.jwks_requests(), 2);
}

#[test]
fn tokens_are_jwt_access_tokens_for_the_requested_resource() {
    let server = AuthorizationServer::start();
    let token = server.token(Client::Full, "notes:read notes:write", RESOURCE).expect("a token");
    let (header, claims) = decode_unverified(&token);
    assert_eq!(header["alg"], "ES256");
    assert_eq!(header["typ"], "at+jwt");
    assert_eq!(header["kid"], server.key("ES256").kid.as_str());
    assert_eq!(claims["iss"], server.issuer());
    assert_eq!(claims["aud"], RESOURCE, "a single audience, as a string");
    assert_eq!(claims["sub"], "notes-full");
    assert_eq!(claims["client_id"], "notes-full");
    assert_eq!(claims["scope"], "notes:read notes:write");
    assert!(claims["jti"].as_str().is_some_and(|jti| !jti.is_empty()), "{claims}");
    let (iat, exp) = (claims["iat"].as_u64().unwrap(), claims["exp"].as_u64().unwrap());
    assert_eq!(exp - iat, ACCESS_TOKEN_TTL.as_secs());

    let reader = server.token(Client::Reader, "notes:read", RESOURCE).expect("a reader token");
    let (_, claims) = decode_unverified(&reader);
    assert_eq!(
        (&claims["sub"], &claims["client_id"], &claims["scope"]),
        (&json!("notes-reader"), &json!("notes-reader"), &json!("notes:read"))
    );

    // A scope beyond the client's is refused, not narrowed.
    let refused = server.token(Client::Reader, "notes:read notes:write", RESOURCE).expect_err("too wide a scope");
    assert!(refused.starts_with("400 ") && refused.contains("invalid_scope"), "{refused}");

    // Without a resource indicator, the token is for no resource server.
    let (_, claims) = decode_unverified(&server.token(Client::Full, "notes:read", "").expect("a token"));
    assert_eq!(claims["aud"], DEFAULT_RESOURCE);
    assert_eq!(claims["scope"], "notes:read");

    assert_eq!(server.token_requests(), 4);
}

#[test]
fn every_algorithm_signs_with_its_published_key() {
    for alg in ALGORITHMS {
        let server = AuthorizationServer::start_signing_with(alg);
        assert_eq!(server.signing_alg(), alg);
        let (header, _) = decode_unverified(&server.token(Client::Full, "notes:read", RESOURCE).expect("a token"));
        assert_eq!(header["alg"], alg);
        assert_eq!(header["kid"], server.key(alg).kid.as_str());
    }
}

#[test]
fn rotation_replaces_the_published_keys() {
    let server = AuthorizationServer::start_signing_with("EdDSA");
    let before = server.keys();
    let rotated = server.rotate();
    assert_eq!(rotated.len(), 3);
    assert!(rotated.iter().all(|key| key.published));
    assert!(published_kids(&before).is_disjoint(&published_kids(&rotated)), "new kids");

    let after = server.keys();
    assert_eq!(published_kids(&after), published_kids(&rotated));
    let unpublished =
        |keys: &[TestKey]| keys.iter().filter(|k| !k.published).map(|k| k.kid.clone()).collect::<Vec<_>>();
    assert_eq!(unpublished(&after), unpublished(&before), "the unpublished keys stay");
    assert_eq!(kids_of(&jwks(&server)), published_kids(&rotated), "the old keys left the JWKS");

    let (header, claims) = decode_unverified(&server.token(Client::Full, "notes:write", RESOURCE).expect("a token"));
    let new_key = rotated.iter().find(|key| key.alg == "EdDSA").unwrap();
    assert_eq!(header["kid"], new_key.kid.as_str(), "the new key signs");
    assert_eq!(claims["iss"], server.issuer(), "the same issuer");
    assert_eq!(server.metadata()["jwks_uri"], server.jwks_uri());
}
