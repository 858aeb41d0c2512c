//! The fleet under faults, from the command line: `scripts/fleet` runs it long (every fault,
//! combined, for ten minutes) and writes the report; the fleet test runs it briefly per fault.
//!
//! `fleet --server PATH [--faults kill,postgres,haproxy,stop,rotate|none] [--duration SECONDS]
//! [--gap SECONDS] [--report FILE] [--dir DIR] [--broken NAME]`; `--broken` switches on one of
//! the debug build's deliberate faults (`reuse-states`, `drop-changes`, `keep-tasks`), which the
//! checker must catch.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use mcp_rounds_tests::fleet::faults::FaultKind;
use mcp_rounds_tests::fleet::run::{Plan, Target, run};
use mcp_rounds_tests::fleet::workload::Settings;
use mcp_rounds_tests::fleet::{Fleet, Options, report};

const USAGE: &str = "usage: fleet --server PATH [--faults kill,postgres,haproxy,stop,rotate|none] \
                     [--duration SECONDS] [--gap SECONDS] [--report FILE] [--dir DIR] [--broken NAME]";

/// What a report file says before the run's figures.
const INTRODUCTION: &str = "# The fleet under faults

Written by `scripts/fleet` (the long form of the fleet test in `examples/notes/tests/fleet.rs`);
run it again to replace this file.

Three notes-server instances share one data directory and one PostgreSQL database behind HAProxy
(round-robin, a health check that asks each instance `server/discover`, `retry-on
conn-failure`; the configuration is the README's, under \"Running a fleet\"). Workers create,
edit, read and delete notes (each delete in two rounds: the form, then the confirmation with its
single-use `requestState`, sometimes sent again), listen streams follow every note, and an export
runs as a task every 1.5 s. Meanwhile the faults come, one at a time, at random:

- **kill**: `kill -9` of the instance that started the newest task, restarted a second later;
- **postgres**: PostgreSQL stopped (`pg_ctl stop -m fast`) for two seconds, then started;
- **haproxy**: HAProxy reloaded (a new worker; the old one's streams are cut after 5 s);
- **stop**: an instance stopped with SIGSTOP for four seconds, then SIGCONT;
- **rotate**: the signing key rotated by three rolling restarts (new key added as a verifier,
  then made the signer, then, once the states it signed have expired, the old key removed).

The instances reach PostgreSQL over TLS, each verifying the server's certificate (its chain and
its name, rustls's `verify-full`): the fleet makes a CA when it starts, has it sign the cluster's
certificate for `localhost`, and gives its certificate to the instances in the URL
(`--database 'postgres://postgres@localhost:PORT/fleet?sslmode=verify-full&sslrootcert=CA.pem'`).
They tell each other of changes through the database, each notification sealed with the relay key
of the shared `config.toml` (`[[relay.keys]]`, 32 random bytes in base64); one not sealed with a
key of the ring is ignored. A relay key rotates as the state keys do (three rolling restarts: add
the new key, seal with it, remove the old one); the README's \"The database link\" has the rest.

Afterwards the checker reads what every client was told and the files left on disk: each note
is one of the versions it could be given the answers (no success lost, nothing half-written,
nothing created twice), each single-use state took effect at most once and was never refused
before its first use, every change reached every stream open at the time (or that stream ended,
telling its client to listen again), every task ended the same on every instance, and every
error is one the faults explain. Recovery is the time from the end of a fault until HAProxy sees
every instance up and a request through it succeeds.
";

struct Args {
    server: PathBuf,
    faults: Vec<FaultKind>,
    duration: Option<u64>,
    gap: u64,
    report: Option<PathBuf>,
    dir: PathBuf,
    broken: Option<String>,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        server: PathBuf::new(),
        faults: FaultKind::ALL.to_vec(),
        duration: None,
        gap: 4,
        report: None,
        dir: std::env::temp_dir().join(format!("mcp-rounds-fleet-{}", std::process::id())),
        broken: None,
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        let mut value = || given.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--server" => args.server = PathBuf::from(value()?),
            "--faults" => {
                let list = value()?;
                args.faults = if list == "none" {
                    Vec::new()
                } else {
                    list.split(',')
                        .map(|name| FaultKind::parse(name.trim()).ok_or(format!("--faults: no fault named {name:?}")))
                        .collect::<Result<_, _>>()?
                };
            }
            "--duration" => args.duration = Some(value()?.parse().map_err(|_| "--duration: seconds")?),
            "--gap" => args.gap = value()?.parse().map_err(|_| "--gap: seconds")?,
            "--report" => args.report = Some(PathBuf::from(value()?)),
            "--dir" => args.dir = PathBuf::from(value()?),
            "--broken" => args.broken = Some(value()?),
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if args.server.as_os_str().is_empty() {
        return Err(format!("--server is required\n{USAGE}"));
    }
    Ok(args)
}

/// Where a fault lands: a kill where a task is running, anything else on each instance in turn.
fn target(kind: FaultKind, index: usize) -> Target {
    match kind {
        FaultKind::Kill => Target::NewestTask,
        _ => Target::Instance(index),
    }
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(problem) => {
            eprintln!("fleet: {problem}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        binary: args.server.clone(),
        dir: args.dir.clone(),
        instances: 3,
        env: [("NOTES_TEST_EXPORT_PAUSE_MS".to_owned(), "200".to_owned())]
            .into_iter()
            .chain(args.broken.iter().map(|b| ("NOTES_TEST_BROKEN".to_owned(), b.clone())))
            .collect(),
        state_ttl: 60,
        task_lease: 3,
    };
    let mut fleet = Fleet::start(options);
    let plan = Plan {
        settings: Settings::default(),
        gap: Duration::from_secs(args.gap),
        faults: args.faults.iter().enumerate().map(|(i, kind)| (*kind, target(*kind, i))).collect(),
        duration: args.duration.map(Duration::from_secs),
        delivery: Duration::from_secs(10),
        delivery_p99: Duration::from_millis(1500),
    };
    let outcome = run(&mut fleet, &plan);
    let title = match args.duration {
        Some(seconds) => format!("Every fault, combined, for {seconds} s"),
        None => format!("Faults in turn: {}", args.faults.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")),
    };
    let text = report::markdown(&title, &plan, fleet.instances.len(), &outcome);
    println!("{text}");
    if let Some(path) = &args.report
        && let Err(e) = std::fs::write(path, format!("{INTRODUCTION}\n{text}"))
    {
        eprintln!("fleet: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    drop(fleet);
    let _ = std::fs::remove_dir_all(&args.dir);
    if outcome.findings.violations.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}
