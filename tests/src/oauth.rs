//! A real OAuth 2.1 authorization server for the tests: oidc-provider (npm, pinned in
//! `tests/node/`) run by `tests/node/authorization-server.mjs` on a free loopback port. It
//! issues JWT access tokens (RFC 9068) to two static clients with the client-credentials grant,
//! for the resource named by a resource indicator (RFC 8707), and has loopback control
//! endpoints to count JWKS and token requests, hand out its keys, and rotate them.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::Value;

use crate::http::{HttpResponse, request_to};
use crate::node::NodeTools;

/// The client allowed both scopes.
pub const FULL_CLIENT_ID: &str = "notes-full";
/// The secret of [`FULL_CLIENT_ID`] (`client_secret_basic`).
pub const FULL_CLIENT_SECRET: &str = "notes-full-secret-0123456789";
/// The client allowed `notes:read` only.
pub const READER_CLIENT_ID: &str = "notes-reader";
/// A person's client: public, authorization code with PKCE, refresh tokens.
pub const AGENT_CLIENT_ID: &str = "notes-agent";
/// Its redirect URI (any port of it: a loopback redirect, RFC 8252).
pub const AGENT_REDIRECT: &str = "http://127.0.0.1/callback";
/// The secret of [`READER_CLIENT_ID`] (`client_secret_basic`).
pub const READER_CLIENT_SECRET: &str = "notes-reader-secret-0123456789";
/// The resource servers' own client, for the introspection endpoint (`client_secret_basic`).
pub const INTROSPECTOR_ID: &str = "notes-introspector";
/// The secret of [`INTROSPECTOR_ID`].
pub const INTROSPECTOR_SECRET: &str = "notes-introspector-secret-0123456789";
/// The scopes every resource server has; a token carries those requested among them.
pub const SCOPES: [&str; 2] = ["notes:read", "notes:write"];
/// The audience of a token requested without a resource indicator: no resource server's.
pub const DEFAULT_RESOURCE: &str = "urn:mcp-rounds-tests:no-resource";
/// How long an access token lives (its `exp` minus its `iat`).
pub const ACCESS_TOKEN_TTL: Duration = Duration::from_secs(600);
/// The JWS algorithms the server can sign access tokens with; it has a key of each.
pub const ALGORITHMS: [&str; 3] = ["RS256", "ES256", "EdDSA"];

/// How long the server may take to start (Node.js and oidc-provider load in well under a second).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// One of the server's clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// `notes-full`, allowed `notes:read notes:write`.
    Full,
    /// `notes-reader`, allowed `notes:read`.
    Reader,
}

impl Client {
    /// Its `client_id`.
    pub fn id(self) -> &'static str {
        match self {
            Client::Full => FULL_CLIENT_ID,
            Client::Reader => READER_CLIENT_ID,
        }
    }

    /// Its client secret.
    pub fn secret(self) -> &'static str {
        match self {
            Client::Full => FULL_CLIENT_SECRET,
            Client::Reader => READER_CLIENT_SECRET,
        }
    }
}

/// A signing key of the server, with its private half so that tests can sign tokens.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestKey {
    /// Its key id (the `kid` of the JWKS entry and of the tokens it signs).
    pub kid: String,
    /// `RS256`, `ES256` or `EdDSA`.
    pub alg: String,
    /// Whether it is in the JWKS; the unpublished keys never are (tokens they sign are forgeries).
    pub published: bool,
    /// The private key, PKCS#8 PEM.
    pub private_pem: String,
    /// The public key, SPKI PEM.
    pub public_pem: String,
    /// The public key as a JWK, with `kid`, `alg` and `use`.
    pub public_jwk: Value,
}

/// A running authorization server, stopped when dropped (and when the test process dies: it
/// exits as its stdin closes).
pub struct AuthorizationServer {
    child: Child,
    stdin: Option<ChildStdin>,
    issuer: String,
    address: String,
    alg: String,
    metadata: Value,
}

impl AuthorizationServer {
    /// Starts a server that signs access tokens with ES256.
    pub fn start() -> Self {
        Self::start_signing_with("ES256")
    }

    /// Starts a server that signs access tokens with `alg` (one of [`ALGORITHMS`]) and waits
    /// for it to listen.
    pub fn start_signing_with(alg: &str) -> Self {
        Self::spawn(alg, false, None)
    }

    /// Starts a server whose access tokens live `seconds` (refresh tokens, as long as usual).
    pub fn start_with_access_token_ttl(seconds: u64) -> Self {
        Self::spawn("ES256", false, Some(seconds))
    }

    /// Starts a server that issues opaque access tokens, which only its introspection endpoint
    /// (RFC 7662) can tell anything about; [`INTROSPECTOR_ID`] may ask it.
    pub fn start_opaque() -> Self {
        Self::spawn("ES256", true, None)
    }

    fn spawn(alg: &str, opaque: bool, access_token_ttl: Option<u64>) -> Self {
        assert!(ALGORITHMS.contains(&alg), "no key for {alg}; the server signs with one of {ALGORITHMS:?}");
        let tools = NodeTools::install();
        let mut script = tools.script("authorization-server.mjs");
        script.args(["--alg", alg]);
        if opaque {
            script.arg("--opaque");
        }
        if let Some(seconds) = access_token_ttl {
            script.args(["--access-token-ttl", &seconds.to_string()]);
        }
        let mut child = script
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the authorization server: {e}"));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
        // Its stdout has one line; its stderr passes through, as the test's own.
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = stdout.lines().map_while(Result::ok);
            let _ = sender.send(lines.next());
            lines.for_each(drop);
        });
        let logs = std::thread::spawn(move || {
            let mut seen = String::new();
            for line in stderr.lines().map_while(Result::ok) {
                eprintln!("authorization server: {line}");
                if seen.len() < 64 * 1024 {
                    seen.push_str(&line);
                    seen.push('\n');
                }
            }
            seen
        });
        let line = match receiver.recv_timeout(START_TIMEOUT) {
            Ok(Some(line)) => line,
            failure => {
                let why = if matches!(failure, Err(mpsc::RecvTimeoutError::Timeout)) {
                    let _ = child.kill();
                    format!("it did not listen within {START_TIMEOUT:?}")
                } else {
                    "it exited before listening".to_owned()
                };
                let status = child.wait();
                let stderr = logs.join().unwrap_or_default();
                panic!("the authorization server did not start: {why} ({status:?}); its stderr:\n{stderr}")
            }
        };
        let issuer = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from the authorization server: {line:?}"))
            .to_owned();
        let address = issuer.strip_prefix("http://").expect("an http issuer").to_owned();
        let mut server =
            AuthorizationServer { child, stdin, issuer, address, alg: alg.to_owned(), metadata: Value::Null };
        let discovery = server.get("/.well-known/openid-configuration");
        assert_eq!(discovery.status, 200, "discovery: {}", String::from_utf8_lossy(&discovery.body));
        server.metadata = discovery.json();
        assert_eq!(server.metadata["issuer"], server.issuer.as_str(), "the metadata names the issuer");
        server
    }

    /// Its issuer, `http://127.0.0.1:PORT` (no trailing slash), which is also its base URL.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The algorithm it signs access tokens with.
    pub fn signing_alg(&self) -> &str {
        &self.alg
    }

    /// Its metadata, from `/.well-known/openid-configuration` (fetched once, at start).
    pub fn metadata(&self) -> &Value {
        &self.metadata
    }

    /// The URL of its JWKS, as its metadata says.
    pub fn jwks_uri(&self) -> String {
        self.metadata["jwks_uri"].as_str().expect("the metadata has a jwks_uri").to_owned()
    }

    /// The URL of its introspection endpoint (RFC 7662), as its metadata says.
    pub fn introspection_endpoint(&self) -> String {
        let endpoint = &self.metadata["introspection_endpoint"];
        endpoint.as_str().expect("the metadata has an introspection_endpoint").to_owned()
    }

    /// The URL of its token endpoint, as its metadata says.
    pub fn token_endpoint(&self) -> String {
        self.metadata["token_endpoint"].as_str().expect("the metadata has a token_endpoint").to_owned()
    }

    /// The path (and query) of one of its URLs.
    pub fn path_of<'a>(&self, url: &'a str) -> &'a str {
        url.strip_prefix(self.issuer.as_str())
            .filter(|path| path.starts_with('/'))
            .unwrap_or_else(|| panic!("{url} is not a URL of {}", self.issuer))
    }

    /// A GET of `path` on the server.
    pub fn get(&self, path: &str) -> HttpResponse {
        request_to(&self.address, "GET", path, &[], b"")
    }

    /// The answer of its token endpoint to a client-credentials request of `client` for `scope`
    /// and the resource indicator `resource` (each left out of the request when empty).
    pub fn token_response(&self, client: Client, scope: &str, resource: &str) -> HttpResponse {
        let mut form = vec![("grant_type", "client_credentials")];
        if !scope.is_empty() {
            form.push(("scope", scope));
        }
        if !resource.is_empty() {
            form.push(("resource", resource));
        }
        let body: Vec<String> = form.iter().map(|(name, value)| format!("{name}={}", form_encode(value))).collect();
        let credentials = STANDARD.encode(format!("{}:{}", form_encode(client.id()), form_encode(client.secret())));
        let authorization = format!("Basic {credentials}");
        let headers =
            [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", authorization.as_str())];
        let endpoint = self.token_endpoint();
        request_to(&self.address, "POST", self.path_of(&endpoint), &headers, body.join("&").as_bytes())
    }

    /// An access token for `client`, as [`token_response`](Self::token_response) asks; or the
    /// status and error body the server answered with instead.
    pub fn token(&self, client: Client, scope: &str, resource: &str) -> Result<String, String> {
        let response = self.token_response(client, scope, resource);
        let body = String::from_utf8_lossy(&response.body);
        if response.status != 200 {
            return Err(format!("{} {body}", response.status));
        }
        match response.json()["access_token"].as_str() {
            Some(token) => Ok(token.to_owned()),
            None => Err(format!("200 without an access_token: {body}")),
        }
    }

    fn stats(&self) -> Value {
        let response = self.get("/__control/stats");
        assert_eq!(response.status, 200, "stats: {}", String::from_utf8_lossy(&response.body));
        response.json()
    }

    /// How many requests reached its JWKS endpoint since it started.
    pub fn jwks_requests(&self) -> u64 {
        self.stats()["jwksRequests"].as_u64().expect("a JWKS request count")
    }

    /// How many requests reached its token endpoint since it started.
    pub fn token_requests(&self) -> u64 {
        self.stats()["tokenRequests"].as_u64().expect("a token request count")
    }

    /// How many requests reached its introspection endpoint since it started.
    pub fn introspection_requests(&self) -> u64 {
        self.stats()["introspectionRequests"].as_u64().expect("an introspection request count")
    }

    /// Its keys: the published ones (one per algorithm, in the JWKS), then the unpublished ones.
    pub fn keys(&self) -> Vec<TestKey> {
        keys_of(self.get("/__control/keys"))
    }

    /// The published key of `alg`.
    pub fn key(&self, alg: &str) -> TestKey {
        self.keys().into_iter().find(|key| key.published && key.alg == alg).expect("a published key per algorithm")
    }

    /// The unpublished key of `alg`, for signing tokens the server never issued.
    pub fn unpublished_key(&self, alg: &str) -> TestKey {
        self.keys().into_iter().find(|key| !key.published && key.alg == alg).expect("an unpublished key per algorithm")
    }

    /// Revokes every refresh token it issued, as an administrator would; how many there were.
    pub fn revoke_refresh_tokens(&self) -> u64 {
        let response = request_to(&self.address, "POST", "/__control/revoke-refresh-tokens", &[], b"");
        assert_eq!(response.status, 200, "revoke: {}", String::from_utf8_lossy(&response.body));
        response.json()["revoked"].as_u64().expect("a count")
    }

    /// Rotates its signing keys: fresh ones (new kids) replace the published ones in the JWKS
    /// and sign from now on; the old ones are gone. Returns the new keys.
    pub fn rotate(&self) -> Vec<TestKey> {
        keys_of(request_to(&self.address, "POST", "/__control/rotate", &[], b""))
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keys_of(response: HttpResponse) -> Vec<TestKey> {
    assert_eq!(response.status, 200, "keys: {}", String::from_utf8_lossy(&response.body));
    serde_json::from_slice(&response.body).expect("key descriptions")
}

/// `application/x-www-form-urlencoded` encoding of one name or value (also what
/// `client_secret_basic` applies to the id and secret).
fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => char::from(byte).to_string(),
            b' ' => "+".to_owned(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// The header and claims of a JWT, decoded but not verified.
pub fn decode_unverified(token: &str) -> (Value, Value) {
    let mut parts = token.split('.');
    let mut part = |what: &str| -> Value {
        let text = parts.next().unwrap_or_else(|| panic!("a JWT has a {what}: {token}"));
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text)
            .unwrap_or_else(|e| panic!("the JWT {what} is not base64url ({e}): {token}"));
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("the JWT {what} is not JSON ({e}): {token}"))
    };
    let header = part("header");
    let claims = part("payload");
    (header, claims)
}

impl TestKey {
    /// A JWT of `claims` signed with this key, with its `kid` (forged or not: the signature is
    /// real, whatever the claims say).
    pub fn sign(&self, claims: &Value) -> String {
        self.sign_as(Some(&self.kid), claims)
    }

    /// A JWT of `claims` signed with this key, with `kid` (none: no `kid` header).
    pub fn sign_as(&self, kid: Option<&str>, claims: &Value) -> String {
        use jsonwebtoken::{Algorithm, EncodingKey, Header};
        let pem = self.private_pem.as_bytes();
        let (alg, key) = match self.alg.as_str() {
            "RS256" => (Algorithm::RS256, EncodingKey::from_rsa_pem(pem)),
            "ES256" => (Algorithm::ES256, EncodingKey::from_ec_pem(pem)),
            "EdDSA" => (Algorithm::EdDSA, EncodingKey::from_ed_pem(pem)),
            other => panic!("no signer for {other}"),
        };
        let key = key.unwrap_or_else(|e| panic!("the {} key's PEM: {e}", self.alg));
        let mut header = Header::new(alg);
        header.typ = Some("at+jwt".into());
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &key).expect("sign a JWT")
    }

    /// The classic key-confusion forgery: `claims` signed with HS256, using this key's public
    /// PEM (which anyone can read) as the shared secret, under its `kid`.
    pub fn sign_hs256_with_public_key(&self, claims: &Value) -> String {
        use jsonwebtoken::{Algorithm, EncodingKey, Header};
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(self.kid.clone());
        let key = EncodingKey::from_secret(self.public_pem.as_bytes()).expect("any bytes are an HMAC key");
        jsonwebtoken::encode(&header, claims, &key).expect("sign a JWT")
    }
}

/// An unsigned JWT (`alg: none`, RFC 7519 §6) of `claims` under `kid`: header, payload and an
/// empty signature.
pub fn unsigned_token(kid: &str, claims: &Value) -> String {
    let encode = |value: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string());
    format!("{}.{}.", encode(&serde_json::json!({"alg": "none", "typ": "at+jwt", "kid": kid})), encode(claims))
}

/// The claims a token for `audience` from `issuer` has, for `subject` with `scope`, valid for
/// ten minutes from now.
pub fn claims(issuer: &str, audience: &str, subject: &str, scope: &str) -> Value {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    serde_json::json!({
        "iss": issuer,
        "aud": audience,
        "sub": subject,
        "client_id": subject,
        "scope": scope,
        "iat": now,
        "exp": now + 600,
        "jti": format!("test-{now}-{subject}"),
    })
}
