//! The OAuth metadata documents a server and its authorization server hand the client, and
//! where the client lets them send it: whatever the body, reading it never panics; the
//! authorization server the client goes to is the first one the resource metadata names,
//! https (or http on this machine), and, named by a server that is not on this machine,
//! neither on this machine nor on a private or link-local network; a resource metadata
//! document is taken only for its own server's origin; an authorization server's metadata is
//! taken only for its own issuer, with endpoints (token, authorization, registration) under
//! the same rule; and whatever passes the rule is taken.
//!
//! Input: a metadata document as served (starting with `{`), tried against servers and
//! issuers on this machine and off it; or what builds documents and addresses field by field.

#![no_main]

use std::net::{Ipv4Addr, Ipv6Addr};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use mcp_rounds::client::address::Reach;
use mcp_rounds::client::fuzzing::{resource_metadata, server_metadata};
use serde_json::{Value, json};
use url::{Host, Url};

/// Servers (MCP endpoints) and issuers the documents are read for: on this machine, on a
/// private network, and off both.
const SERVERS: [&str; 6] = [
    "https://mcp.example.com/mcp",
    "https://mcp.example.com",
    "http://127.0.0.1:8000/mcp",
    "http://localhost:3000/api/mcp/",
    "https://10.0.0.7/mcp",
    "https://[::1]:8443/mcp",
];
const ISSUERS: [&str; 6] = [
    "https://auth.example.com",
    "https://auth.example.com/realms/mcp",
    "http://localhost:9000",
    "http://127.0.0.1:9000/oidc/",
    "https://192.168.1.20",
    "https://accounts.example.org/",
];

/// Hosts as a server may write them: every spelling of this machine and of private networks
/// the URL standard reads (and some it turns into others), and public ones.
const HOSTS: [&str; 40] = [
    "localhost",
    "LOCALHOST",
    "app.localhost",
    "localhost.",
    "localhost..",
    "localhost.example.com",
    "127.0.0.1",
    "127.1",
    "127.0.0.1.",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "2130706433",
    "127.255.255.254",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::127.0.0.1]",
    "10.0.0.1",
    "10.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "0",
    "255.255.255.255",
    "[::]",
    "[fe80::1]",
    "[fd00::1]",
    "[fc00::1]",
    "[::ffff:10.0.0.1]",
    "[::ffff:169.254.169.254]",
    "auth.example.com",
    "xn--exmple-4nf.com",
    "8.8.8.8",
    "172.32.0.1",
    "[2001:db8::1]",
    "%6c%6fcalhost",
];
const SCHEMES: [&str; 8] = ["https", "http", "HTTPS", "Http", "ftp", "javascript", "file", "wss"];

/// Where a host is, read here from the URL standard's own parse of it (not from its text).
fn place(url: &Url) -> Option<Reach> {
    Some(match url.host()? {
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") { Reach::Loopback } else { Reach::Public }
        }
        Host::Ipv4(ip) => place_v4(ip),
        Host::Ipv6(ip) => place_v6(ip),
    })
}

fn place_v4(ip: Ipv4Addr) -> Reach {
    let [a, b, ..] = ip.octets();
    match (a, b) {
        (127, _) => Reach::Loopback,
        (10, _) | (192, 168) | (169, 254) => Reach::Private,
        (172, 16..=31) | (100, 64..=127) => Reach::Private,
        _ if ip == Ipv4Addr::UNSPECIFIED || ip == Ipv4Addr::BROADCAST => Reach::Private,
        _ => Reach::Public,
    }
}

fn place_v6(ip: Ipv6Addr) -> Reach {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return place_v4(v4);
    }
    let first = ip.segments()[0];
    if ip == Ipv6Addr::LOCALHOST {
        Reach::Loopback
    } else if ip == Ipv6Addr::UNSPECIFIED || first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfe80 {
        Reach::Private
    } else {
        Reach::Public
    }
}

/// Whether a server at `server` may send the client to `target`: https, or http on this
/// machine; no credentials in it; and, from a server not on this machine, nowhere on this
/// machine or on a private network.
fn allowed(target: &str, server: Reach) -> bool {
    let Ok(url) = Url::parse(target) else { return false };
    let Some(reach) = place(&url) else { return false };
    if !["http", "https"].contains(&url.scheme()) || !url.username().is_empty() || url.password().is_some() {
        return false;
    }
    // (Only where the host is an address or a name: another scheme's host is opaque text.)
    assert_eq!(Reach::of_url(target), Some(reach), "the client places {target:?} elsewhere");
    let secure = url.scheme() == "https" || (url.scheme() == "http" && reach == Reach::Loopback);
    secure && (server == Reach::Loopback || reach == Reach::Public)
}

/// Where a server is: only a web server (http, https) is anywhere; any other scheme is taken
/// as far off as can be.
fn server_place(server: &str) -> Reach {
    let url = Url::parse(server).ok().filter(|url| ["http", "https"].contains(&url.scheme()));
    url.and_then(|url| place(&url)).unwrap_or(Reach::Public)
}

/// Reads `body` as `server`'s resource metadata: the authorization server the client may go
/// to is the first one named, if the rule allows it; and a document is taken only for its own
/// server's origin.
fn check_resource(body: &[u8], server: &str) {
    let Ok(found) = resource_metadata(body, server) else { return };
    let Some(document) = json_value(body) else { return };
    let resource = document["resource"].as_str().expect("a resource");
    let same_origin =
        Url::parse(resource).ok().zip(Url::parse(server).ok()).is_some_and(|(r, s)| r.origin() == s.origin());
    assert!(same_origin, "{server} took the metadata of resource {resource:?}");
    let first = document["authorization_servers"].get(0).and_then(Value::as_str);
    let expected = first.filter(|issuer| allowed(issuer, server_place(server)));
    // The entry point gives the URL as parsed (`http://as` as `http://as/`).
    let parsed = |url: &str| Url::parse(url).unwrap_or_else(|e| panic!("{url:?} given, not a URL: {e}"));
    assert_eq!(
        found.as_deref().map(parsed),
        expected.map(parsed),
        "the authorization server {server} may send the client to, of {:?}",
        document["authorization_servers"]
    );
}

/// Reads `body` as `issuer`'s metadata: taken only for that issuer, and only with endpoints the
/// rule allows from there.
fn check_server(body: &[u8], issuer: &str) -> bool {
    let taken = server_metadata(body, issuer).is_ok();
    if taken && let Some(document) = json_value(body) {
        assert_eq!(document["issuer"].as_str(), Some(issuer), "the metadata of another issuer taken");
        for endpoint in ENDPOINTS {
            if let Some(url) = document[endpoint].as_str() {
                assert!(allowed(url, server_place(issuer)), "{issuer} sends the client to {url:?} ({endpoint})");
            }
        }
    }
    taken
}

/// The document as a `Value`, unless it is deeper than a `Value` reads or has invalid UTF-8
/// in a member the client skips (which the client's reading lets through: harmless here).
fn json_value(body: &[u8]) -> Option<Value> {
    serde_json::from_slice(body).ok()
}

const ENDPOINTS: [&str; 3] = ["token_endpoint", "authorization_endpoint", "registration_endpoint"];

/// Text with only what a URL's path or user part may hold as is.
fn plain(text: &str, keep: &str) -> String {
    text.chars().filter(|c| c.is_ascii_alphanumeric() || keep.contains(*c)).take(40).collect()
}

#[derive(Arbitrary, Debug)]
enum HostSpec {
    Listed(u8),
    V4([u8; 4]),
    V6([u16; 8]),
    Name(String),
}

/// A URL built part by part, or any text at all.
#[derive(Arbitrary, Debug)]
enum UrlSpec {
    Built {
        scheme: u8,
        user: Option<(String, Option<String>)>,
        host: HostSpec,
        port: Option<u16>,
        path: String,
    },
    /// Another place on the same origin as the server or issuer.
    Relative(String),
    Text(String),
}

impl UrlSpec {
    fn write(&self, base: &str) -> String {
        match self {
            UrlSpec::Built { scheme, user, host, port, path } => {
                let scheme = SCHEMES[usize::from(*scheme) % SCHEMES.len()];
                let user = match user {
                    Some((name, Some(password))) => format!("{}:{}@", plain(name, "-._"), plain(password, "-._")),
                    Some((name, None)) => format!("{}@", plain(name, "-._")),
                    None => String::new(),
                };
                let host = match host {
                    HostSpec::Listed(at) => HOSTS[usize::from(*at) % HOSTS.len()].to_owned(),
                    HostSpec::V4(octets) => Ipv4Addr::from(*octets).to_string(),
                    HostSpec::V6(segments) => format!("[{}]", Ipv6Addr::from(*segments)),
                    HostSpec::Name(name) => plain(name, "-.%[]:"),
                };
                let port = port.map(|port| format!(":{port}")).unwrap_or_default();
                format!("{scheme}://{user}{host}{port}/{}", plain(path, "-._~/%"))
            }
            UrlSpec::Relative(path) => {
                let origin = Url::parse(base).map(|url| url.origin().ascii_serialization()).unwrap_or_default();
                format!("{origin}/{}", plain(path, "-._~/"))
            }
            UrlSpec::Text(text) => text.clone(),
        }
    }
}

/// Where a document is served from: one of the usual ones, or any.
#[derive(Arbitrary, Debug)]
enum At {
    Listed(u8),
    Built(UrlSpec),
}

#[derive(Arbitrary, Debug)]
enum ResourceSpec {
    /// The server's URL itself.
    Server,
    /// The server's origin, with or without a slash.
    Origin(bool),
    Other(UrlSpec),
}

#[derive(Arbitrary, Debug)]
struct ResourceDocument {
    server: At,
    resource: ResourceSpec,
    authorization_servers: Vec<UrlSpec>,
    scopes_supported: Option<Vec<String>>,
}

#[derive(Arbitrary, Debug)]
struct ServerDocument {
    issuer: At,
    /// The issuer the document names, when not the one it is read for.
    names: Option<UrlSpec>,
    token_endpoint: UrlSpec,
    authorization_endpoint: Option<UrlSpec>,
    registration_endpoint: Option<UrlSpec>,
    /// Endpoints the client never goes to, which it need not check.
    jwks_uri: Option<UrlSpec>,
    scopes_supported: Option<Vec<String>>,
    code_challenge_methods_supported: Option<Vec<String>>,
}

#[derive(Arbitrary, Debug)]
struct Built {
    resource: ResourceDocument,
    server: ServerDocument,
}

fn at(at: &At, listed: &[&str]) -> String {
    match at {
        At::Listed(i) => listed[usize::from(*i) % listed.len()].to_owned(),
        At::Built(spec) => spec.write(listed[0]),
    }
}

fn built(input: &[u8]) {
    let Ok(Built { resource, server }) = Built::arbitrary_take_rest(Unstructured::new(input)) else { return };

    let url = at(&resource.server, &SERVERS);
    let named = match &resource.resource {
        ResourceSpec::Server => url.clone(),
        ResourceSpec::Origin(slash) => {
            let origin = Url::parse(&url).map(|u| u.origin().ascii_serialization()).unwrap_or_default();
            if *slash { format!("{origin}/") } else { origin }
        }
        ResourceSpec::Other(spec) => spec.write(&url),
    };
    let mut document = json!({
        "resource": named,
        "authorization_servers": resource.authorization_servers.iter().map(|s| s.write(&url)).collect::<Vec<_>>(),
    });
    if let Some(scopes) = resource.scopes_supported {
        document["scopes_supported"] = json!(scopes);
    }
    check_resource(document.to_string().as_bytes(), &url);

    let issuer = at(&server.issuer, &ISSUERS);
    let names = server.names.as_ref().map_or_else(|| issuer.clone(), |spec| spec.write(&issuer));
    let mut document = json!({ "issuer": names, "token_endpoint": server.token_endpoint.write(&issuer) });
    let optional = [
        ("authorization_endpoint", &server.authorization_endpoint),
        ("registration_endpoint", &server.registration_endpoint),
        ("jwks_uri", &server.jwks_uri),
    ];
    for (name, spec) in optional {
        if let Some(spec) = spec {
            document[name] = json!(spec.write(&issuer));
        }
    }
    for (name, list) in [
        ("scopes_supported", server.scopes_supported),
        ("code_challenge_methods_supported", server.code_challenge_methods_supported),
    ] {
        if let Some(list) = list {
            document[name] = json!(list);
        }
    }
    let taken = check_server(document.to_string().as_bytes(), &issuer);
    // Whatever the rule allows is taken: a document for this issuer with every endpoint fit.
    let fit = names == issuer
        && Url::parse(&issuer).is_ok()
        && ENDPOINTS.iter().all(|e| document[*e].as_str().is_none_or(|url| allowed(url, server_place(&issuer))));
    assert_eq!(taken, fit, "the metadata of {issuer}: {document}");
}

fuzz_target!(|input: &[u8]| {
    if input.first() != Some(&b'{') {
        built(input);
        return;
    }
    let document: Option<Value> = serde_json::from_slice(input).ok();
    let own = |name: &str| document.as_ref().and_then(|d| d[name].as_str()).map(str::to_owned);
    for server in SERVERS.iter().map(|s| (*s).to_owned()).chain(own("resource")) {
        check_resource(input, &server);
    }
    for issuer in ISSUERS.iter().map(|s| (*s).to_owned()).chain(own("issuer")) {
        check_server(input, &issuer);
    }
});
