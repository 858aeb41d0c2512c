//! The faults, each injected on the fleet while the workload runs, and recorded with when the
//! fleet was whole again.

use std::time::{Duration, Instant};

use mcp_rounds::request_state::StateKey;
use serde_json::json;

use super::Fleet;
use super::check::Kind;
use super::client::{Mcp, message};
use super::record::{Clock, Fault, Recorder};

/// A kind of fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// `kill -9` of an instance, restarted a second later.
    Kill,
    /// PostgreSQL stopped (fast shutdown) for two seconds, then started.
    Postgres,
    /// HAProxy reloaded (a new worker; the old one's streams cut after five seconds).
    Reload,
    /// An instance stopped (SIGSTOP) for four seconds, then continued.
    Stop,
    /// A signing key rotated by three rolling restarts.
    Rotate,
}

impl FaultKind {
    /// Every kind.
    pub const ALL: [FaultKind; 5] =
        [FaultKind::Kill, FaultKind::Postgres, FaultKind::Reload, FaultKind::Stop, FaultKind::Rotate];

    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Kill => "kill",
            FaultKind::Postgres => "postgres",
            FaultKind::Reload => "haproxy",
            FaultKind::Stop => "stop",
            FaultKind::Rotate => "rotate",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        FaultKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What a fault needs while it runs: the clock, the record and a client of the balancer.
pub struct Injector<'a> {
    /// The fleet.
    pub fleet: &'a mut Fleet,
    /// The clock.
    pub clock: Clock,
    /// The record.
    pub recorder: Recorder,
    /// A client of the balancer, for the probe that says the fleet is whole again.
    pub probe: Mcp,
    /// The runtime the probe runs on.
    pub runtime: tokio::runtime::Handle,
}

impl Injector<'_> {
    /// Injects `kind` on instance `target` (by index, where the kind has one) and records it.
    pub fn inject(&mut self, kind: FaultKind, target: usize) {
        let name = self.fleet.instances[target % self.fleet.instances.len()].name.clone();
        let began = self.clock.now();
        let what = match kind {
            FaultKind::Kill => {
                self.fleet.instance(&name).kill();
                std::thread::sleep(Duration::from_secs(1));
                self.fleet.instance(&name).start();
                format!("kill {name}")
            }
            FaultKind::Stop => {
                self.fleet.instance(&name).pause();
                std::thread::sleep(Duration::from_secs(4));
                self.fleet.instance(&name).resume();
                format!("stop {name}")
            }
            FaultKind::Postgres => {
                self.fleet.cluster.stop();
                std::thread::sleep(Duration::from_secs(2));
                self.fleet.cluster.start();
                "postgres restart".to_owned()
            }
            FaultKind::Reload => {
                self.fleet.haproxy.reload().expect("haproxy reloads");
                "haproxy reload".to_owned()
            }
            FaultKind::Rotate => self.rotate(),
        };
        let ended = self.clock.now();
        let recovered = self.recovered(kind == FaultKind::Postgres);
        self.recorder.fault(Fault { what, began, ended, recovered });
    }

    /// Restarts every instance, one at a time, each back up before the next goes down.
    fn rolling_restart(&mut self) {
        for index in 0..self.fleet.instances.len() {
            self.fleet.instances[index].terminate();
            self.fleet.instances[index].start();
            let up = self.fleet.haproxy.wait_all_up(Instant::now() + Duration::from_secs(60));
            up.expect("the restarted instance comes back up");
        }
    }

    /// The three phases: a new key added as a verifier everywhere; then it signs; then, once
    /// every state signed by the old one has expired, the old one is gone.
    fn rotate(&mut self) -> String {
        let (old, new) = {
            let (keys, signing) = &mut self.fleet.keys;
            let last = keys.iter().filter_map(|(id, _)| id.strip_prefix('k')?.parse::<u32>().ok()).max();
            let new = format!("k{}", last.unwrap_or(0) + 1);
            keys.push((new.clone(), StateKey::generate_secret()));
            (signing.clone(), new)
        };
        self.fleet.write_config();
        self.rolling_restart();
        self.fleet.keys.1 = new.clone();
        self.fleet.write_config();
        self.rolling_restart();
        // States the old key signed are valid until their time-to-live runs out.
        std::thread::sleep(Duration::from_secs(self.fleet.options.state_ttl + 1));
        self.fleet.keys.0.retain(|(id, _)| *id != old);
        self.fleet.write_config();
        self.rolling_restart();
        format!("rotate {old} → {new}")
    }

    /// When every instance is up in the balancer again and a request through it succeeds (one
    /// that needs the database, after a database fault); `None` if not within a minute.
    fn recovered(&mut self, database: bool) -> Option<f64> {
        let deadline = Instant::now() + Duration::from_secs(60);
        self.fleet.haproxy.wait_all_up(deadline).ok()?;
        // A task that does not exist: answered -32602 from the task store when it is
        // reachable, -31503 when not.
        let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let probe = match database {
            true => message("probe", "tasks/get", json!({"taskId": "no-such-task"}), tasks),
            false => message("probe", "server/discover", json!({}), json!({})),
        };
        while Instant::now() < deadline {
            let answer = self.runtime.block_on(self.probe.send(&probe, Duration::from_secs(5)));
            let whole = match Kind::of(&answer) {
                Kind::Success => true,
                Kind::Refused => database,
                _ => false,
            };
            if whole {
                return Some(self.clock.now());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}
