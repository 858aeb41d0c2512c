//! What goes to another origin than the server's: nothing by a redirect, headers and bearer
//! token included; a client secret only to the issuer the person named, or wherever the server
//! says with `--trust-server-issuer`, the explicit opt-in.

use base64::Engine as _;
use serde_json::Value;

use crate::{elsewhere, hostile, run};

#[test]
fn a_redirect_to_another_origin_is_not_followed_and_no_secret_goes_there() {
    let server = hostile();
    let secrets = ["-H", "X-Api-Key: secret-1", "--bearer", "secret-2"];
    let mut args = vec!["tools", "list", "--url"];
    let url = server.url("redirect");
    args.push(&url);
    args.extend(secrets);
    let ran = run(&args);
    assert_eq!(ran.code, 4, "{}", ran.said());
    let target = format!("{}/stolen/mcp", server.elsewhere_origin());
    let said = format!("HTTP 307: the server redirects to {target}, which the client does not follow");
    assert!(ran.stderr.contains(&said), "{}", ran.said());
    let record = server.record();
    assert_eq!(elsewhere(&record), &Vec::<Value>::new(), "nothing reached the other origin");
    let everything = record.to_string();
    assert!(!everything.contains("secret-1") && !everything.contains("secret-2"), "{record:#}");

    // Within the server's origin, a redirect is followed.
    let url = server.url("redirect-same");
    let mut args = vec!["tools", "list", "--url", &url];
    args.extend(secrets);
    let ran = run(&args);
    assert_eq!(ran.code, 0, "{}", ran.said());
    assert!(ran.out().starts_with("show — show [hostile]"), "the tools of `escapes`, where it led: {}", ran.said());
    assert_eq!(server.record()["requests"]["escapes"].as_u64(), Some(2), "discover and tools/list, followed there");
    assert_eq!(elsewhere(&server.record()), &Vec::<Value>::new());
}

#[test]
fn a_client_secret_goes_only_to_the_issuer_it_belongs_to() {
    let server = hostile();
    let url = server.url("harvest");
    let secret = "s3cret-of-the-client";
    // The secret as the token request carries it in HTTP Basic authentication.
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("c:{secret}"));
    let login = [
        "tools",
        "call",
        "whoami",
        "--url",
        &url,
        "--client-credentials",
        "--client-id",
        "c",
        "--client-secret",
        secret,
    ];
    let with = |more: &[&'static str]| -> Vec<&str> { login.iter().copied().chain(more.iter().copied()).collect() };
    let nowhere = |what: &str| {
        let record = server.record();
        assert_eq!(elsewhere(&record), &Vec::<Value>::new(), "{what}: nothing reached the other origin");
        let everything = record.to_string();
        assert!(!everything.contains(secret) && !everything.contains(&basic), "{what}: {record:#}");
        assert_eq!(record["harvest_token"], 0, "{what}");
    };

    // No issuer named: not sent at all, and said which option is missing.
    let ran = run(&login);
    assert_eq!(ran.code, 2, "{}", ran.said());
    assert!(
        ran.stderr.contains(
            "--client-secret is sent only to the authorization server it belongs to: name it with --issuer URL"
        ),
        "{}",
        ran.said()
    );
    nowhere("no --issuer");

    // Another issuer named than the server's: refused.
    let ran = run(&with(&["--issuer", "http://127.0.0.1:9/legit"]));
    assert_eq!(ran.code, 6, "{}", ran.said());
    let named = format!("{}/as", server.elsewhere_origin());
    let refused = format!(
        "mcp-rounds: refused: the server names authorization server \"{named}\", but the client credentials are for \
         \"http://127.0.0.1:9/legit\": they are sent to their own issuer only"
    );
    assert!(ran.stderr.starts_with(&refused), "{}", ran.said());
    nowhere("--issuer elsewhere");

    // The explicit opt-in: the secret goes where the server says, and the call goes through.
    let ran = run(&with(&["--trust-server-issuer"]));
    assert_eq!(ran.code, 0, "{}", ran.said());
    assert!(ran.out().contains("you hold harvested-token"), "{}", ran.said());
    let record = server.record();
    assert_eq!(record["harvest_token"], 1, "{record:#}");
    let token_request = elsewhere(&record).iter().find(|v| v["method"] == "POST" && v["path"] == "/as/token");
    let token_request = token_request.unwrap_or_else(|| panic!("no token request: {record:#}"));
    let carried = token_request["headers"]["authorization"] == format!("Basic {basic}")
        || token_request["body"].as_str().is_some_and(|b| b.contains(secret));
    assert!(carried, "the token request carries the secret: {token_request:#}");
}
