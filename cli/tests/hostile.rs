//! The command against the hostile server (`hostile-server`), as a person uses it: every
//! string the server sends is shown and never obeyed, on a pipe and on a real terminal; answers
//! too large, rounds without end, redirects, logins that would hand a secret to someone else,
//! silence and slow sampling commands each stop the command with the exit code and a message
//! that names the limit or the option. `elsewhere`, the server's other origin, records every
//! request that reaches it: what must go nowhere is checked there.

mod common;

#[path = "hostile/escapes.rs"]
mod escapes;
#[path = "hostile/limits.rs"]
mod limits;
#[path = "hostile/namespace.rs"]
mod namespace;
#[path = "hostile/origins.rs"]
mod origins;
#[path = "hostile/terminal.rs"]
mod terminal;
#[path = "hostile/waits.rs"]
mod waits;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_rounds_tests::hostile::Hostile;
use serde_json::Value;

/// The longest any one run of the command may take before the test gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A hostile server on this machine.
fn hostile() -> Hostile {
    Hostile::start(common::hostile_server().to_str().expect("a UTF-8 path"))
}

/// `text` as the command shows it: each control a terminal would obey as its visible stand-in.
/// Written out here rather than taken from the command, for the characters [`ALL`] holds.
///
/// [`ALL`]: mcp_rounds_tests::hostile::ALL
fn shown(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\x1b' => "␛".to_owned(),
            '\x07' => "␇".to_owned(),
            '\r' => "␍".to_owned(),
            '\u{9b}' => "⟨U+009B⟩".to_owned(),
            '\u{202e}' => "⟨U+202E⟩".to_owned(),
            c if c.is_control() || ('\u{2066}'..='\u{2069}').contains(&c) => panic!("no stand-in written for {c:?}"),
            c => c.to_string(),
        })
        .collect()
}

/// A directory of the test's own, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mcpr-hostile-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("make a scratch directory");
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `contents` to `name` in the directory, and returns its path as text.
    fn file(&self, name: &str, contents: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, contents).expect("write a scratch file");
        path.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One run of the command: its exit code, its output, how long it took, and the last reading
/// of its peak memory (`VmHWM`, KiB) taken while it ran.
struct Ran {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
    took: Duration,
    peak_kib: u64,
}

impl Ran {
    fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.out()))
    }

    /// Both streams, for a failure's message.
    fn said(&self) -> String {
        format!("exit {}\n--- stdout\n{}\n--- stderr\n{}", self.code, self.out(), self.stderr)
    }
}

/// Runs `mcp-rounds ARGS… [-- SERVER…]` without a terminal (stdin from /dev/null, stdout and
/// stderr into files, so that a process the command leaves behind cannot hold them open), with
/// a configuration directory of its own and `env` set.
fn run_env(args: &[&str], server: &[String], env: &[(&str, &str)]) -> Ran {
    let scratch = Scratch::new("run");
    run_with(args, server, env, None, &scratch)
}

/// [`run_env`] with nothing more set.
fn run(args: &[&str]) -> Ran {
    run_env(args, &[], &[])
}

/// [`run_env`], the command started through `prefix` (e.g. `ip netns exec NS`) when given, in
/// `scratch` (its configuration directory is `scratch/config`).
fn run_with(args: &[&str], server: &[String], env: &[(&str, &str)], prefix: Option<&[&str]>, scratch: &Scratch) -> Ran {
    let mut command = match prefix {
        Some(prefix) => {
            let mut command = Command::new(prefix[0]);
            command.args(&prefix[1..]).arg(common::mcp_rounds());
            command
        }
        None => Command::new(common::mcp_rounds()),
    };
    command.args(args);
    if !server.is_empty() {
        command.arg("--").args(server);
    }
    let (out, err) = (scratch.path().join("stdout"), scratch.path().join("stderr"));
    let file = |path: &Path| std::fs::File::create(path).expect("an output file");
    command
        .env_remove("MCP_BEARER_TOKEN")
        .env_remove("MCP_CLIENT_SECRET")
        .env("XDG_CONFIG_HOME", scratch.path().join("config"))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(file(&out))
        .stderr(file(&err));
    let started = Instant::now();
    let mut child = command.spawn().expect("run mcp-rounds");
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let code = loop {
        // Read while it runs: once it has exited, its memory is gone from /proc.
        if let Some(kib) = std::fs::read_to_string(&status).ok().as_deref().and_then(vm_hwm) {
            peak_kib = kib;
        }
        if let Some(exit) = child.try_wait().expect("wait for mcp-rounds") {
            break exit.code().unwrap_or(-1);
        }
        if started.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcp-rounds {args:?} still ran after {RUN_TIMEOUT:?}");
        }
        // A sample of its memory each few milliseconds, until it ends.
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = started.elapsed();
    let stdout = std::fs::read(&out).expect("read stdout");
    let stderr = String::from_utf8_lossy(&std::fs::read(&err).expect("read stderr")).into_owned();
    Ran { code, stdout, stderr, took, peak_kib }
}

/// The `VmHWM` of a `/proc/PID/status`, in KiB.
fn vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Waits until `done` says yes of the server's record, reading it again as it changes; fails
/// after 10 s with the record as it was.
fn wait_for_record(server: &Hostile, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let record = server.record();
        if done(&record) {
            return record;
        }
        assert!(Instant::now() < deadline, "the record never showed {what}: {record:#}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every request that reached the other origin.
fn elsewhere(record: &Value) -> &Vec<Value> {
    record["elsewhere"].as_array().expect("elsewhere is a list")
}
