//! `mcp-rounds login`, and every command after it using the kept login, against the notes server
//! behind a real authorization server (npm `oidc-provider`): the browser's pages completed by
//! the test as a person would, a refresh nobody notices, a revoked login that says to log in
//! again with exit code 6, a machine's client credentials, and no secret in any output, with
//! `--verbose` and `RUST_LOG=trace`.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{NotesData, SCREEN_TIMEOUT, mcp_rounds, notes_server, text};
use mcp_rounds_tests::http::{HttpProcess, request_to};
use mcp_rounds_tests::oauth::{AGENT_CLIENT_ID, AuthorizationServer, FULL_CLIENT_ID, FULL_CLIENT_SECRET};
use mcp_rounds_tests::{browser, wait};
use serde_json::Value;

/// How long the authorization server's access tokens live here.
const TTL: Duration = Duration::from_secs(3);

struct Session {
    config_home: std::path::PathBuf,
    url: String,
    /// Everything the command printed, to search for secrets.
    printed: String,
}

impl Session {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(mcp_rounds());
        command
            .args(args)
            .args(["--url", &self.url, "--verbose"])
            .env("XDG_CONFIG_HOME", &self.config_home)
            .env("RUST_LOG", "trace")
            .env_remove("MCP_BEARER_TOKEN")
            .stdin(Stdio::null());
        command
    }

    fn run(&mut self, args: &[&str], envs: &[(&str, &str)]) -> Output {
        let output = self.command(args).envs(envs.iter().copied()).output().expect("run mcp-rounds");
        self.printed.push_str(&text(&output.stdout));
        self.printed.push_str(&text(&output.stderr));
        output
    }

    fn kept(&self) -> Value {
        let path = self.config_home.join("mcp-rounds/logins.json");
        let logins: Value = serde_json::from_slice(&std::fs::read(path).unwrap_or_default()).unwrap_or_default();
        logins[&self.url].clone()
    }
}

#[test]
fn a_person_logs_in_once_and_every_later_command_uses_and_refreshes_the_login() {
    let auth = AuthorizationServer::start_with_access_token_ttl(TTL.as_secs());
    let data = NotesData::new("cli-login");
    data.seed(&notes_server());
    data.trust(&auth, &["alice", FULL_CLIENT_ID]);
    let server = HttpProcess::spawn(notes_server().to_str().unwrap(), &["--data", data.arg()]);
    let config_home = data.beside("config");
    let mut session = Session { config_home, url: format!("http://{}/mcp", server.address), printed: String::new() };

    // `login` prints the page to open and waits for the browser to come back.
    let mut login = session
        .command(&["login", "--client-id", AGENT_CLIENT_ID])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, received) = mpsc::channel();
    let stderr = BufReader::new(login.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in stderr.lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
            let _ = lines.send(line);
        }
        all
    });
    let page = loop {
        let line = received.recv_timeout(SCREEN_TIMEOUT).expect("the page to open");
        if let Some(url) = line.trim().strip_prefix("http://").filter(|_| line.contains("/auth?")) {
            break format!("http://{url}");
        }
    };
    let redirect_uri = query_value(&page, "redirect_uri").expect("a redirect_uri");
    assert!(redirect_uri.starts_with("http://127.0.0.1:") && redirect_uri.ends_with("/callback"), "{redirect_uri}");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let back = runtime.block_on(browser::sign_in(&page, &redirect_uri, "alice")).expect("alice signs in");
    let code = query_value(&back, "code").expect("a code");
    let loopback = back.trim_start_matches("http://").split('/').next().unwrap().to_owned();
    let path = &back[back.find("/callback").unwrap()..];
    let answered = request_to(&loopback, "GET", path, &[], b"");
    assert_eq!(answered.status, 200, "the command's loopback page");
    let output = login.wait_with_output().unwrap();
    let stdout = text(&output.stdout);
    session.printed.push_str(&stdout);
    session.printed.push_str(&reader.join().unwrap());
    assert_eq!(output.status.code(), Some(0), "{}", session.printed);
    assert!(stdout.contains(&format!("Logged in to {} (issuer {})", session.url, auth.issuer())), "{stdout}");

    let file = session.config_home.join("mcp-rounds/logins.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600, "the user's alone");
    let first = session.kept();
    let logged_in = Instant::now();
    let mut secrets = vec![code, first["access_token"].as_str().unwrap().to_owned()];
    secrets.push(first["refresh_token"].as_str().expect("offline access: a refresh token").to_owned());

    // Later commands use the kept login, never asking anyone.
    let workspace = format!("workspaceUri={}", data.workspace_uri());
    let listed =
        session.run(&["--json", "tools", "call", "notes_list", &workspace, "query=tps", "--stored-auth-only"], &[]);
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["structuredContent"]["notes"].as_array().map(Vec::len), Some(3));

    // Past the access token's life: refreshed on the way, and kept.
    wait::until(logged_in + TTL);
    let again = session.run(&["tools", "list", "--stored-auth-only"], &[]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let refreshed = session.kept();
    assert_ne!(refreshed["access_token"], first["access_token"], "a new access token, kept");
    secrets.push(refreshed["access_token"].as_str().unwrap().to_owned());
    let refreshed_at = Instant::now();

    // The login revoked: once the token is past its life, "log in again", exit 6.
    assert!(auth.revoke_refresh_tokens() >= 1);
    wait::until(refreshed_at + TTL);
    let revoked = session.run(&["tools", "list", "--stored-auth-only"], &[]);
    assert_eq!(revoked.status.code(), Some(6), "{}", text(&revoked.stderr));
    assert!(text(&revoked.stderr).contains("log in again"), "{}", text(&revoked.stderr));
    let none = session.run(&["tools", "list", "--stored-auth-only"], &[]);
    assert_eq!(none.status.code(), Some(6));
    let hint = format!("log in with `mcp-rounds login --url {}`", session.url);
    assert!(text(&none.stderr).contains(&hint), "{}", text(&none.stderr));
    let logout = session.run(&["logout"], &[]);
    assert_eq!(text(&logout.stdout), format!("No login was kept for {}\n", session.url));

    // A machine logs in with its client credentials, its secret from the environment, sent to
    // the issuer it names (and without naming one, to none).
    let unnamed = session.run(
        &["tools", "list", "--client-credentials", "--client-id", FULL_CLIENT_ID],
        &[("MCP_CLIENT_SECRET", FULL_CLIENT_SECRET)],
    );
    assert_eq!(unnamed.status.code(), Some(2), "{}", text(&unnamed.stderr));
    assert!(text(&unnamed.stderr).contains("--issuer URL"), "{}", text(&unnamed.stderr));
    let machine = session.run(
        &["--json", "tools", "list", "--client-credentials", "--client-id", FULL_CLIENT_ID, "--issuer", auth.issuer()],
        &[("MCP_CLIENT_SECRET", FULL_CLIENT_SECRET)],
    );
    assert_eq!(machine.status.code(), Some(0), "{}", text(&machine.stderr));
    secrets.push(FULL_CLIENT_SECRET.to_owned());

    for secret in &secrets {
        assert!(!session.printed.contains(secret.as_str()), "a secret was printed: {secret:.12}…");
    }
    server.stop();
}

/// A query parameter of `url`, decoded.
fn query_value(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| percent_encoding::percent_decode_str(value).decode_utf8_lossy().into_owned())
    })
}
