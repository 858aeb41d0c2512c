//! A server process on stdio, driven one JSON line at a time.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::Value;
use wait_timeout::ChildExt;

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

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `wait` for the process to exit by itself.
    pub fn wait_exit(&mut self, wait: Duration) -> Option<ExitStatus> {
        self.child.wait_timeout(wait).expect("wait for the server")
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

    /// Reads messages until each of `wanted` has matched one, and returns every message read,
    /// in order. An answer and the notifications its request caused are not ordered against
    /// each other, so a test that expects several waits for all of them at once.
    pub fn recv_until(&mut self, wanted: &[&dyn Fn(&Value) -> bool]) -> Vec<Value> {
        let mut matched = vec![false; wanted.len()];
        let mut read = Vec::new();
        while matched.contains(&false) {
            let message = self.recv();
            for (seen, wants) in matched.iter_mut().zip(wanted) {
                *seen = *seen || wants(&message);
            }
            read.push(message);
        }
        read
    }

    /// Sends a request and returns the response to it.
    pub fn call(&mut self, message: &Value) -> Value {
        self.send(message);
        self.recv()
    }

    /// [`call`](Self::call), reading past the messages before the answer that `skip` allows
    /// (late notifications of a stream still open, say); any other one fails the test.
    pub fn call_past(&mut self, message: &Value, skip: &dyn Fn(&Value) -> bool) -> Value {
        self.send(message);
        let mut read = self.recv_until(&[&answer_to(message["id"].clone())]);
        let answer = read.pop().expect("the answer");
        assert!(read.iter().all(skip), "before the answer to {}: {read:?}", message["id"]);
        answer
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

/// Matches the answer (a result or an error) to request `id`.
pub fn answer_to(id: Value) -> impl Fn(&Value) -> bool {
    move |message| message.get("method").is_none() && message.get("id") == Some(&id)
}

/// The listen stream a notification belongs to (`Null` for one of no stream).
pub fn stream_of(message: &Value) -> &Value {
    &message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
}

/// Matches a `method` notification on listen stream `stream`.
pub fn event(method: &'static str, stream: Value) -> impl Fn(&Value) -> bool {
    move |message| message["method"] == method && *stream_of(message) == stream
}
