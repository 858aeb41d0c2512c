//! The command line: what clap parses, and the server command after `--`, split off first so
//! that every option is accepted anywhere before it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The exit codes, as `--help` and the README list them.
pub const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  the tool ran and reported an error (isError)
  2  usage: a bad option or argument
  3  protocol: the server answered with an error, or something that is not MCP
  4  transport: the server could not be reached, or the connection failed
  5  input declined, or a request the command could not answer
  6  authorization needed
  130  interrupted (Ctrl-C; `listen` ends with 0)";

const USAGE: &str = "\
mcp-rounds [OPTIONS] <COMMAND> [ARGS]... --url <URL>
       mcp-rounds [OPTIONS] <COMMAND> [ARGS]... -- <SERVER COMMAND>...
       mcp-rounds new <NAME> [--path <CHECKOUT>]";

/// Calls any MCP server from a terminal, answers its forms there, and starts new servers.
///
/// The server is either `--url URL` (Streamable HTTP) or a command after `--`, run as a child
/// process over stdio. Options go anywhere before `--`.
#[derive(Debug, Parser)]
#[command(name = "mcp-rounds", version, override_usage = USAGE, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Which server.
    #[command(flatten)]
    pub target: TargetOptions,
    /// How the server's questions are answered.
    #[command(flatten)]
    pub answering: AnsweringOptions,
    /// Print exactly the final result as JSON, for scripts (`listen`: one object a line).
    #[arg(long, global = true)]
    pub json: bool,
    /// Show every message exchanged with the server, on stderr.
    #[arg(long, short, global = true)]
    pub verbose: bool,
}

/// A secret from the command line or the environment: used, never shown (its `Debug` is
/// `…`).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for where it is sent.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl From<&str> for Secret {
    fn from(secret: &str) -> Secret {
        Secret(secret.to_owned())
    }
}

/// Where the server is and how to talk to it.
#[derive(Debug, Args)]
pub struct TargetOptions {
    /// The server's Streamable HTTP endpoint.
    #[arg(long, global = true, value_name = "URL")]
    pub url: Option<String>,
    /// A header sent with every HTTP request to the server, and nowhere else (repeatable).
    #[arg(long = "header", short = 'H', global = true, value_name = "'NAME: VALUE'", value_parser = parse_header)]
    pub headers: Vec<(String, Secret)>,
    /// A bearer token for HTTP, sent to the server and nowhere else.
    #[arg(long, global = true, env = "MCP_BEARER_TOKEN", hide_env_values = true, value_name = "TOKEN", value_parser = parse_secret)]
    pub bearer: Option<Secret>,
    /// The protocol: `auto` asks `server/discover` and falls back to the 2025-11-25 handshake.
    #[arg(long, global = true, value_enum, default_value_t = ProtocolChoice::Auto, value_name = "VERSION")]
    pub protocol: ProtocolChoice,
    /// Give up on a request after this many seconds (default: wait as long as it takes).
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Give up on an answer when the server sends nothing for this many seconds (default:
    /// wait; `listen` streams are never cut for being quiet).
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_seconds)]
    pub idle_timeout: Option<Duration>,
    /// Give up connecting to an HTTP server after this many seconds.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_seconds, default_value = "10")]
    pub connect_timeout: Duration,
    /// The largest message read from the server (bytes, or with KiB, MiB, GiB); a larger one
    /// fails the command with exit code 3.
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size, default_value = "32MiB")]
    pub max_message_size: usize,
    /// How to log in, when the server asks.
    #[command(flatten)]
    pub login: LoginOptions,
}

/// Logging in to a server that answers 401 (OAuth 2.1).
#[derive(Debug, Args)]
pub struct LoginOptions {
    /// Never start a login: use the stored one, or exit 6 (for CI).
    #[arg(long, global = true)]
    pub stored_auth_only: bool,
    /// Log in as a machine, with the client credentials grant (--client-id and --client-secret).
    #[arg(long, global = true, requires = "client_id")]
    pub client_credentials: bool,
    /// The client's id registered at the authorization server (else: a client ID metadata
    /// document, or dynamic registration).
    #[arg(long, global = true, value_name = "ID")]
    pub client_id: Option<String>,
    /// The client's secret: sent only to the token endpoint of --issuer (or of the issuer a
    /// kept login names).
    #[arg(long, global = true, env = "MCP_CLIENT_SECRET", hide_env_values = true, value_name = "SECRET", value_parser = parse_secret)]
    pub client_secret: Option<Secret>,
    /// The authorization server the client's id and secret belong to (its issuer identifier,
    /// exactly as its metadata gives it). Another one named by the server is refused.
    #[arg(long, global = true, value_name = "URL", conflicts_with = "trust_server_issuer")]
    pub issuer: Option<String>,
    /// Send the client's secret to whichever authorization server the MCP server names.
    /// Unsafe with a server you do not control: it could name its own and collect the secret.
    #[arg(long, global = true)]
    pub trust_server_issuer: bool,
    /// Let a server that is not on this machine send the login to addresses on this machine
    /// or on a private network (its authorization server, its metadata).
    #[arg(long, global = true)]
    pub allow_private_addresses: bool,
    /// The HTTPS URL of the client's metadata document, its client_id where the server takes one.
    #[arg(long, global = true, value_name = "URL")]
    pub client_metadata_url: Option<String>,
}

/// Which protocol to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolChoice {
    /// Discover, else the handshake.
    Auto,
    /// 2026-07-28 only.
    #[value(name = "2026-07-28")]
    Modern,
    /// The 2025-11-25 handshake only.
    #[value(name = "2025-11-25")]
    Legacy,
}

/// Who answers the server's forms, sampling and roots requests.
#[derive(Debug, Args)]
pub struct AnsweringOptions {
    /// Answers by input-request key, as JSON: `{"KEY": {"action": "accept", "content": {...}}}`
    /// (a 2025-11-25 server's requests are keyed `<method>#<n>`). No prompt is shown for them.
    #[arg(long, global = true, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Answers sampling requests: run with the request as JSON on its stdin, its stdout is the
    /// model's reply. One runs at a time.
    #[arg(long, global = true, value_name = "CMD")]
    pub sampling_command: Option<String>,
    /// Stop a --sampling-command that has not replied after this many seconds.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_seconds, default_value = "120")]
    pub sampling_timeout: Duration,
    /// A root to give the server when it asks (a directory or a URI; repeatable).
    #[arg(long = "root", global = true, value_name = "DIR|URI")]
    pub roots: Vec<String>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Who the server is: its versions, capabilities and instructions.
    Discover,
    /// List or call tools.
    #[command(subcommand)]
    Tools(ToolsCommand),
    /// List or read resources.
    #[command(subcommand)]
    Resources(ResourcesCommand),
    /// List or get prompts.
    #[command(subcommand)]
    Prompts(PromptsCommand),
    /// Ask for completions of a prompt's argument or a template's variable.
    #[command(subcommand)]
    Complete(CompleteCommand),
    /// Print each change the server announces, as it arrives, until interrupted.
    Listen(ListenArgs),
    /// Write a new server crate that builds and passes its tests.
    New(NewArgs),
    /// Log in to the server at --url (a browser page), and keep the token for later commands.
    Login,
    /// Forget the login kept for the server at --url.
    Logout,
}

/// `tools …`
#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Every tool, over every page.
    List,
    /// Call a tool, answering the rounds it asks.
    Call {
        /// The tool.
        name: String,
        /// Arguments, typed by the tool's input schema (JSON for objects and arrays).
        #[arg(value_name = "KEY=VALUE")]
        arguments: Vec<String>,
        /// The arguments as one JSON object (KEY=VALUE pairs are added to it).
        #[arg(long = "args", value_name = "JSON")]
        json_arguments: Option<String>,
    },
}

/// `resources …`
#[derive(Debug, Subcommand)]
pub enum ResourcesCommand {
    /// Every resource, over every page.
    List,
    /// Every resource template.
    Templates,
    /// Read a resource, answering the rounds it asks.
    Read {
        /// Its URI.
        uri: String,
    },
}

/// `prompts …`
#[derive(Debug, Subcommand)]
pub enum PromptsCommand {
    /// Every prompt, over every page.
    List,
    /// Get a prompt's messages, answering the rounds it asks.
    Get {
        /// The prompt.
        name: String,
        /// Its arguments (text).
        #[arg(value_name = "KEY=VALUE")]
        arguments: Vec<String>,
    },
}

/// `complete …`
#[derive(Debug, Subcommand)]
pub enum CompleteCommand {
    /// Complete an argument of a prompt.
    Prompt {
        /// The prompt.
        name: String,
        /// The argument.
        argument: String,
        /// What is typed so far.
        #[arg(allow_hyphen_values = true)]
        partial: String,
        /// An argument already chosen (repeatable).
        #[arg(long = "context", value_name = "KEY=VALUE")]
        context: Vec<String>,
    },
    /// Complete a variable of a resource template.
    Resource {
        /// The template, as listed.
        template: String,
        /// The variable.
        argument: String,
        /// What is typed so far.
        #[arg(allow_hyphen_values = true)]
        partial: String,
        /// A variable already chosen (repeatable).
        #[arg(long = "context", value_name = "KEY=VALUE")]
        context: Vec<String>,
    },
}

/// `listen …`: the filter of `subscriptions/listen`. With no flag and no URI, every list change.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Resources whose updates to receive.
    #[arg(value_name = "URI")]
    pub uris: Vec<String>,
    /// Changes of the tools list.
    #[arg(long)]
    pub tools_list_changed: bool,
    /// Changes of the prompts list.
    #[arg(long)]
    pub prompts_list_changed: bool,
    /// Changes of the resources list.
    #[arg(long)]
    pub resources_list_changed: bool,
    /// A task whose states to receive (repeatable).
    #[arg(long = "task-id", value_name = "ID")]
    pub task_ids: Vec<String>,
}

/// `new …`
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The crate's name; it is written to a directory of that name.
    pub name: String,
    /// A local checkout of mcp-rounds to depend on (default: the published crate).
    #[arg(long, value_name = "CHECKOUT")]
    pub path: Option<PathBuf>,
}

/// The command line up to `--`, and the server command after it (empty when there is none).
pub fn split_server(args: impl IntoIterator<Item = OsString>) -> (Vec<OsString>, Vec<OsString>) {
    let mut args: Vec<OsString> = args.into_iter().collect();
    match args.iter().position(|a| a == "--") {
        Some(at) => {
            let server = args.split_off(at + 1);
            args.pop();
            (args, server)
        }
        None => (args, Vec::new()),
    }
}

fn parse_header(text: &str) -> Result<(String, Secret), String> {
    let (name, value) = text.split_once(':').ok_or_else(|| format!("`{text}` is not 'NAME: VALUE'"))?;
    let name = name.trim();
    let is_token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(is_token) {
        return Err(format!("`{name}` is not a header name"));
    }
    let value = value.trim();
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Err(format!("the value of `{name}` has a control character"));
    }
    Ok((name.to_owned(), Secret(value.to_owned())))
}

fn parse_secret(text: &str) -> Result<Secret, String> {
    Ok(Secret(text.to_owned()))
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("`{text}` is not a number of seconds"))
}

/// A size in bytes: `1048576`, `512KiB`, `32 MiB`, `1GiB` (K, M, G alone are the same units).
fn parse_size(text: &str) -> Result<usize, String> {
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !c.is_ascii_digit()).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let unit = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        _ => return Err(format!("`{text}` is not a size (bytes, or a number with KiB, MiB or GiB)")),
    };
    let number: usize =
        number.parse().map_err(|_| format!("`{text}` is not a size (bytes, or a number with KiB, MiB or GiB)"))?;
    match number.checked_mul(unit) {
        Some(0) => Err("a size of 0 would refuse every message".to_owned()),
        Some(size) => Ok(size),
        None => Err(format!("`{text}` is too large")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_server_command_is_everything_after_the_first_separator() {
        let (ours, server) = split_server(os(&["mcp-rounds", "tools", "list", "--", "srv", "--", "x"]));
        assert_eq!(ours, os(&["mcp-rounds", "tools", "list"]));
        assert_eq!(server, os(&["srv", "--", "x"]));
        assert_eq!(split_server(os(&["mcp-rounds", "discover"])).1, Vec::<OsString>::new());
    }

    #[test]
    fn options_are_accepted_before_and_after_the_subcommand() {
        let cli =
            Cli::try_parse_from(["mcp-rounds", "--json", "tools", "call", "t", "a=1", "--answers", "f.json"]).unwrap();
        assert!(cli.json);
        assert_eq!(cli.answering.answers, Some(PathBuf::from("f.json")));
        let cli =
            Cli::try_parse_from(["mcp-rounds", "tools", "list", "--url", "http://x/mcp", "-H", "X-A: b: c"]).unwrap();
        assert_eq!(cli.target.url.as_deref(), Some("http://x/mcp"));
        assert_eq!(cli.target.headers, [("X-A".to_owned(), Secret::from("b: c"))]);
    }

    #[test]
    fn no_secret_appears_in_a_debug_string() {
        let cli = Cli::try_parse_from([
            "mcp-rounds",
            "tools",
            "list",
            "--url",
            "http://x/mcp",
            "-H",
            "X-Api-Key: header-secret",
            "--bearer",
            "bearer-secret",
            "--client-id",
            "agent",
            "--client-secret",
            "client-secret",
        ])
        .unwrap();
        let shown = format!("{cli:?}");
        for secret in ["header-secret", "bearer-secret", "client-secret"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("X-Api-Key") && shown.contains("agent"), "{shown}");
    }

    #[test]
    fn sizes_read_as_a_person_writes_them() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512KiB"), Ok(512 << 10));
        assert_eq!(parse_size("32 MiB"), Ok(32 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert!(parse_size("lots").unwrap_err().contains("`lots` is not a size"));
        assert!(parse_size("0").is_err());
        let error = Cli::try_parse_from(["mcp-rounds", "discover", "--max-message-size", "12 parsecs"]).unwrap_err();
        assert!(error.to_string().contains("--max-message-size"), "{error}");
    }

    #[test]
    fn a_bad_header_names_itself() {
        let error = Cli::try_parse_from(["mcp-rounds", "discover", "-H", "no colon"]).unwrap_err();
        assert!(error.to_string().contains("`no colon` is not 'NAME: VALUE'"), "{error}");
        let error = Cli::try_parse_from(["mcp-rounds", "discover", "-H", "bad name: v"]).unwrap_err();
        assert!(error.to_string().contains("`bad name` is not a header name"), "{error}");
    }
}
