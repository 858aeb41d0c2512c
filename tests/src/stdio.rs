//! A server process on stdio, driven one JSON line at a time.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long a test waits for any one line before failing.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// A running server with pipes on stdin and stdout.
pub struct StdioProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl StdioProcess {
    /// Starts `program` with `args`; stderr is inherited so server logs show up in test output.
    pub fn spawn(program: &str, args: &[&str]) -> Self {
        Self::spawn_with_env(program, args, &[])
    }

    /// [`spawn`](Self::spawn) with extra environment variables.
    pub fn spawn_with_env(program: &str, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        StdioProcess { child, stdin, lines }
    }

    /// Waits up to `wait` for the process to exit by itself.
    pub fn wait_exit(&mut self, wait: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + wait;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Writes raw bytes followed by a newline.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).and_then(|()| stdin.write_all(b"\n")).and_then(|()| stdin.flush()).expect("write");
    }

    /// Writes one JSON message.
    pub fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// The next line from stdout, parsed; panics on timeout or on a line that is not JSON
    /// (stdout must carry nothing but JSON-RPC).
    pub fn recv(&mut self) -> Value {
        let line = self.lines.recv_timeout(LINE_TIMEOUT).unwrap_or_else(|e| panic!("no line from server: {e}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"))
    }

    /// The next line if one arrives within `wait`.
    pub fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(serde_json::from_str(&line).expect("stdout line is JSON")),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Sends a request and returns the response to it.
    pub fn call(&mut self, message: &Value) -> Value {
        self.send(message);
        self.recv()
    }

    /// Closes stdin (end of input for the server).
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Every line the server still writes before it exits, and its exit status.
    pub fn finish(mut self) -> (Vec<Value>, ExitStatus) {
        self.close_stdin();
        let deadline = Instant::now() + LINE_TIMEOUT;
        let mut rest = Vec::new();
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => rest.push(serde_json::from_str(&line).expect("stdout line is JSON")),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("server did not exit after stdin closed");
                }
            }
        }
        let status = self.child.wait().expect("wait for server");
        (rest, status)
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
