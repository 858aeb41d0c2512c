//! The fleet under faults, from the command line: `scripts/fleet` runs it long (every fault,
//! combined, for ten minutes) and writes the report; the fleet test runs it briefly per fault.
//!
//! `fleet --server PATH [--faults kill,postgres,postgres-crash,postgres-kill,haproxy,stop,rotate|none]
//! [--duration SECONDS] [--gap SECONDS] [--report FILE] [--dir DIR] [--broken NAME,...]`;
//! `--broken` switches on deliberate faults of a notes server built with `fleet-faults`
//! (`reuse-states`, `drop-changes`, `no-relay`, `keep-tasks`, `tasks-twice`, `skip-writes`,
//! `lose-answers`), which the checker must catch. Exits 1 when an invariant broke, or when a
//! kind of fault never met work in flight.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use mcp_rounds_tests::fleet::faults::FaultKind;
use mcp_rounds_tests::fleet::run::{Plan, Target, run};
use mcp_rounds_tests::fleet::workload::Settings;
use mcp_rounds_tests::fleet::{Fleet, Options, report};

const USAGE: &str = "usage: fleet --server PATH \
                     [--faults kill,postgres,postgres-crash,postgres-kill,haproxy,stop,rotate|none] \
                     [--duration SECONDS] [--gap SECONDS] [--report FILE] [--dir DIR] [--broken NAME,...]";

/// What a report file says before the run's figures.
const INTRODUCTION: &str = "# The fleet under faults

Written by `scripts/fleet` (the long form of the fleet test in `examples/notes/tests/fleet.rs`);
run it again to replace this file.

Three notes-server instances (built with the `fleet-faults` feature, whose deliberate faults stay
off unless asked for) share one data directory and one PostgreSQL database behind HAProxy
(round-robin, a health check that asks each instance `server/discover`, `retry-on
conn-failure`; the configuration is the README's, under \"Running a fleet\"). Each instance
announces only the changes its own tools make (`[changes] watch_files = false`): the change relay
through PostgreSQL is the only way a change made on one instance reaches another's streams.
Workers create, edit, read and delete notes (each delete in two rounds: the form, then the
confirmation with its single-use `requestState`, sometimes sent again), listen streams follow
every note, and an export runs as a task every 1.5 s. Once every stream is acknowledged, deletes
are confirmed and a task exists, the faults come, one at a time, at random:

- **kill**: `kill -9` of an instance running a task (the run fails if none is), restarted a
  second later;
- **postgres**: PostgreSQL stopped (`pg_ctl stop -m fast`) for two seconds, then started;
- **postgres-crash**: PostgreSQL crashed (`pg_ctl stop -m immediate`), then started: it recovers
  from its WAL;
- **postgres-kill**: PostgreSQL's postmaster and every backend killed with `kill -9`, then
  started;
- **haproxy**: HAProxy reloaded (a new worker; the old one's streams are cut after 5 s);
- **stop**: an instance stopped with SIGSTOP for four seconds, then SIGCONT;
- **rotate**: the signing key rotated by three rolling restarts (each instance taken out of
  HAProxy, stopped with SIGTERM, started and put back): a new key added as a verifier, then made
  the signer, then the old key retired at once (states live 300 s here, longer than the rotation,
  so that three states signed by the old key and held unused can show what each phase does: the
  first two are accepted after phases one and two, the third refused once its key is retired).

PostgreSQL runs with `synchronous_commit=on` (a commit answered is in the WAL, and survives a
crash of the server) and `fsync=off`: a crash of PostgreSQL is simulated, a power loss of the
machine is not, and only that would need `fsync`. The instances reach it over TLS, each verifying
the server's certificate (its chain and its name, rustls's `verify-full`), and seal their change
notifications with the relay key of the shared `config.toml`.

Afterwards the checker reads what every client was told, the files left on disk and the export
runs the instances recorded, and lists every broken invariant:

- **Notes**: each note reads, at every point, and ends as one of the versions it could be given
  the answers: no success lost, nothing half-written, nothing created twice.
- **Single-use states**: each accepted at most once; refused only after it may have been used,
  after it expired, or once its key was retired; each delete that was answered done left exactly
  one trash entry, named by its state's key, and no trash entry exists for a state whose every
  answer said nothing was deleted.
- **Delivery**: every change is matched to a notification of its own on every stream open when
  it was asked for (a later change's notification never stands in for it), within 10 s; the
  99th percentile outside faults stays under 1.5 s. A stream ends only with its result (the
  documented signal) or by a fault that cuts connections, and its client then listened again and
  listed the notes again.
- **Tasks**: every task ended the same on every instance; it completed, unless its instance was
  killed or restarted while it ran; each completed export ran exactly once and holds, for every
  note, a version the note could have had while the export ran; an export answered with an error
  never ran.
- **Errors**: each error answer is one a fault explains: a lost answer or HAProxy's 502/503/504
  while an instance is killed or stopped or HAProxy reloads (never during a rolling restart),
  -31503 while PostgreSQL is down.
- **Faults bite**: each fault met work in flight (a database fault: a request answered -31503,
  and after a crash, states used before it refused after it; kill: a request cut or a task
  running on the instance; stop: requests answered by the others while it waited; rotate: the
  three held states, and streams ended by the restarts). The fleet test repeats a run whose fault
  did not (at most twice), then fails.

What each deliberate fault of `fleet-faults` proves (the fleet test runs each; `--broken` here):

| Fault | What it breaks | The checker says |
|---|---|---|
| `reuse-states` | the replay store forgets every claim | a state accepted again (used twice) |
| `drop-changes` | changes to a third of the notes are never announced | a stream never got its own notification |
| `no-relay` | the relay is not started | a stream never got its own notification (of changes made on other instances) |
| `keep-tasks` | a task's lease never runs out | a task left `working` on a killed instance |
| `tasks-twice` | each export runs twice | a task ran 2 times |
| `skip-writes` | edits of a third of the notes answer success and write nothing | a note read or exported at a version it cannot be |
| `lose-answers` | an instance dies after writing an edit, before answering | an error no fault explains |

Recovery is the time from the end of a fault until HAProxy sees every instance up and a request
through it succeeds.
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
        state_ttl: 300,
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
    // A kind of fault that never met work in flight proved nothing in this run.
    let journal = &outcome.journal;
    let never_bit: Vec<&str> = args
        .faults
        .iter()
        .map(|k| k.name())
        .filter(|name| {
            let of_kind = |what: &str| what.split_whitespace().next() == Some(name.split('-').next().unwrap_or(name));
            let injected = journal.faults.iter().filter(|f| of_kind(&f.what)).count();
            let missed = outcome.findings.unbitten.iter().filter(|m| of_kind(m)).count();
            injected > 0 && missed == injected
        })
        .collect();
    if !never_bit.is_empty() {
        eprintln!("fleet: these faults never met work in flight: {}", never_bit.join(", "));
        return ExitCode::from(1);
    }
    if outcome.findings.violations.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}
