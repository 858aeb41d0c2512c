//! A server started as a child process, one JSON-RPC message per line on its stdin and stdout,
//! no line longer than the client's message limit; its stderr passed through, dropped, or
//! handed line by line to the application (which may show it to a person).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Mutex;

use super::{ClientTransport, Inbox, Outbound, TransportError};
use crate::future::BoxFuture;

/// How long a child has to exit once its stdin is closed before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The longest line of a child's stderr handed over whole; the rest of a longer one is cut.
const MAX_STDERR_LINE: usize = 16 * 1024;

/// Who reads a child's stderr, a line at a time.
type StderrLines = Arc<dyn Fn(&str) + Send + Sync>;

/// Where a child's stderr goes.
#[derive(Clone, Default)]
enum Stderr {
    /// The client's own stderr, as it is.
    #[default]
    Inherit,
    /// Nowhere.
    Quiet,
    /// To the application, a line at a time.
    Lines(StderrLines),
}

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
pub struct ChildProcess {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    current_dir: Option<PathBuf>,
    stderr: Stderr,
    running: Mutex<Option<Spawned>>,
}

impl std::fmt::Debug for ChildProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Environment values are often secrets (API keys): only their names are shown.
        f.debug_struct("ChildProcess")
            .field("program", &self.program)
            .field("args", &self.args)
            .field("env", &self.env.iter().map(|(name, _)| name).collect::<Vec<_>>())
            .field("current_dir", &self.current_dir)
            .finish_non_exhaustive()
    }
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
            stderr: Stderr::Inherit,
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
        self.stderr = Stderr::Quiet;
        self
    }

    /// Hands each line of the child's stderr to `lines` (without its end, lossily UTF-8, at
    /// most 16 KiB of it) instead of passing it through: for an application that shows a
    /// server's log to a person and must not let it write escape sequences to a terminal.
    ///
    /// ```no_run
    /// use mcp_rounds::client::ChildProcess;
    ///
    /// let server = ChildProcess::new("notes-server").stderr_lines(|line| {
    ///     let shown: String = line.chars().filter(|c| !c.is_control()).collect();
    ///     eprintln!("server: {shown}");
    /// });
    /// # drop(server);
    /// ```
    pub fn stderr_lines(mut self, lines: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.stderr = Stderr::Lines(Arc::new(lines));
        self
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match self.stderr {
                Stderr::Inherit => Stdio::inherit(),
                Stderr::Quiet => Stdio::null(),
                Stderr::Lines(_) => Stdio::piped(),
            })
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
            if let (Stderr::Lines(lines), Some(stderr)) = (&self.stderr, child.stderr.take()) {
                tokio::spawn(pass_stderr(BufReader::new(stderr), lines.clone()));
            }
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
/// A line longer than the client's limit ends the connection: what follows it could not be
/// told apart from the rest of it.
async fn read_lines(mut stdout: BufReader<tokio::process::ChildStdout>, inbox: Inbox, name: String) {
    let mut line = Vec::new();
    let max = inbox.max_message_size();
    let end = loop {
        line.clear();
        match read_line(&mut stdout, &mut line, max).await {
            Ok(Line::End) => break TransportError::Closed(format!("`{name}` closed its output")),
            Ok(Line::TooLong) => break inbox.too_large(),
            Ok(Line::Read) => {
                let message = line.trim_ascii();
                if message.is_empty() {
                    continue;
                }
                if let Err(error) = inbox.deliver(message) {
                    // stdout is the protocol's alone; a stray line is the server's mistake.
                    tracing::warn!(%error, server = %name, "a line of the server's output is not JSON-RPC");
                }
            }
            Err(e) => break TransportError::Closed(format!("cannot read `{name}`'s output: {e}")),
        }
    };
    inbox.closed(end);
}

/// Hands each line of the child's stderr to `lines`, a long one cut at [`MAX_STDERR_LINE`].
async fn pass_stderr(mut stderr: BufReader<tokio::process::ChildStderr>, lines: StderrLines) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_line(&mut stderr, &mut line, MAX_STDERR_LINE).await {
            Ok(Line::Read) => lines(String::from_utf8_lossy(line.trim_ascii_end()).as_ref()),
            Ok(Line::TooLong) => {
                lines(String::from_utf8_lossy(&line).as_ref());
                // The rest of it, up to its end, is dropped.
                if skip_line(&mut stderr).await.is_err() {
                    return;
                }
            }
            Ok(Line::End) | Err(_) => return,
        }
    }
}

/// What reading a line found.
#[derive(Debug, PartialEq)]
enum Line {
    /// A line (its end consumed, not kept), or the last bytes before the end of the stream.
    Read,
    /// More than the limit without an end: the first `max` bytes are in the buffer.
    TooLong,
    /// The end of the stream, nothing read.
    End,
}

/// Reads up to and including the next `\n` into `line`, never more than `max` bytes of it.
async fn read_line(reader: &mut (impl AsyncBufRead + Unpin), line: &mut Vec<u8>, max: usize) -> std::io::Result<Line> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() { Line::End } else { Line::Read });
        }
        let (taken, ended) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let content = if ended { taken - 1 } else { taken };
        if line.len() + content > max {
            let room = max - line.len();
            line.extend_from_slice(&available[..room]);
            reader.consume(room);
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&available[..content]);
        reader.consume(taken);
        if ended {
            return Ok(Line::Read);
        }
    }
}

/// Consumes the rest of a line, its end included.
async fn skip_line(reader: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<()> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', available) {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(());
            }
            None => {
                let all = available.len();
                reader.consume(all);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_line_is_read_up_to_its_limit_and_no_further() {
        let input: &[u8] = b"{\"a\":1}\nxxxxxxxxxxxxxxxxxxxx\nlast";
        let mut reader = BufReader::with_capacity(4, input);
        let mut line = Vec::new();
        assert_eq!(read_line(&mut reader, &mut line, 10).await.unwrap(), Line::Read);
        assert_eq!(line, b"{\"a\":1}");
        line.clear();
        assert_eq!(read_line(&mut reader, &mut line, 10).await.unwrap(), Line::TooLong);
        assert_eq!(line.len(), 10);
        skip_line(&mut reader).await.unwrap();
        line.clear();
        assert_eq!(read_line(&mut reader, &mut line, 10).await.unwrap(), Line::Read);
        assert_eq!(line, b"last");
        line.clear();
        assert_eq!(read_line(&mut reader, &mut line, 10).await.unwrap(), Line::End);
    }

    #[test]
    fn environment_values_stay_out_of_a_debug_string() {
        let child = ChildProcess::new("server").env("API_KEY", "the-secret-value");
        let shown = format!("{child:?}");
        assert!(shown.contains("API_KEY") && !shown.contains("the-secret-value"), "{shown}");
    }
}
