//! A server started as a child process, one JSON-RPC message per line on its stdin and stdout.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Mutex;

use super::{ClientTransport, Inbox, Outbound, TransportError};
use crate::future::BoxFuture;

/// How long a child has to exit once its stdin is closed before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A server run as a child process over its stdin and stdout; its stderr is the client's.
///
/// The process starts when the client connects, and again if the client has to start over
/// (a 2025-11-25 server that exits on the `server/discover` probe is started again for the
/// handshake). It is killed when the client is dropped without [`Client::close`].
///
/// [`Client::close`]: crate::client::Client::close
///
/// ```no_run
/// use mcp_rounds::client::{ChildProcess, Client};
///
/// # async fn run() -> Result<(), mcp_rounds::client::ClientError> {
/// let client = Client::builder().connect(ChildProcess::new("notes-server").arg("--stdio")).await?;
/// for tool in client.list_all_tools().await? {
///     println!("{}", tool.name);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ChildProcess {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    current_dir: Option<PathBuf>,
    quiet: bool,
    running: Mutex<Option<Spawned>>,
}

#[derive(Debug)]
struct Spawned {
    stdin: ChildStdin,
    child: Child,
}

impl ChildProcess {
    /// Runs `program` (looked up on `PATH` as a shell would).
    pub fn new(program: impl Into<OsString>) -> Self {
        ChildProcess {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            current_dir: None,
            quiet: false,
            running: Mutex::new(None),
        }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the child (the rest of the environment is inherited).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Runs the child in `dir`.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.current_dir = Some(dir.into());
        self
    }

    /// Discards the child's stderr instead of passing it through.
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if self.quiet { Stdio::null() } else { Stdio::inherit() })
            .kill_on_drop(true);
        if let Some(dir) = &self.current_dir {
            command.current_dir(dir);
        }
        command
    }

    fn name(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }
}

impl ClientTransport for ChildProcess {
    fn open(&self, inbox: Inbox) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let mut running = self.running.lock().await;
            if let Some(old) = running.take() {
                stop(old).await;
            }
            let mut child = self
                .command()
                .spawn()
                .map_err(|e| TransportError::Connect(format!("cannot start `{}`: {e}", self.name())))?;
            let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                return Err(TransportError::Connect("the child's stdin and stdout are not pipes".into()));
            };
            tokio::spawn(read_lines(BufReader::new(stdout), inbox, self.name()));
            *running = Some(Spawned { stdin, child });
            Ok(())
        })
    }

    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let mut running = self.running.lock().await;
            let Some(running) = running.as_mut() else {
                return Err(TransportError::Closed(format!("`{}` is not running", self.name())));
            };
            let mut line = message.body;
            line.push(b'\n');
            let written = running.stdin.write_all(&line).await;
            let flushed = match written {
                Ok(()) => running.stdin.flush().await,
                Err(e) => Err(e),
            };
            flushed.map_err(|e| TransportError::Closed(format!("cannot write to `{}`: {e}", self.name())))
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(running) = self.running.lock().await.take() {
                stop(running).await;
            }
        })
    }
}

/// Closes the child's stdin, gives it [`EXIT_GRACE`] to exit, then kills it.
async fn stop(running: Spawned) {
    let Spawned { stdin, mut child } = running;
    drop(stdin);
    if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_err() {
        let _ = child.kill().await;
    }
}

/// Delivers each line of the child's stdout until it ends, then says the connection closed.
async fn read_lines(mut stdout: BufReader<tokio::process::ChildStdout>, inbox: Inbox, name: String) {
    let mut line = Vec::new();
    let end = loop {
        line.clear();
        match stdout.read_until(b'\n', &mut line).await {
            Ok(0) => break format!("`{name}` closed its output"),
            Ok(_) => {
                let message = line.trim_ascii();
                if message.is_empty() {
                    continue;
                }
                if let Err(error) = inbox.deliver(message) {
                    // stdout is the protocol's alone; a stray line is the server's mistake.
                    tracing::warn!(%error, server = %name, "a line of the server's output is not JSON-RPC");
                }
            }
            Err(e) => break format!("cannot read `{name}`'s output: {e}"),
        }
    };
    inbox.closed(TransportError::Closed(end));
}
