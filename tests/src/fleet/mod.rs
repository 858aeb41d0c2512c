//! A fleet of notes-server instances under faults: three (or more) instances sharing one data
//! directory and one PostgreSQL, behind HAProxy; a workload through it; faults injected on a
//! schedule; and a checker of invariants over what the workload saw and the data left behind.
//! The fleet test runs it briefly per fault; `scripts/fleet` runs it long with every fault.

pub mod check;
pub mod check_faults;
pub mod check_states;
pub mod check_streams;
pub mod check_tasks;
pub mod client;
pub mod faults;
pub mod haproxy;
pub mod instance;
pub mod record;
pub mod report;
pub mod run;
pub mod streams;
pub mod workload;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_rounds::request_state::StateKey;

use crate::postgres::Cluster;
use haproxy::Haproxy;
use instance::{Instance, free_port};

/// How the fleet is made.
#[derive(Clone, Debug)]
pub struct Options {
    /// The notes server.
    pub binary: PathBuf,
    /// Where everything of this fleet goes (replaced).
    pub dir: PathBuf,
    /// How many instances.
    pub instances: usize,
    /// Environment of every instance (the deliberate faults of a `fleet-faults` build, say).
    pub env: Vec<(String, String)>,
    /// `[state] ttl_seconds`.
    pub state_ttl: u64,
    /// `[tasks] lease_seconds`.
    pub task_lease: u64,
}

fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer).expect("random bytes");
    buffer.iter().map(|b| format!("{b:02x}")).collect()
}

/// The running fleet.
pub struct Fleet {
    /// How it was made.
    pub options: Options,
    /// The shared data directory.
    pub data: PathBuf,
    /// The load balancer (dropped first, then the instances, then the database).
    pub haproxy: Haproxy,
    /// The instances, in the balancer's order.
    pub instances: Vec<Instance>,
    /// The database.
    pub cluster: Cluster,
    /// The workload's bearer token.
    pub token: String,
    health_token: String,
    /// The state keys (id, secret), in order, and the id of the one that signs.
    pub keys: (Vec<(String, String)>, String),
    /// The secret of the relay key that seals the instances' change notifications.
    relay_secret: String,
}

impl Fleet {
    /// Seeds the data, starts the database (serving TLS, which the instances verify), every
    /// instance and the balancer, and returns once the balancer sees every instance up.
    pub fn start(options: Options) -> Self {
        let _ = std::fs::remove_dir_all(&options.dir);
        std::fs::create_dir_all(&options.dir).expect("create the fleet's directory");
        let cluster = Cluster::create_durable(&options.dir.join("postgres"), free_port());
        let data = options.dir.join("data");
        let seeded = std::process::Command::new(&options.binary)
            .args(["--data", data.to_str().expect("a UTF-8 path"), "--stdio"])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run the notes server");
        assert!(seeded.status.success(), "seeding: {}", String::from_utf8_lossy(&seeded.stderr));
        let keys = (vec![("k1".to_owned(), StateKey::generate_secret())], "k1".to_owned());
        let (token, health_token) = (random_hex(24), random_hex(24));
        let args =
            vec!["--data".to_owned(), data.to_string_lossy().into_owned(), "--database".to_owned(), cluster.url()];
        let mut env = options.env.clone();
        env.push(("NOTES_LOG".into(), "warn".into()));
        // Each run of an export leaves a file here, for the checker to count.
        let runs = options.dir.join("runs");
        std::fs::create_dir_all(&runs).expect("create the export runs' directory");
        env.push(("NOTES_TEST_EXPORT_RUNS".into(), runs.to_string_lossy().into_owned()));
        let instances: Vec<Instance> = (1..=options.instances)
            .map(|n| {
                let log = options.dir.join(format!("n{n}.log"));
                Instance::new(&format!("n{n}"), options.binary.clone(), args.clone(), env.clone(), log)
            })
            .collect();
        let servers: Vec<(String, u16)> = instances.iter().map(|i| (i.name.clone(), i.port)).collect();
        let haproxy = Haproxy::start(&options.dir, &servers, &health_token);
        let relay_secret = StateKey::generate_secret();
        let mut fleet = Fleet { options, data, instances, haproxy, cluster, token, health_token, keys, relay_secret };
        fleet.write_config();
        for instance in &mut fleet.instances {
            instance.start();
        }
        fleet.haproxy.wait_all_up(Instant::now() + Duration::from_secs(60)).expect("the fleet comes up");
        fleet
    }

    /// The workspace every instance serves.
    pub fn workspace(&self) -> PathBuf {
        self.data.join("workspace")
    }

    /// Its `file://` URI.
    pub fn workspace_uri(&self) -> String {
        format!("file://{}", self.workspace().display())
    }

    /// Writes `config.toml` from the fleet's settings and keys (whole, by a rename, so that an
    /// instance starting meanwhile never reads half of it). Instances read it when they start.
    pub fn write_config(&self) {
        let (keys, signing) = &self.keys;
        let mut text = format!(
            "[principals.demo]\ntoken = \"{}\"\nworkspaces = [\"{}\"]\n\n\
             # The load balancer's health checks: may use no workspace.\n[principals.health]\ntoken = \"{}\"\n\n\
             [state]\nttl_seconds = {}\nsigning = \"{signing}\"\n\n[tasks]\nlease_seconds = {}\n\n[model]\nprovider = \"builtin\"\n\n\
             # Each instance announces what it changes; the relay tells the others (the only way\n\
             # a change made on one instance reaches another's streams).\n[changes]\nwatch_files = false\n",
            self.token,
            self.workspace_uri(),
            self.health_token,
            self.options.state_ttl,
            self.options.task_lease,
        );
        for (id, secret) in keys {
            text.push_str(&format!("\n[[state.keys]]\nid = \"{id}\"\nsecret = \"{secret}\"\n"));
        }
        text.push_str(&format!("\n[[relay.keys]]\nid = \"r1\"\nsecret = \"{}\"\n", self.relay_secret));
        write_whole(&self.data.join("config.toml"), &text);
    }

    /// The instance named `name`.
    pub fn instance(&mut self, name: &str) -> &mut Instance {
        self.instances.iter_mut().find(|i| i.name == name).unwrap_or_else(|| panic!("no instance {name}"))
    }
}

fn write_whole(path: &Path, text: &str) {
    let temporary = path.with_extension("toml.new");
    std::fs::write(&temporary, text).expect("write the config");
    std::fs::rename(&temporary, path).expect("move the config into place");
}
