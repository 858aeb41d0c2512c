//! The faults, each injected on the fleet while the workload runs, and recorded with when the
//! fleet was whole again, the steps it took and what it found itself.

use std::time::{Duration, Instant};

use mcp_rounds::request_state::StateKey;
use serde_json::{Value, json};

use super::Fleet;
use super::check::{Kind, deleted};
use super::client::{Mcp, message};
use super::record::{Clock, Fault, Op, Recorder};

/// A kind of fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// `kill -9` of the instance running the newest task, restarted a second later.
    Kill,
    /// PostgreSQL stopped (fast shutdown) for two seconds, then started.
    Postgres,
    /// PostgreSQL crashed (`pg_ctl stop -m immediate`), then started.
    PostgresCrash,
    /// PostgreSQL's postmaster and backends killed with `kill -9`, then started.
    PostgresKill,
    /// HAProxy reloaded (a new worker; the old one's streams cut after five seconds).
    Reload,
    /// An instance stopped (SIGSTOP) for four seconds, then continued.
    Stop,
    /// A signing key rotated by three rolling restarts.
    Rotate,
}

impl FaultKind {
    /// Every kind.
    pub const ALL: [FaultKind; 7] = [
        FaultKind::Kill,
        FaultKind::Postgres,
        FaultKind::PostgresCrash,
        FaultKind::PostgresKill,
        FaultKind::Reload,
        FaultKind::Stop,
        FaultKind::Rotate,
    ];

    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Kill => "kill",
            FaultKind::Postgres => "postgres",
            FaultKind::PostgresCrash => "postgres-crash",
            FaultKind::PostgresKill => "postgres-kill",
            FaultKind::Reload => "haproxy",
            FaultKind::Stop => "stop",
            FaultKind::Rotate => "rotate",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        FaultKind::ALL.into_iter().find(|k| k.name() == name)
    }

    fn database(self) -> bool {
        matches!(self, FaultKind::Postgres | FaultKind::PostgresCrash | FaultKind::PostgresKill)
    }
}

/// The state a rotation holds across its phases: a delete of a seeded note the workload never
/// touches, asked before the rotation and answered "do not delete" in a later phase.
struct Held {
    confirm: Value,
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
    /// The task [`task_target`](Self::task_target) found running, for the kill that follows.
    pub chosen_task: Option<String>,
}

impl Injector<'_> {
    /// Injects `kind` on instance `target` (by index, where the kind has one) and records it.
    pub fn inject(&mut self, kind: FaultKind, target: usize) {
        let name = self.fleet.instances[target % self.fleet.instances.len()].name.clone();
        let mut fault = Fault {
            what: String::new(),
            began: self.clock.now(),
            ended: 0.0,
            recovered: None,
            phases: Vec::new(),
            violations: Vec::new(),
            evidence: Vec::new(),
        };
        fault.what = match kind {
            FaultKind::Kill => {
                // Asked just before: a task found earlier may have finished since.
                if let Some(task) = self.chosen_task.take().or_else(|| self.running_task(&name)) {
                    fault.evidence.push(format!("task {task} was running on {name}"));
                }
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
            FaultKind::PostgresCrash => {
                self.fleet.cluster.stop_immediately();
                self.fleet.cluster.start();
                "postgres crash (immediate stop)".to_owned()
            }
            FaultKind::PostgresKill => {
                self.fleet.cluster.kill();
                self.fleet.cluster.start();
                "postgres crash (kill -9)".to_owned()
            }
            FaultKind::Reload => {
                self.fleet.haproxy.reload().expect("haproxy reloads");
                "haproxy reload".to_owned()
            }
            FaultKind::Rotate => self.rotate(&mut fault),
        };
        fault.ended = self.clock.now();
        fault.recovered = self.recovered(kind.database());
        if matches!(kind, FaultKind::PostgresCrash | FaultKind::PostgresKill) {
            self.replay_claimed_before(&mut fault);
        }
        self.recorder.fault(fault);
    }

    /// Sends a request through the balancer, outside the workload's record.
    fn send(&self, request: &Value) -> super::client::Answer {
        self.runtime.block_on(self.probe.send(request, Duration::from_secs(20)))
    }

    /// A task the instance `name` is running now, if any: the newest ones it created, asked of
    /// it directly.
    fn running_task(&self, name: &str) -> Option<String> {
        let instance = self.fleet.instances.iter().find(|i| i.name == name)?;
        let direct = Mcp::new(&format!("127.0.0.1:{}", instance.port), &self.fleet.token);
        let journal = self.recorder.journal();
        let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        journal.tasks.iter().rev().filter(|t| t.created_by.as_deref() == Some(name)).take(4).find_map(|task| {
            let request = message("target", "tasks/get", json!({"taskId": task.id}), tasks.clone());
            let answer = self.runtime.block_on(direct.send(&request, Duration::from_secs(5)));
            (answer.result()?["status"] == "working").then(|| task.id.clone())
        })
    }

    /// The instance running a task now (the newest, which has the most left to do), kept for
    /// the kill: waits for one (up to 30 s), and fails the run if none comes, since a kill that
    /// hits no task proves nothing about tasks.
    pub fn task_target(&mut self) -> usize {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let newest = self.recorder.journal().tasks.iter().rev().find_map(|t| t.created_by.clone());
            let names: Vec<String> = self.fleet.instances.iter().map(|i| i.name.clone()).collect();
            let order = names
                .iter()
                .enumerate()
                .filter(|(_, n)| Some(*n) == newest.as_ref())
                .chain(names.iter().enumerate().filter(|(_, n)| Some(*n) != newest.as_ref()));
            for (index, name) in order {
                if let Some(task) = self.running_task(name) {
                    self.chosen_task = Some(task);
                    return index;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("no instance was running a task within 30 s: the kill would hit none");
    }

    /// After a crash: sends again the confirmations whose success was answered before it (the
    /// newest few); each must be refused, since its claim was committed before the answer.
    fn replay_claimed_before(&mut self, fault: &mut Fault) {
        let journal = self.recorder.journal();
        let claimed: Vec<usize> = journal
            .calls
            .iter()
            .filter(|c| c.answered < fault.began && Kind::of(&c.answer) == Kind::Success && deleted(c))
            .filter_map(|c| match c.op {
                Op::Confirm { state, .. } => Some(state),
                _ => None,
            })
            .collect();
        for state in claimed.iter().rev().take(5) {
            let Some(mut confirm) = journal.confirms.get(state).cloned() else { continue };
            confirm["id"] = json!(format!("after-crash-{state}"));
            let answer = self.send(&confirm);
            match Kind::of(&answer) {
                Kind::Refused => fault.evidence.push(format!("state {state}, used before the crash, refused after it")),
                other => fault
                    .violations
                    .push(format!("state {state}, used before the crash, was answered {other:?} after it: {answer:?}")),
            }
        }
    }

    /// Restarts every instance, one at a time, each back up before the next goes down: taken
    /// out of the balancer first (so that no new request races its shutdown), stopped with
    /// SIGTERM (it finishes what it has), started, and put back.
    fn rolling_restart(&mut self) {
        for index in 0..self.fleet.instances.len() {
            let name = self.fleet.instances[index].name.clone();
            self.fleet.haproxy.set_state(&name, "maint").expect("haproxy takes the instance out");
            self.fleet.instances[index].terminate();
            self.fleet.instances[index].start();
            self.fleet.haproxy.set_state(&name, "ready").expect("haproxy puts the instance back");
            let up = self.fleet.haproxy.wait_all_up(Instant::now() + Duration::from_secs(60));
            up.expect("the restarted instance comes back up");
        }
    }

    /// Asks to delete a seeded note no worker touches, and keeps the confirmation unsent.
    fn hold_state(&self, n: usize) -> Option<Held> {
        let elicitation = json!({"elicitation": {}});
        let arguments = json!({"workspaceUri": self.fleet.workspace_uri(), "title": "Roadmap meeting"});
        let ask = message(
            &format!("held-{n}"),
            "tools/call",
            json!({"name": "notes_delete", "arguments": arguments}),
            elicitation.clone(),
        );
        let state = self.send(&ask).result()?.get("requestState")?.as_str()?.to_owned();
        let confirm = message(
            &format!("held-{n}-confirm"),
            "tools/call",
            json!({
                "name": "notes_delete",
                "arguments": arguments,
                "inputResponses": {"choice": {"action": "accept", "content": {"note": "roadmap-meeting", "confirm": false}}},
                "requestState": state,
            }),
            elicitation,
        );
        Some(Held { confirm })
    }

    /// Uses a held state in `phase`: accepted, or refused when `refused` says so.
    fn use_held(&self, held: Option<Held>, phase: &str, refused: bool, fault: &mut Fault) {
        let Some(held) = held else {
            return fault.violations.push(format!("no state could be held for {phase}"));
        };
        let answer = self.send(&held.confirm);
        let kind = Kind::of(&answer);
        match (kind, refused) {
            (Kind::Success, false) => fault.evidence.push(format!("a state of the old key was accepted {phase}")),
            (Kind::Refused, true) => fault.evidence.push(format!("a state of the old key was refused {phase}")),
            (kind, _) => fault.violations.push(format!(
                "a state of the old key, held unused, was answered {kind:?} {phase} (expected {}): {answer:?}",
                if refused { "a refusal" } else { "acceptance" }
            )),
        }
    }

    /// The three phases: a new key added as a verifier everywhere; then it signs; then the old
    /// one is retired. States signed by the old key and held across the phases are accepted
    /// after the first and second, and refused after the third (their lifetime is longer than
    /// the rotation, so that expiry is not why).
    fn rotate(&mut self, fault: &mut Fault) -> String {
        let held: Vec<Option<Held>> = (0..3).map(|n| self.hold_state(n)).collect();
        let mut held = held.into_iter();
        let (old, new) = {
            let (keys, signing) = &mut self.fleet.keys;
            let last = keys.iter().filter_map(|(id, _)| id.strip_prefix('k')?.parse::<u32>().ok()).max();
            let new = format!("k{}", last.unwrap_or(0) + 1);
            keys.push((new.clone(), StateKey::generate_secret()));
            (signing.clone(), new)
        };
        self.fleet.write_config();
        self.rolling_restart();
        fault.phases.push((format!("{new} verifies everywhere"), self.clock.now()));
        self.use_held(held.next().flatten(), "after the first phase", false, fault);
        self.fleet.keys.1 = new.clone();
        self.fleet.write_config();
        self.rolling_restart();
        fault.phases.push((format!("{new} signs everywhere"), self.clock.now()));
        self.use_held(held.next().flatten(), "after the second phase", false, fault);
        fault.phases.push((format!("{old} retiring"), self.clock.now()));
        self.fleet.keys.0.retain(|(id, _)| *id != old);
        self.fleet.write_config();
        self.rolling_restart();
        fault.phases.push((format!("{old} retired"), self.clock.now()));
        self.use_held(held.next().flatten(), "after the old key was retired", true, fault);
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
