//! The default build stays lean: OAuth's JOSE, TLS and HTTP-client crates come only with the
//! `oauth` feature (TLS also with `postgres`, for the database link, and with nothing else of
//! OAuth's), OpenTelemetry's crates only with `otel`. Read off the dependency graph cargo
//! resolves for each feature set.

use std::collections::BTreeMap;
use std::process::Command;

/// Crates that only token verification and fetching keys need.
const OAUTH_ONLY: &[&str] =
    &["jsonwebtoken", "rsa", "p256", "p384", "ed25519-dalek", "rustls", "ring", "hyper-rustls", "reqwest"];

/// Of those, what TLS to PostgreSQL needs too.
const POSTGRES_TLS: &[&str] = &["rustls", "ring"];

/// Crates that only exporting telemetry needs.
const OTEL_ONLY: &[&str] = &[
    "opentelemetry",
    "opentelemetry_sdk",
    "opentelemetry-otlp",
    "opentelemetry-proto",
    "opentelemetry-http",
    "tracing-opentelemetry",
    "prost",
    "reqwest",
];

/// Every crate of the runtime's normal dependency graph with `args`, and its enabled features.
fn graph(args: &[&str]) -> BTreeMap<String, Vec<String>> {
    let output = Command::new(env!("CARGO"))
        .args(["tree", "-p", "mcp-rounds", "-e", "normal", "--prefix", "none", "--format", "{p}|{f}"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(output.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&output.stderr));
    let mut crates: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Some((package, features)) = line.split_once('|') else { continue };
        let name = package.split(' ').next().unwrap_or_default().to_owned();
        let features = features.trim_end_matches(" (*)").split(',').filter(|f| !f.is_empty()).map(str::to_owned);
        crates.entry(name).or_default().extend(features);
    }
    crates
}

#[test]
fn without_oauth_there_is_no_jose_tls_or_http_client() {
    for args in [&[][..], &["--no-default-features"][..], &["--features", "postgres"][..]] {
        let crates = graph(args);
        let allowed: &[&str] = if args.contains(&"postgres") { POSTGRES_TLS } else { &[] };
        let present: Vec<&str> =
            OAUTH_ONLY.iter().copied().filter(|c| crates.contains_key(*c) && !allowed.contains(c)).collect();
        assert!(present.is_empty(), "{args:?} pulls {present:?}");
        for http in ["hyper", "hyper-util"] {
            let features = crates.get(http).map(Vec::as_slice).unwrap_or_default();
            assert!(!features.iter().any(|f| f.starts_with("client")), "{args:?}: {http} is built as a client");
        }
    }
    let postgres = graph(&["--features", "postgres"]);
    assert!(POSTGRES_TLS.iter().all(|c| postgres.contains_key(*c)), "the database link is TLS by rustls with ring");
    // The check would notice them: with the feature they are there.
    let with = graph(&["--features", "oauth"]);
    assert!(with.contains_key("jsonwebtoken") && with.contains_key("hyper-rustls"));
    assert!(with["hyper"].iter().any(|f| f == "client"));
}

#[test]
fn without_otel_no_opentelemetry_crate_is_compiled() {
    for args in [&[][..], &["--no-default-features"][..], &["--features", "postgres,oauth"][..]] {
        let crates = graph(args);
        let present: Vec<&str> = OTEL_ONLY.iter().copied().filter(|c| crates.contains_key(*c)).collect();
        assert!(present.is_empty(), "{args:?} pulls {present:?}");
    }
    let with = graph(&["--features", "otel"]);
    let missing: Vec<&str> = OTEL_ONLY.iter().copied().filter(|c| !with.contains_key(*c)).collect();
    assert!(missing.is_empty(), "with otel, {missing:?} should be there");
}
