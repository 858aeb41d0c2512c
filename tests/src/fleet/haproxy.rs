//! HAProxy in front of the fleet: round-robin over HTTP, health checks that ask each instance
//! `server/discover` for real, retries only where a request never reached an instance, and the
//! instance that answered named in a response header. Started in master-worker mode, so that a
//! reload (SIGUSR2) starts a new worker on the same sockets while the old one finishes.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::instance::{free_port, wait_for_port};

/// The response header that names the instance that answered.
pub const SERVED_BY: &str = "x-served-by";

/// The body of the health check: a `server/discover` any instance answers with 200.
const CHECK_BODY: &str = r#"{"jsonrpc":"2.0","id":"health","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"haproxy","version":"2.6"}}}}"#;

/// The configuration: the frontend on `port`, each of `servers` (name, port) checked with
/// `check_token`, the admin socket at `socket`.
pub fn config(port: u16, servers: &[(String, u16)], check_token: &str, socket: &str) -> String {
    let mut text = format!(
        r#"global
    master-worker
    stats socket {socket} mode 600 level admin expose-fd listeners
    # After a reload the old worker keeps its streams this long, then closes them.
    hard-stop-after 5s

defaults
    mode http
    timeout connect 1s
    timeout client 60s
    # Longer than the servers' keep-alive on idle streams (15 s).
    timeout server 30s
    timeout check 1s
    # Only a request that never reached an instance is sent again, to another one.
    retries 3
    retry-on conn-failure
    option redispatch 1

frontend mcp
    bind 127.0.0.1:{port}
    default_backend notes

backend notes
    balance roundrobin
    option httpchk
    http-check send meth POST uri /mcp ver HTTP/1.1 hdr Host 127.0.0.1 hdr Content-Type application/json hdr Accept "application/json, text/event-stream" hdr MCP-Protocol-Version 2026-07-28 hdr Mcp-Method server/discover hdr Authorization "Bearer {check_token}" body '{CHECK_BODY}'
    http-check expect status 200
    default-server inter 500ms fastinter 250ms downinter 500ms rise 2 fall 2
    http-response set-header X-Served-By %[srv_name]
"#
    );
    for (name, server_port) in servers {
        text.push_str(&format!("    server {name} 127.0.0.1:{server_port} check\n"));
    }
    text
}

/// A running HAProxy.
pub struct Haproxy {
    child: Child,
    /// The frontend's loopback port.
    pub port: u16,
    socket: PathBuf,
}

impl Haproxy {
    /// Writes the configuration into `dir` and starts HAProxy; returns once the frontend
    /// accepts connections.
    pub fn start(dir: &Path, servers: &[(String, u16)], check_token: &str) -> Self {
        let port = free_port();
        let socket = dir.join("haproxy.sock");
        let path = dir.join("haproxy.cfg");
        let text = config(port, servers, check_token, socket.to_str().expect("a UTF-8 path"));
        std::fs::write(&path, text).expect("write haproxy.cfg");
        let log = std::fs::File::create(dir.join("haproxy.log")).expect("create haproxy.log");
        let child = Command::new("haproxy")
            .args(["-W", "-db", "-f"])
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::from(log.try_clone().expect("clone the log")))
            .stderr(Stdio::from(log))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start haproxy (install Debian's package `haproxy`): {e}"));
        let haproxy = Haproxy { child, port, socket };
        assert!(wait_for_port(port, Instant::now() + Duration::from_secs(20)), "haproxy did not listen on {port}");
        haproxy
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Sends `command` to the admin socket of the current worker and returns its answer.
    pub fn admin(&self, command: &str) -> Result<String, String> {
        let mut stream = UnixStream::connect(&self.socket).map_err(|e| format!("haproxy's socket: {e}"))?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).map_err(|e| e.to_string())?;
        stream.write_all(format!("{command}\n").as_bytes()).map_err(|e| e.to_string())?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).map_err(|e| e.to_string())?;
        Ok(answer)
    }

    /// Each server's name and health check status (`UP`, `DOWN`, `UP 1/2`, …).
    pub fn server_states(&self) -> Result<Vec<(String, String)>, String> {
        let stat = self.admin("show stat")?;
        let mut lines = stat.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().trim_start_matches("# ").split(',').collect();
        let column = |name: &str| header.iter().position(|c| *c == name).ok_or(format!("no {name} in show stat"));
        let (proxy, server, status) = (column("pxname")?, column("svname")?, column("status")?);
        Ok(lines
            .map(|line| line.split(',').collect::<Vec<_>>())
            .filter(|fields| fields.get(proxy) == Some(&"notes"))
            .filter(|fields| !matches!(fields.get(server), Some(&"BACKEND" | &"FRONTEND")))
            .map(|fields| (fields[server].to_owned(), fields[status].to_owned()))
            .collect())
    }

    /// Waits until every server is `UP`; how long it took, or the states at the deadline.
    pub fn wait_all_up(&self, deadline: Instant) -> Result<(), String> {
        loop {
            let states = self.server_states();
            if let Ok(states) = &states
                && !states.is_empty()
                && states.iter().all(|(_, status)| status == "UP")
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!("not every server came up: {states:?}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn worker_pid(&self) -> Option<String> {
        let info = self.admin("show info").ok()?;
        info.lines().find_map(|l| l.strip_prefix("Pid: ")).map(str::to_owned)
    }

    /// Sets backend server `name`'s administrative state (`maint`: no new request goes to it,
    /// those it has finish; `ready`: back in rotation once its health check passes).
    pub fn set_state(&self, name: &str, state: &str) -> Result<(), String> {
        let answer = self.admin(&format!("set server notes/{name} state {state}"))?;
        match answer.trim() {
            "" => Ok(()),
            other => Err(format!("haproxy refused to set {name} {state}: {other}")),
        }
    }

    /// Reloads: the master starts a new worker on the same listening sockets, and the old one
    /// finishes what it has (its streams cut after `hard-stop-after`). Returns once the old
    /// worker is gone, so that the reload's effects all fall within it.
    pub fn reload(&self) -> Result<(), String> {
        let before = self.worker_pid();
        let status = Command::new("kill").args(["-USR2", &self.child.id().to_string()]).status();
        if !status.is_ok_and(|s| s.success()) {
            return Err("cannot signal haproxy's master".into());
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.worker_pid() == before || self.worker_pid().is_none() {
            if Instant::now() >= deadline {
                return Err("no new haproxy worker after a reload".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let old = before.and_then(|pid| pid.trim().parse::<u32>().ok());
        while old.is_some_and(running) {
            if Instant::now() >= deadline {
                return Err("the old haproxy worker outlived hard-stop-after".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

/// Whether process `pid` still runs (a zombie does not).
fn running(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
    matches!(state, Some(s) if s != "Z" && s != "X")
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
