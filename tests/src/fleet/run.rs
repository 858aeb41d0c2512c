//! One run: the workload through the balancer, the faults on their schedule meanwhile, then
//! the streams drained, every task followed to its end on every instance, and the check.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::Fleet;
use super::check::{Expect, Findings, awaited, check};
use super::client::Mcp;
use super::faults::{FaultKind, Injector};
use super::record::{Clock, Journal, Recorder};
use super::streams::follow;
use super::workload::{Dice, Settings, Shared, exporter, slot_id, task_status, worker};

/// Which instance a fault hits.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// The instance at this index.
    Instance(usize),
    /// The instance that created the newest task (so that a task is running where it lands).
    NewestTask,
}

/// What one run does.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The workload.
    pub settings: Settings,
    /// How long the workload runs before the first fault, and between faults.
    pub gap: Duration,
    /// The faults, in order.
    pub faults: Vec<(FaultKind, Target)>,
    /// With a length: faults keep coming, picked from `faults` at random, until it is over.
    pub duration: Option<Duration>,
    /// How long a change may take to reach a stream.
    pub delivery: Duration,
}

/// What one run saw and what the checker found.
pub struct Outcome {
    /// The record.
    pub journal: Journal,
    /// The check.
    pub findings: Findings,
    /// How long the run took, in seconds.
    pub seconds: f64,
}

fn target_index(fleet: &Fleet, recorder: &Recorder, target: Target) -> usize {
    match target {
        Target::Instance(index) => index,
        Target::NewestTask => {
            let journal = recorder.journal();
            let newest = journal.tasks.last().and_then(|t| t.created_by.clone());
            fleet.instances.iter().position(|i| Some(&i.name) == newest.as_ref()).unwrap_or(0)
        }
    }
}

/// Runs `plan` on `fleet`.
pub fn run(fleet: &mut Fleet, plan: &Plan) -> Outcome {
    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let clock = Clock::start();
    let recorder = Recorder::default();
    let mcp = Mcp::new(&fleet.haproxy.address(), &fleet.token);
    let stop = Arc::new(AtomicBool::new(false));
    let shared = Shared {
        mcp: mcp.clone(),
        clock: clock.clone(),
        recorder: recorder.clone(),
        workspace: fleet.workspace_uri(),
        stop: stop.clone(),
        settings: plan.settings.clone(),
    };
    let uri_prefix = "notes://workspace/".to_owned();
    let uris: Vec<String> = (0..plan.settings.workers)
        .flat_map(|w| (0..plan.settings.slots).map(move |s| slot_id(w, s)))
        .map(|id| format!("{uri_prefix}{id}"))
        .collect();
    let (close, closing) = tokio::sync::watch::channel(false);
    let streams: Vec<_> = (0..plan.settings.streams)
        .map(|_| runtime.spawn(follow(mcp.clone(), clock.clone(), recorder.clone(), uris.clone(), closing.clone())))
        .collect();
    let mut workers: Vec<_> = (0..plan.settings.workers).map(|w| runtime.spawn(worker(shared.clone(), w))).collect();
    workers.push(runtime.spawn(exporter(shared.clone())));

    let mut injector = Injector {
        fleet,
        clock: clock.clone(),
        recorder: recorder.clone(),
        probe: mcp.clone(),
        runtime: runtime.handle().clone(),
    };
    let mut dice = Dice::new(7);
    let mut next = 0;
    loop {
        std::thread::sleep(plan.gap);
        let (kind, target) = match plan.duration {
            None if next == plan.faults.len() => break,
            None => plan.faults[next],
            Some(length) if started.elapsed() >= length => break,
            Some(_) if plan.faults.is_empty() => continue,
            Some(_) => {
                let (kind, target) = plan.faults[dice.below(plan.faults.len())];
                let target = match target {
                    Target::Instance(_) => Target::Instance(dice.below(injector.fleet.instances.len())),
                    newest => newest,
                };
                (kind, target)
            }
        };
        next += 1;
        let index = target_index(injector.fleet, &recorder, target);
        injector.inject(kind, index);
    }

    stop.store(true, Ordering::SeqCst);
    for handle in workers {
        runtime.block_on(handle).expect("a worker panicked");
    }
    let expect = Expect {
        workers: plan.settings.workers,
        slots: plan.settings.slots,
        delivery: plan.delivery.as_secs_f64() * 1000.0,
        state_ttl: fleet.options.state_ttl as f64 * 1000.0,
        grace: 3000.0,
        uri_prefix,
    };
    // The streams get what they are still owed (or the delivery time runs out), then close.
    let deadline = Instant::now() + plan.delivery;
    while Instant::now() < deadline && awaited(&recorder.journal(), &expect, clock.now()) > 0 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = close.send(true);
    for handle in streams {
        runtime.block_on(handle).expect("a stream panicked");
    }
    follow_tasks(fleet, &runtime, &shared);
    let journal = recorder.journal();
    let findings = check(&journal, &fleet.workspace(), &expect);
    Outcome { journal, findings, seconds: started.elapsed().as_secs_f64() }
}

/// Asks every instance directly for every task until each shows it ended, or until a task
/// whose instance died has had time to be reported failed (twice its lease, and some).
fn follow_tasks(fleet: &Fleet, runtime: &tokio::runtime::Runtime, shared: &Shared) {
    let deadline = Instant::now() + Duration::from_secs(fleet.options.task_lease * 2 + 10);
    let tasks = shared.recorder.journal().tasks;
    for instance in &fleet.instances {
        let direct = Shared { mcp: Mcp::new(&format!("127.0.0.1:{}", instance.port), &fleet.token), ..shared.clone() };
        for task in &tasks {
            let status = loop {
                let answer = runtime.block_on(task_status(&direct, &task.id, "end"));
                let status = answer.result().and_then(|r| r["status"].as_str()).map(str::to_owned);
                let done = matches!(status.as_deref(), Some("completed" | "failed" | "cancelled"));
                if done || Instant::now() >= deadline {
                    break status;
                }
                std::thread::sleep(Duration::from_millis(100));
            };
            shared.recorder.task_end(&task.id, &instance.name, status);
        }
    }
}
