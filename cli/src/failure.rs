//! Why the command stops, each reason with its exit code and a message a person can act on.

use std::process::ExitCode;

use mcp_rounds::client::{ClientError, Limit, TransportError};

/// 0: done.
pub const SUCCESS: u8 = 0;
/// 1: the tool ran and reported an error.
pub const TOOL_ERROR: u8 = 1;
/// 2: usage (clap's own code as well).
pub const USAGE: u8 = 2;
/// 3: the server answered with an error, or with something that is not MCP.
pub const PROTOCOL: u8 = 3;
/// 4: the server could not be reached, or the connection failed.
pub const TRANSPORT: u8 = 4;
/// 5: input declined, or a request the command could not answer.
pub const UNANSWERED: u8 = 5;
/// 6: the server wants authorization.
pub const AUTHORIZATION: u8 = 6;
/// 130: interrupted (Ctrl-C), as shells report a process that SIGINT ended.
pub const INTERRUPTED: u8 = 130;

/// Why the command failed.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// A bad option or argument, said in terms of what the person typed.
    #[error("{0}")]
    Usage(String),
    /// The client failed.
    #[error("{}", describe(.0))]
    Client(#[from] ClientError),
    /// The tool reported an error; its result has been printed.
    #[error("tool `{0}` reported an error")]
    Tool(String),
    /// Input was declined or could not be given: each request named.
    #[error("{}", .0.join("\n"))]
    Unanswered(Vec<String>),
    /// Writing output or files failed.
    #[error("{0}")]
    Io(String),
    /// The person pressed Ctrl-C; the call was abandoned.
    #[error("interrupted")]
    Interrupted,
    /// The server at `url` wants a login the command could not use or start.
    #[error("{why}\nlog in with `mcp-rounds login --url {url}`, or pass --bearer TOKEN")]
    LoginNeeded {
        /// The server.
        url: String,
        /// What failed.
        why: String,
    },
    /// The server sent the login somewhere the command does not go: its credentials to
    /// another issuer, an address that is not https, this machine or a private network.
    #[error(
        "{0}\ncredentials go only to the issuer named with --issuer; addresses on this machine or a private network, only with --allow-private-addresses"
    )]
    LoginRefused(String),
}

impl Failure {
    /// The exit code that says what kind of failure this is.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) => USAGE,
            Failure::Tool(_) => TOOL_ERROR,
            Failure::Unanswered(_) => UNANSWERED,
            Failure::Io(_) => TRANSPORT,
            Failure::Interrupted => INTERRUPTED,
            Failure::LoginNeeded { .. } | Failure::LoginRefused(_) => AUTHORIZATION,
            Failure::Client(error) => client_exit_code(error),
        }
    }

    /// Whether the message is already on the screen (a tool's error result is).
    pub fn shown(&self) -> bool {
        matches!(self, Failure::Tool(_))
    }
}

impl Failure {
    /// This failure, saying how to log in to `url` when that is what it needs.
    pub fn at_server(self, url: Option<&str>) -> Failure {
        match (self, url) {
            (Failure::Client(error), Some(url)) if needs_authorization(&error) => {
                let why = match &error {
                    ClientError::Transport { source: TransportError::Unauthorized(why), .. } => why.clone(),
                    other => other.to_string(),
                };
                // The login's own words for a place it will not go (LoginError::Refused).
                if why.starts_with("refused: ") {
                    return Failure::LoginRefused(why);
                }
                Failure::LoginNeeded { url: url.to_owned(), why }
            }
            (other, _) => other,
        }
    }
}

/// A usage failure, from anything displayable.
pub fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

fn client_exit_code(error: &ClientError) -> u8 {
    if needs_authorization(error) {
        return AUTHORIZATION;
    }
    match error {
        ClientError::Tool { .. } => TOOL_ERROR,
        // An answer over a limit is the server's doing: a protocol failure.
        e if e.is_over_limit() => PROTOCOL,
        ClientError::Transport { .. } | ClientError::Timeout { .. } => TRANSPORT,
        ClientError::Unanswered { .. } | ClientError::InvalidAnswer { .. } => UNANSWERED,
        _ => PROTOCOL,
    }
}

/// An HTTP 401, or a 403 that asks for more scope, or a login that failed.
fn needs_authorization(error: &ClientError) -> bool {
    match error {
        ClientError::Transport { source: TransportError::Unauthorized(_), .. } => true,
        ClientError::Transport { source: TransportError::Status { status, .. }, .. }
        | ClientError::Transport { source: TransportError::Rejected { status, .. }, .. } => {
            *status == 401 || *status == 403
        }
        _ => false,
    }
}

fn describe(error: &ClientError) -> String {
    match error {
        ClientError::Protocol { method, error } => {
            let data = error.data.as_ref().map(|d| format!(" {d}")).unwrap_or_default();
            format!("the server refused {method}: {} (error {}){data}", error.message, error.code)
        }
        e if needs_authorization(e) => format!("{e}\nthe server needs authorization: pass --bearer TOKEN"),
        ClientError::Transport { source: TransportError::Connect(cause), .. } => {
            format!("cannot reach the server: {cause}")
        }
        ClientError::OverLimit { limit: Limit::MessageSize(_), .. } => {
            format!("{error}\n(raise the limit with --max-message-size SIZE if you trust this server)")
        }
        ClientError::OverLimit { .. } | ClientError::TooManyRounds { .. } => {
            format!("{error}\n(the command stopped: the server asked for more than it answers)")
        }
        ClientError::Timeout { .. } => {
            format!("{error}\n(--timeout and --idle-timeout set how long the command waits)")
        }
        other => other.to_string(),
    }
}

/// The process's exit code for `code`.
pub fn exit(code: u8) -> ExitCode {
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_failure_has_its_own_code() {
        let transport = |source| ClientError::Transport { method: "tools/list".into(), source };
        let cases = [
            (Failure::Usage("x".into()), USAGE),
            (Failure::Tool("t".into()), TOOL_ERROR),
            (Failure::Unanswered(vec!["k".into()]), UNANSWERED),
            (Failure::Client(transport(TransportError::Connect("refused".into()))), TRANSPORT),
            (Failure::Client(transport(TransportError::Status { status: 401, body: String::new() })), AUTHORIZATION),
            (Failure::Client(transport(TransportError::Status { status: 500, body: String::new() })), TRANSPORT),
            (Failure::Client(ClientError::Version("none shared".into())), PROTOCOL),
            (
                Failure::Client(ClientError::OverLimit {
                    method: "tools/call".into(),
                    limit: Limit::MessageSize(1 << 20),
                }),
                PROTOCOL,
            ),
            (Failure::Client(ClientError::TooManyRounds { method: "tools/call".into(), limit: 10 }), PROTOCOL),
            (
                Failure::Client(ClientError::Timeout {
                    method: "tools/call".into(),
                    after: std::time::Duration::from_secs(2),
                }),
                TRANSPORT,
            ),
        ];
        for (failure, code) in cases {
            assert_eq!(failure.exit_code(), code, "{failure:?}");
        }
    }
}
