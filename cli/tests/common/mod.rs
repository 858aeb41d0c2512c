//! What the command's tests share: the binaries, a notes data directory, the Python SDK server,
//! and a real terminal (tmux) to type into and read.

#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub use mcp_rounds_tests::notes::NotesData;
use mcp_rounds_tests::python;

/// How long a screen may take to show what a test waits for.
pub const SCREEN_TIMEOUT: Duration = Duration::from_secs(90);

/// The `mcp-rounds` binary under test.
pub fn mcp_rounds() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-rounds")
}

/// The notes server, built beside the command.
pub fn notes_server() -> PathBuf {
    workspace_binary("notes-server", "notes-server")
}

/// The conformance suite's server.
pub fn conformance_server() -> PathBuf {
    workspace_binary("conformance-server", "conformance-server")
}

/// The tests' fixture server (progress, tasks, cancellation).
pub fn fixture_server() -> PathBuf {
    workspace_binary("mcp-rounds-tests", "fixture-server")
}

/// The hostile server: a server that lures the command in and then misbehaves.
pub fn hostile_server() -> PathBuf {
    workspace_binary("mcp-rounds-tests", "hostile-server")
}

/// A binary of another package of the workspace, beside the command (`cargo test --workspace`
/// builds them all; a test run alone builds the one it needs).
fn workspace_binary(package: &str, bin: &str) -> PathBuf {
    let binary = Path::new(mcp_rounds()).with_file_name(bin);
    if !binary.exists() {
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--quiet", "-p", package, "--bin", bin])
            .current_dir(python::workspace_root())
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cannot build {bin}");
    }
    binary
}

/// The Python SDK's server for the interop tests, as a command line.
pub fn python_server() -> Vec<String> {
    let script = python::workspace_root().join("tests/python/interop_server.py");
    vec![python::interpreter().display().to_string(), script.display().to_string(), "--stdio".into()]
}

/// The notes server over stdio on `data`, as the command after `--`.
pub fn notes_over_stdio(data: &NotesData) -> Vec<String> {
    vec![notes_server().display().to_string(), "--data".into(), data.arg().into(), "--stdio".into()]
}

/// The three notes about TPS reports the seed writes.
pub const TPS_NOTES: [&str; 3] = ["tps-report-2026-q1", "tps-report-cover-sheet", "tps-report-draft-old"];

/// Runs the command without a terminal (stdin from /dev/null, output captured).
pub fn run(args: &[&str], server: &[String]) -> Output {
    let mut command = Command::new(mcp_rounds());
    command.args(args);
    if !server.is_empty() {
        command.arg("--").args(server);
    }
    command.env_remove("MCP_BEARER_TOKEN").stdin(Stdio::null()).output().expect("run mcp-rounds")
}

/// Text of a captured stream.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A shell word for a tmux command line.
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// A command running in a real terminal: a tmux session on a server of its own, 120×40.
pub struct Terminal {
    socket: String,
    name: String,
}

impl Terminal {
    /// Runs `command_line` in a new terminal with `env` set; when it ends, the screen shows
    /// `EXIT=<code>` and the session stays for reading.
    pub fn start(name: &str, command_line: &str, env: &[(&str, &str)]) -> Terminal {
        let socket = format!("mcp-rounds-cli-{name}-{}", std::process::id());
        let shell_line = format!("{command_line}; echo EXIT=$?; read -r _");
        let mut tmux = Command::new("tmux");
        tmux.args(["-L", &socket, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40"]);
        for (key, value) in env {
            tmux.args(["-e", &format!("{key}={value}")]);
        }
        let status = tmux.args(["sh", "-c", &shell_line]).status().expect("tmux runs (the test command installs it)");
        assert!(status.success(), "tmux new-session failed");
        Terminal { socket, name: name.to_owned() }
    }

    /// What the screen shows now, with the lines the command scrolled away.
    pub fn screen(&self) -> String {
        let output = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-J", "-S", "-200"])
            .output()
            .expect("tmux capture-pane");
        text(&output.stdout)
    }

    /// The screen with its colours and attributes, as escape sequences.
    pub fn screen_with_attributes(&self) -> String {
        let output = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-e", "-J", "-S", "-200"])
            .output()
            .expect("tmux capture-pane -e");
        text(&output.stdout)
    }

    /// Waits until the screen shows `wanted`, and returns the screen.
    pub fn wait_for(&self, wanted: &str) -> String {
        self.wait_for_times(wanted, 1)
    }

    /// Waits until the screen shows `wanted` `times` times (a question asked again, whose first
    /// asking is still on the screen), and returns the screen.
    pub fn wait_for_times(&self, wanted: &str, times: usize) -> String {
        let deadline = Instant::now() + SCREEN_TIMEOUT;
        loop {
            let screen = self.screen();
            if screen.matches(wanted).count() >= times {
                return screen;
            }
            assert!(Instant::now() < deadline, "the screen never showed {wanted:?} {times} times; it shows:\n{screen}");
            // Re-read the screen as soon as the terminal has had a moment to draw.
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Presses keys (tmux names: `Down`, `Enter`, `Space`, or literal text with `-l`).
    pub fn keys(&self, keys: &[&str]) {
        let status =
            Command::new("tmux").args(["-L", &self.socket, "send-keys"]).args(keys).status().expect("send-keys");
        assert!(status.success());
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        let status =
            Command::new("tmux").args(["-L", &self.socket, "send-keys", "-l", text]).status().expect("send-keys -l");
        assert!(status.success());
    }

    /// Whether the terminal shows its cursor (a prompt hides it while it asks).
    pub fn cursor_shown(&self) -> bool {
        let output = Command::new("tmux")
            .args(["-L", &self.socket, "display-message", "-p", "#{cursor_flag}"])
            .output()
            .expect("tmux display-message");
        text(&output.stdout).trim() == "1"
    }

    /// Waits for the command to end and returns its exit code and the whole screen, which is
    /// kept under `target/terminal-screens/` for a person to look at.
    pub fn finish(&self) -> (i32, String) {
        let screen = self.wait_for("EXIT=");
        let kept = python::target_dir().join("terminal-screens");
        let _ = std::fs::create_dir_all(&kept);
        let _ = std::fs::write(kept.join(format!("{}.txt", self.name)), &screen);
        let code = screen
            .lines()
            .find_map(|l| l.trim().strip_prefix("EXIT="))
            .and_then(|c| c.trim().parse().ok())
            .unwrap_or_else(|| panic!("no exit code on the screen:\n{screen}"));
        (code, screen)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).status();
    }
}
