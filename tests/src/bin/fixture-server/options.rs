//! The fixture server's command line.

use std::path::PathBuf;
use std::time::Duration;

/// Command-line options: `--only-tools` (no resources or prompts), `--modern-only` (no 2025-11-25 sessions), `--notes DIR` (the notes of
/// `notes_delete`), `--replay-db FILE` (an SQLite replay store), `--state-key BASE64`,
/// `--listen HOST:PORT` (HTTP instead of stdio), `--token TOKEN=PRINCIPAL` (bearer tokens;
/// without any, HTTP is unauthenticated), `--max-body BYTES`, `--fan-out POSTGRES_URL` (relay
/// change events to and from other instances), `--relay-key BASE64` (the key that seals them; a
/// fixed one by default), `--tasks` (the task tools, tasks in memory),
/// `--task-db FILE` (the same, tasks in an SQLite file), `--task-lease-ms MS`.
pub struct Options {
    pub only_tools: bool,
    pub modern_only: bool,
    pub notes: PathBuf,
    pub replay_db: Option<PathBuf>,
    pub state_key: Option<String>,
    pub listen: Option<String>,
    pub tokens: Vec<(String, String)>,
    pub max_body: Option<usize>,
    pub fan_out: Option<String>,
    pub relay_key: Option<String>,
    pub tasks: bool,
    pub task_db: Option<PathBuf>,
    pub task_lease: Option<Duration>,
    /// `--rate-limit N/SECONDS`: at most N requests per principal per SECONDS.
    pub rate_limit: Option<(u32, Duration)>,
    pub timeout: Option<Duration>,
    /// Where the audit layer appends one JSON line per request.
    pub audit: Option<PathBuf>,
}

pub fn options() -> Options {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        only_tools: false,
        modern_only: false,
        notes: std::env::temp_dir(),
        replay_db: None,
        state_key: None,
        listen: None,
        tokens: Vec::new(),
        max_body: None,
        fan_out: None,
        relay_key: None,
        tasks: false,
        task_db: None,
        task_lease: None,
        rate_limit: None,
        timeout: None,
        audit: None,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--only-tools" => options.only_tools = true,
            "--modern-only" => options.modern_only = true,
            "--notes" => options.notes = args.next().expect("--notes DIR").into(),
            "--replay-db" => options.replay_db = Some(args.next().expect("--replay-db FILE").into()),
            "--state-key" => options.state_key = Some(args.next().expect("--state-key BASE64")),
            "--listen" => options.listen = Some(args.next().expect("--listen HOST:PORT")),
            "--token" => {
                let pair = args.next().expect("--token TOKEN=PRINCIPAL");
                let (token, principal) = pair.split_once('=').expect("--token TOKEN=PRINCIPAL");
                options.tokens.push((token.to_owned(), principal.to_owned()));
            }
            "--max-body" => options.max_body = Some(args.next().expect("--max-body BYTES").parse().expect("a number")),
            "--fan-out" => options.fan_out = Some(args.next().expect("--fan-out POSTGRES_URL")),
            "--relay-key" => options.relay_key = Some(args.next().expect("--relay-key BASE64")),
            "--tasks" => options.tasks = true,
            "--task-db" => {
                options.tasks = true;
                options.task_db = Some(args.next().expect("--task-db FILE").into());
            }
            "--task-lease-ms" => {
                let ms = args.next().expect("--task-lease-ms MS").parse().expect("a number");
                options.task_lease = Some(Duration::from_millis(ms));
            }
            "--rate-limit" => {
                let spec = args.next().expect("--rate-limit N/SECONDS");
                let (n, seconds) = spec.split_once('/').expect("--rate-limit N/SECONDS");
                let period = Duration::from_secs(seconds.parse().expect("a number of seconds"));
                options.rate_limit = Some((n.parse().expect("a number of requests"), period));
            }
            "--timeout-ms" => {
                let ms = args.next().expect("--timeout-ms MS").parse().expect("a number");
                options.timeout = Some(Duration::from_millis(ms));
            }
            "--audit" => options.audit = Some(args.next().expect("--audit FILE").into()),
            other => panic!("unknown option {other}"),
        }
    }
    options
}
