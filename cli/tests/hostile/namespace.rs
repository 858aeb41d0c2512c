//! A server that is not on this machine, in a network namespace each test makes for itself
//! (root and iproute2 needed; nothing is installed): the hostile server and the command both
//! run inside it, and it has no route out. The server the command talks to is on a public
//! address (TEST-NET-3, 203.0.113.0/24, which reaches nowhere from the namespace), so that only
//! what it names for the login is on this machine or on a private network (10.77.x.0/24, where
//! a second hostile server stands for an authorization server of that network). Both serve TLS
//! with a certificate of the test's own: a client sends a login to nothing but https off its
//! machine. Without `--allow-private-addresses` the login goes to neither; with it, it does.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use mcp_rounds_tests::certs::Authority;
use serde_json::Value;

use crate::{Ran, Scratch, common, run_with};

/// A network namespace with an interface holding a public and a private address, deleted when
/// dropped, its servers stopped first.
struct Namespace {
    name: String,
    public: String,
    private: String,
    servers: Vec<Child>,
    scratch: Scratch,
}

/// One hostile server in the namespace.
struct Server {
    /// `https://ADDRESS:PORT` of the main origin.
    main: String,
    /// `https://ADDRESS:PORT` of the other origin.
    elsewhere: String,
    /// `http://127.0.0.1:PORT` of the other origin's routes, plain, on the namespace's loopback.
    plain_elsewhere: String,
    /// The port of the main origin's routes, plain, on the namespace's loopback.
    plain_main_port: String,
}

fn ip(args: &[&str]) -> std::process::Output {
    Command::new("ip").args(args).output().unwrap_or_else(|e| panic!("cannot run `ip` (iproute2): {e}"))
}

fn ip_ok(args: &[&str]) {
    let output = ip(args);
    assert!(output.status.success(), "ip {}: {}", args.join(" "), String::from_utf8_lossy(&output.stderr));
}

impl Namespace {
    fn new(test: &str) -> Namespace {
        let pid = std::process::id();
        let name = format!("mcpr-hostile-{pid}-{test}");
        let made = ip(&["netns", "add", &name]);
        assert!(
            made.status.success(),
            "this test makes a network namespace and cannot: `ip netns add {name}` says {}(it needs root)",
            String::from_utf8_lossy(&made.stderr)
        );
        // From here on, dropping it deletes the namespace, whatever fails.
        let x = pid % 250 + 1;
        let scratch = Scratch::new(&format!("ns-{test}"));
        let namespace = Namespace {
            public: format!("203.0.113.{x}"),
            private: format!("10.77.{x}.1"),
            name,
            servers: vec![],
            scratch,
        };
        let ns = namespace.name.as_str();
        ip_ok(&["-n", ns, "link", "set", "lo", "up"]);
        // A dummy interface where the kernel has them; else a pair of virtual ends, both inside.
        if !ip(&["-n", ns, "link", "add", "d0", "type", "dummy"]).status.success() {
            ip_ok(&["-n", ns, "link", "add", "d0", "type", "veth", "peer", "name", "d1"]);
            ip_ok(&["-n", ns, "link", "set", "d1", "up"]);
        }
        ip_ok(&["-n", ns, "addr", "add", &format!("{}/24", namespace.private), "dev", "d0"]);
        ip_ok(&["-n", ns, "addr", "add", &format!("{}/24", namespace.public), "dev", "d0"]);
        ip_ok(&["-n", ns, "link", "set", "d0", "up"]);
        for family in ["-4", "-6"] {
            let routes = String::from_utf8_lossy(&ip(&["-n", ns, family, "route", "show"]).stdout).into_owned();
            assert!(!routes.contains("default") && !routes.contains(" via "), "a route out: {routes}");
        }
        let authority = Authority::new("mcp-rounds hostile namespace");
        authority.write_cert(&namespace.scratch.path().join("ca.pem"));
        let certificate = authority.issue(&[&namespace.public, &namespace.private]);
        namespace.scratch.file("cert.pem", certificate.cert_pem.as_bytes());
        namespace.scratch.file("key.pem", certificate.key_pem.as_bytes());
        namespace
    }

    /// Starts a hostile server on `address` in the namespace, with TLS, and more arguments.
    fn serve(&mut self, address: &str, more: &[&str]) -> Server {
        let file = |name: &str| self.scratch.path().join(name).display().to_string();
        let program = common::hostile_server().display().to_string();
        let listen = format!("{address}:0");
        let (cert, key) = (file("cert.pem"), file("key.pem"));
        let mut child = Command::new("ip")
            .args(["netns", "exec", &self.name, &program, "--listen", &listen, "--listen-in-namespace"])
            .args(["--tls-cert", &cert, "--tls-key", &key])
            .args(more)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the hostile server in the namespace");
        let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
        self.servers.push(child);
        let mut said = Vec::new();
        let mut line = String::new();
        while !said.iter().any(|l: &String| l.starts_with("listening on ")) {
            line.clear();
            assert!(stderr.read_line(&mut line).unwrap_or(0) > 0, "the server ended before listening: {said:?}");
            said.push(line.trim().to_owned());
        }
        std::thread::spawn(move || stderr.lines().map_while(Result::ok).for_each(|l| eprintln!("{l}")));
        let after = |prefix: &str| {
            let found = said.iter().find_map(|l| l.strip_prefix(prefix));
            found.unwrap_or_else(|| panic!("no {prefix:?} in {said:?}")).trim_end_matches("/mcp").to_owned()
        };
        let plain_main = after("plain main on ");
        Server {
            main: after("listening on "),
            elsewhere: after("elsewhere on "),
            plain_elsewhere: after("plain elsewhere on "),
            plain_main_port: plain_main.rsplit(':').next().unwrap_or_default().to_owned(),
        }
    }

    /// What `server` recorded, read inside the namespace (bash's /dev/tcp, plain HTTP/1.0).
    fn record(&self, server: &Server) -> Value {
        let script = format!(
            "exec 3<>/dev/tcp/127.0.0.1/{}; printf 'GET /_record HTTP/1.0\\r\\nHost: record\\r\\n\\r\\n' >&3; cat <&3",
            server.plain_main_port
        );
        let output = Command::new("ip").args(["netns", "exec", &self.name, "bash", "-c", &script]).output();
        let output = output.expect("run bash in the namespace");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let body = text.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_else(|| panic!("no record: {text:?}"));
        serde_json::from_str(body).unwrap_or_else(|e| panic!("the record is not JSON ({e}): {body}"))
    }

    /// `mcp-rounds ARGS…` run inside the namespace, trusting the test's certificate authority.
    fn run(&self, args: &[&str]) -> Ran {
        let ca = self.scratch.path().join("ca.pem").display().to_string();
        let scratch = Scratch::new("ns-run");
        run_with(args, &[], &[("SSL_CERT_FILE", &ca)], Some(&["ip", "netns", "exec", &self.name]), &scratch)
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        for server in &mut self.servers {
            let _ = server.kill();
            let _ = server.wait();
        }
        let deleted = ip(&["netns", "delete", &self.name]);
        if !deleted.status.success() {
            eprintln!("cannot delete namespace {}: {}", self.name, String::from_utf8_lossy(&deleted.stderr));
        }
    }
}

const SECRET: &str = "s3cret-for-the-issuer";

/// The login of a machine to `server`'s `harvest`, and `more`.
fn login<'a>(url: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let login = ["tools", "call", "whoami", "--url", url, "--client-credentials", "--client-id", "c"];
    login.into_iter().chain(["--client-secret", SECRET]).chain(more.iter().copied()).collect()
}

/// Every request that reached `server`'s other origin.
fn visits(namespace: &Namespace, server: &Server) -> Vec<Value> {
    namespace.record(server)["elsewhere"].as_array().cloned().unwrap_or_default()
}

fn refused(ran: &Ran, issuer: &str, place: &str) {
    assert_eq!(ran.code, 6, "{}", ran.said());
    let said = format!(
        "mcp-rounds: refused: the authorization server the server names \"{issuer}\" is on {place}, and the server \
         that names it is not on this machine: refused"
    );
    assert!(ran.stderr.starts_with(&said), "{said:?}:\n{}", ran.said());
    assert!(ran.stderr.contains("only with --allow-private-addresses"), "{}", ran.said());
}

#[test]
fn a_server_off_this_machine_may_not_send_the_login_to_this_machine() {
    let mut namespace = Namespace::new("loopback");
    let private = namespace.private.clone();
    let near = namespace.serve(&private, &[]);
    let issuer = format!("{}/as", near.plain_elsewhere);
    let public = namespace.public.clone();
    let far = namespace.serve(&public, &["--name-issuer", &issuer]);
    let url = format!("{}/harvest/mcp", far.main);

    let ran = namespace.run(&login(&url, &["--trust-server-issuer"]));
    refused(&ran, &issuer, "this machine");
    assert_eq!(visits(&namespace, &near), Vec::<Value>::new(), "nothing went to this machine");

    // Allowed: the login goes there (which then finds it names another issuer: a refusal of
    // its own, after the request).
    let ran = namespace.run(&login(&url, &["--trust-server-issuer", "--allow-private-addresses"]));
    assert_eq!(ran.code, 6, "{}", ran.said());
    let went = visits(&namespace, &near);
    assert!(went.iter().any(|v| v["path"] == "/.well-known/oauth-authorization-server/as"), "{went:#?}");
    assert!(!Value::Array(went).to_string().contains(SECRET));
}

#[test]
fn naming_the_issuer_does_not_let_a_server_off_this_machine_send_the_login_here() {
    // `--issuer` says whose the secret is, not where a server elsewhere may send the client.
    let mut namespace = Namespace::new("named");
    let private = namespace.private.clone();
    let near = namespace.serve(&private, &[]);
    let issuer = format!("{}/as", near.plain_elsewhere);
    let public = namespace.public.clone();
    let far = namespace.serve(&public, &["--name-issuer", &issuer]);
    let url = format!("{}/harvest/mcp", far.main);
    let ran = namespace.run(&login(&url, &["--issuer", &issuer]));
    refused(&ran, &issuer, "this machine");
    assert_eq!(visits(&namespace, &near), Vec::<Value>::new(), "nothing went to this machine");
}

#[test]
fn a_server_off_this_machine_may_send_the_login_to_a_private_network_only_when_allowed() {
    let mut namespace = Namespace::new("private");
    let private = namespace.private.clone();
    let near = namespace.serve(&private, &[]);
    let issuer = format!("{}/as", near.elsewhere);
    let public = namespace.public.clone();
    let far = namespace.serve(&public, &["--name-issuer", &issuer]);
    let url = format!("{}/harvest/mcp", far.main);

    let ran = namespace.run(&login(&url, &["--trust-server-issuer"]));
    refused(&ran, &issuer, "a private or link-local network");
    assert_eq!(visits(&namespace, &near), Vec::<Value>::new(), "nothing went to the private network");

    let ran = namespace.run(&login(&url, &["--issuer", &issuer, "--allow-private-addresses"]));
    assert_eq!(ran.code, 0, "{}", ran.said());
    assert!(ran.out().contains("you hold harvested-token"), "{}", ran.said());
    let record = namespace.record(&near);
    assert_eq!(record["harvest_token"], 1, "{record:#}");
    assert!(visits(&namespace, &far).is_empty(), "the server's own other origin got nothing");
}
