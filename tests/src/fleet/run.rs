//! One run: the workload through the balancer, the faults on their schedule meanwhile, then
//! the streams drained, every task followed to its end on every instance, and the check.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::Fleet;
use super::check::{Expect, Findings, check};
use super::check_streams::awaited;
use super::client::Mcp;
use super::faults::{FaultKind, Injector};
use super::record::{Clock, Journal, Recorder, TaskEnd};
use super::streams::follow;
use super::workload::{Dice, Settings, Shared, exporter, slot_id, task_status, worker};

/// Which instance a fault hits.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// The instance at this index.
    Instance(usize),
    /// An instance running a task now (the run fails if none is).
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
    /// The 99th percentile of delivery times outside faults must stay under this.
    pub delivery_p99: Duration,
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

/// Waits until the workload is under way: every stream acknowledged, deletes confirmed, a task
/// created; fails the run if that takes more than a minute.
fn await_warm(recorder: &Recorder, settings: &Settings) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let journal = recorder.journal();
        let open = journal.streams.iter().filter(|s| s.acknowledged.is_some() && s.ended.is_none()).count();
        let confirmed = journal.calls.iter().filter(|c| super::check::deleted(c)).count();
        if open >= settings.streams && confirmed >= 3 && !journal.tasks.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the workload did not get going within a minute: {open} streams open, {confirmed} deletes, {} tasks",
            journal.tasks.len()
        );
        std::thread::sleep(Duration::from_millis(20));
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
        .map(|n| runtime.spawn(follow(mcp.clone(), clock.clone(), recorder.clone(), uris.clone(), n, closing.clone())))
        .collect();
    let mut workers: Vec<_> = (0..plan.settings.workers).map(|w| runtime.spawn(worker(shared.clone(), w))).collect();
    workers.push(runtime.spawn(exporter(shared.clone())));

    let mut injector = Injector {
        fleet,
        clock: clock.clone(),
        recorder: recorder.clone(),
        probe: mcp.clone(),
        runtime: runtime.handle().clone(),
        chosen_task: None,
    };
    let mut dice = Dice::new(7);
    let mut next = 0;
    await_warm(&recorder, &plan.settings);
    loop {
        // The workload runs a while before each fault (outside faults, delivery is measured
        // against its bound) and after the last.
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
        let index = match target {
            Target::Instance(index) => index,
            Target::NewestTask => injector.task_target(),
        };
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
        delivery_p99: plan.delivery_p99.as_secs_f64() * 1000.0,
        state_ttl: fleet.options.state_ttl as f64 * 1000.0,
        grace: 3000.0,
        uri_prefix,
    };
    // The streams get what they are still owed (or the delivery time runs out), then close.
    let deadline = Instant::now() + plan.delivery;
    while Instant::now() < deadline && awaited(&recorder.journal(), &expect, clock.now()) > 0 {
        std::thread::sleep(Duration::from_millis(50));
    }
    recorder.update(|j| j.closing = Some(clock.now()));
    let _ = close.send(true);
    for handle in streams {
        runtime.block_on(handle).expect("a stream panicked");
    }
    follow_tasks(fleet, &runtime, &shared);
    let runs = export_runs(&fleet.options.dir.join("runs"));
    recorder.update(|j| j.export_runs = runs);
    let journal = recorder.journal();
    let findings = check(&journal, &fleet.workspace(), &expect);
    Outcome { journal, findings, seconds: started.elapsed().as_secs_f64() }
}

/// How many times each export ran, by the request it answered: the files the instances left in
/// `dir` (`REQUEST.RANDOM`, one per run).
fn export_runs(dir: &std::path::Path) -> std::collections::BTreeMap<String, usize> {
    let mut runs = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some((request, _)) = name.rsplit_once('.') {
            *runs.entry(request.trim_matches('_').to_owned()).or_default() += 1;
        }
    }
    runs
}

/// Asks every running instance directly for every task until each shows it ended, or until a
/// task whose instance died has had time to be reported failed (twice its lease, and some).
fn follow_tasks(fleet: &mut Fleet, runtime: &tokio::runtime::Runtime, shared: &Shared) {
    let deadline = Instant::now() + Duration::from_secs(fleet.options.task_lease * 2 + 10);
    let tasks = shared.recorder.journal().tasks;
    for instance in fleet.instances.iter_mut() {
        if !instance.is_running() {
            continue;
        }
        let direct = Shared { mcp: Mcp::new(&format!("127.0.0.1:{}", instance.port), &fleet.token), ..shared.clone() };
        for task in &tasks {
            let shown = loop {
                let answer = runtime.block_on(task_status(&direct, &task.id, "end"));
                let shown = answer.result().cloned();
                let status = shown.as_ref().and_then(|r| r["status"].as_str());
                let done = matches!(status, Some("completed" | "failed" | "cancelled"));
                if done || Instant::now() >= deadline {
                    break shown;
                }
                std::thread::sleep(Duration::from_millis(100));
            };
            let field = |name: &str| shown.as_ref().and_then(|r| r.get(name)).cloned();
            let updated = field("lastUpdatedAt")
                .and_then(|v| v.as_str().and_then(|t| humantime::parse_rfc3339(t).ok()))
                .map(|t| shared.clock.of_wall(t));
            shared.recorder.task_end(TaskEnd {
                task: task.id.clone(),
                instance: instance.name.clone(),
                status: field("status").and_then(|v| v.as_str().map(str::to_owned)),
                result: field("result"),
                error: field("error"),
                updated,
            });
        }
    }
}
