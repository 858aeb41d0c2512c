//! Verifying a JWT access token (RFC 9068): its signature against the authorization server's
//! keys, then its issuer, audience and validity period; then the principal it stands for.

use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};

use super::keys::KeyCache;
use crate::context::Principal;
use crate::model::JsonObject;
use crate::transport::http::Unauthorized;

/// The signature algorithms accepted: asymmetric ones only. An HMAC-signed token would be
/// verified with a key everyone can read from the key set.
const ASYMMETRIC: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// What a token must satisfy besides its signature.
pub(super) struct Expectations<'a> {
    pub(super) issuer: &'a str,
    pub(super) audience: &'a str,
    pub(super) leeway: Duration,
}

/// The principal `token` stands for, or why it stands for none.
pub(super) async fn verify_jwt(
    token: &str,
    keys: &KeyCache,
    expect: &Expectations<'_>,
) -> Result<Principal, Unauthorized> {
    let header = jsonwebtoken::decode_header(token)
        .map_err(|_| refuse("The token's header is malformed, or names no algorithm this server accepts"))?;
    if !ASYMMETRIC.contains(&header.alg) {
        return Err(refuse("The token is signed with a shared secret; only public-key signatures are accepted"));
    }
    // RFC 9068 types access tokens `at+jwt`; many servers say `JWT` or nothing. Anything else
    // (an ID token's or a logout token's type) is another kind of token.
    if let Some(typ) = header.typ.as_deref()
        && !["at+jwt", "application/at+jwt", "jwt"].iter().any(|t| t.eq_ignore_ascii_case(typ))
    {
        return Err(refuse("The token is not an access token"));
    }
    let candidates = keys.candidates(header.kid.as_deref(), header.alg).await;
    if candidates.is_empty() {
        return Err(refuse("The token is signed by a key the authorization server does not publish"));
    }

    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[expect.issuer]);
    validation.set_audience(&[expect.audience]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.validate_nbf = true;
    validation.leeway = expect.leeway.as_secs();
    let mut last = None;
    for key in candidates {
        match jsonwebtoken::decode::<JsonObject>(token, &key.decoding, &validation) {
            Ok(data) => return principal(data.claims),
            // Another key of the same id-less set may have signed it.
            Err(e) if matches!(e.kind(), ErrorKind::InvalidSignature) => last = Some(e),
            Err(e) => return Err(refuse(describe(e.kind()))),
        }
    }
    Err(refuse(last.as_ref().map_or("The token's signature does not verify", |e| describe(e.kind()))))
}

fn describe(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidSignature => "The token's signature does not verify",
        ErrorKind::ExpiredSignature => "The token has expired",
        ErrorKind::ImmatureSignature => "The token is not valid yet",
        ErrorKind::InvalidIssuer => "The token was issued by another authorization server",
        ErrorKind::InvalidAudience => "The token is for another resource",
        ErrorKind::MissingRequiredClaim(claim) => match claim.as_str() {
            "exp" => "The token has no expiry (exp)",
            "iss" => "The token names no issuer (iss)",
            "aud" => "The token names no audience (aud)",
            _ => "The token names no subject (sub)",
        },
        _ => "The token is malformed",
    }
}

fn refuse(why: &'static str) -> Unauthorized {
    tracing::debug!(why, "access token refused");
    Unauthorized::invalid_token(why)
}

/// The principal of verified `claims`: its subject, its scopes (`scope`, space-separated as
/// RFC 9068 has it, or `scp`, a list, as some servers send) and the claims themselves.
pub(super) fn principal(claims: JsonObject) -> Result<Principal, Unauthorized> {
    principal_named_by(claims, "sub")
}

/// [`principal`], its subject taken from the claim `subject_claim`.
pub(super) fn principal_named_by(claims: JsonObject, subject_claim: &str) -> Result<Principal, Unauthorized> {
    let subject = match claims.get(subject_claim).and_then(|s| s.as_str()) {
        Some(subject) if !subject.is_empty() => subject.to_owned(),
        _ => return Err(refuse("The token names no subject (sub)")),
    };
    Ok(Principal::new(subject).with_scopes(scopes(&claims)).with_claims(claims))
}

fn scopes(claims: &JsonObject) -> Vec<String> {
    let words = |text: &str| text.split_ascii_whitespace().map(str::to_owned).collect::<Vec<_>>();
    match (claims.get("scope"), claims.get("scp")) {
        (Some(serde_json::Value::String(scope)), _) => words(scope),
        (_, Some(serde_json::Value::String(scp))) => words(scp),
        (_, Some(serde_json::Value::Array(scp))) => scp.iter().filter_map(|s| s.as_str()).flat_map(words).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: serde_json::Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let spaced = principal(claims(json!({"sub": "a", "scope": "notes:read  notes:write"}))).unwrap();
        assert_eq!(spaced.scopes().unwrap().len(), 2);
        let listed = principal(claims(json!({"sub": "a", "scp": ["notes:read"]}))).unwrap();
        assert!(listed.has_scope("notes:read") && !listed.has_scope("notes:write"));
        let none = principal(claims(json!({"sub": "a"}))).unwrap();
        assert!(!none.has_scope("notes:read"), "a token without scopes grants none");
        assert_eq!(none.claims().unwrap()["sub"], "a");
        assert!(principal(claims(json!({"sub": ""}))).is_err());
        assert!(principal(claims(json!({"sub": 7}))).is_err());
    }
}
