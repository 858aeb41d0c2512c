//! Three notes-server instances behind HAProxy, sharing one data directory and one PostgreSQL,
//! under a workload of creates, edits, reads, two-round deletes, listen streams and export
//! tasks, while one fault at a time hits them: every invariant of the checker holds, and each
//! fault met work in flight. Then the server is broken on purpose, in the ways the
//! `fleet-faults` feature offers, and the checker says so, for the reason it should.
//!
//! Built only with that feature (the test command runs it in a step of its own); the short
//! form of `scripts/fleet`, which runs every fault, combined, for ten minutes.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use mcp_rounds_tests::fleet::faults::FaultKind;
use mcp_rounds_tests::fleet::run::{Outcome, Plan, Target, run};
use mcp_rounds_tests::fleet::workload::Settings;
use mcp_rounds_tests::fleet::{Fleet, Options, report};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

/// One fleet at a time: each takes both cores of a small machine.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn fleet_run(name: &str, faults: &[(FaultKind, Target)], broken: &[&str]) -> Outcome {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = std::env::temp_dir().join(format!("mcp-rounds-fleet-{name}-{}", std::process::id()));
    let mut env = vec![("NOTES_TEST_EXPORT_PAUSE_MS".to_owned(), "200".to_owned())];
    if !broken.is_empty() {
        env.push(("NOTES_TEST_BROKEN".to_owned(), broken.join(",")));
    }
    // States live longer than any rotation, so that only retiring their key refuses them.
    let options =
        Options { binary: PathBuf::from(BIN), dir: dir.clone(), instances: 3, env, state_ttl: 300, task_lease: 3 };
    let mut fleet = Fleet::start(options);
    let plan = Plan {
        settings: Settings::default(),
        gap: Duration::from_secs(3),
        faults: faults.to_vec(),
        duration: None,
        delivery: Duration::from_secs(10),
        delivery_p99: Duration::from_millis(1500),
    };
    let outcome = run(&mut fleet, &plan);
    let text = report::markdown(name, &plan, fleet.instances.len(), &outcome);
    // Kept for whoever reads a failure, beside the other tests' artifacts.
    let reports = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/fleet");
    let _ = std::fs::create_dir_all(&reports);
    let _ = std::fs::write(reports.join(format!("{name}.md")), &text);
    eprintln!("{text}");
    drop(fleet);
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

/// A run of `fault` in which it met work in flight: tried again (at most twice) when it did
/// not, and failed if it never did. A run that proves nothing never passes.
fn biting_run(name: &str, fault: FaultKind, target: Target) -> Outcome {
    let mut missed = Vec::new();
    for attempt in 1..=3 {
        let outcome = fleet_run(&format!("{name}-{attempt}"), &[(fault, target)], &[]);
        if outcome.findings.unbitten.is_empty() {
            return outcome;
        }
        missed.extend(outcome.findings.unbitten);
    }
    panic!("the {name} fault met no work in flight in three runs:\n{}", missed.join("\n"));
}

/// Every invariant held, rounds of one delete were answered by different instances, and each
/// fault was recovered from.
fn assert_sound(outcome: &Outcome) {
    let findings = &outcome.findings;
    assert!(findings.violations.is_empty(), "broken invariants:\n{}", findings.violations.join("\n"));
    assert!(findings.both_rounds > 20, "too few deletes to say anything: {}", findings.both_rounds);
    assert!(findings.crossed > 0, "no delete had its rounds answered by two instances");
    assert!(findings.delivery_calm.len() > 20, "too few changes reached streams outside faults");
    for fault in &outcome.journal.faults {
        assert!(fault.recovered.is_some(), "the fleet did not recover from {}", fault.what);
    }
}

/// The violations of a run, which must include one that `expected` accepts.
fn assert_caught(outcome: &Outcome, what: &str, expected: impl Fn(&str) -> bool) {
    let violations = &outcome.findings.violations;
    assert!(violations.iter().any(|v| expected(v)), "the checker missed {what}: {violations:#?}");
}

/// The streams that ended with their result (the server's signal to listen again).
fn ended_with_result(outcome: &Outcome) -> usize {
    let result = |s: &&mcp_rounds_tests::fleet::record::Stream| {
        s.ended.as_ref().is_some_and(|(_, how)| *how == mcp_rounds_tests::fleet::record::End::Result)
    };
    outcome.journal.streams.iter().filter(result).count()
}

#[test]
fn an_instance_killed_while_it_runs_a_task_loses_nothing_and_the_task_ends_elsewhere() {
    let outcome = biting_run("kill", FaultKind::Kill, Target::NewestTask);
    assert_sound(&outcome);
    // The task running on the killed instance was reported failed by the others once its lease
    // ran out (the checker verified every task's end on every instance).
    let fault = &outcome.journal.faults[0];
    let task = fault.evidence.iter().find_map(|e| e.strip_prefix("task ")?.split_whitespace().next());
    let task = task.unwrap_or_else(|| panic!("no task was running on the killed instance: {:?}", fault.evidence));
    let killed = fault.what.strip_prefix("kill ").unwrap();
    let ends: Vec<_> = outcome.journal.task_ends.iter().filter(|e| e.task == task && e.instance != killed).collect();
    assert!(!ends.is_empty() && ends.iter().all(|e| e.status.as_deref() == Some("failed")), "{ends:#?}");
}

#[test]
fn postgres_crashing_refuses_every_state_claimed_before_it_and_loses_nothing() {
    let outcome = biting_run("postgres-crash", FaultKind::PostgresCrash, Target::Instance(0));
    assert_sound(&outcome);
    // Streams were ended with their result when the instances lost the database's
    // notifications, and listened again.
    assert!(ended_with_result(&outcome) > 0, "no stream was told to listen again");
}

#[test]
fn postgres_killed_with_its_backends_refuses_every_state_claimed_before_it() {
    let outcome = biting_run("postgres-kill", FaultKind::PostgresKill, Target::Instance(0));
    assert_sound(&outcome);
    assert!(ended_with_result(&outcome) > 0, "no stream was told to listen again");
}

#[test]
fn haproxy_reloading_loses_nothing() {
    assert_sound(&biting_run("haproxy", FaultKind::Reload, Target::Instance(0)));
}

#[test]
fn a_stopped_instance_delays_answers_but_loses_nothing() {
    assert_sound(&biting_run("stop", FaultKind::Stop, Target::Instance(1)));
}

#[test]
fn a_key_rotated_by_three_rolling_restarts_fails_no_request_and_retires_the_old_key() {
    // The checker fails a run in which a request failed, or a state was refused before its
    // first use unless its key was retired; the rotation itself checked three held states.
    let outcome = biting_run("rotate", FaultKind::Rotate, Target::Instance(0));
    assert_sound(&outcome);
    assert_eq!(outcome.journal.faults[0].evidence.len(), 3, "{:?}", outcome.journal.faults[0].evidence);
}

#[test]
fn the_checker_catches_states_used_twice_changes_unannounced_tasks_run_twice_and_writes_pretended() {
    let broken = ["reuse-states", "drop-changes", "tasks-twice", "skip-writes"];
    let outcome = fleet_run("broken-server", &[], &broken);
    assert_caught(&outcome, "a state used twice", |v| v.contains("(used twice)"));
    assert_caught(&outcome, "a change never announced", |v| v.contains("never got its own"));
    assert_caught(&outcome, "a task run twice", |v| v.contains("ran 2 times"));
    assert_caught(&outcome, "an edit reported but not made", |v| {
        v.contains("found v") || v.contains("at the end it is") || v.contains("which it never was")
    });
}

#[test]
fn the_checker_catches_a_relay_that_drops_every_event() {
    let outcome = fleet_run("broken-relay", &[], &["no-relay"]);
    assert_caught(&outcome, "relayed changes dropped", |v| v.contains("never got its own"));
    // A later change's notification is never taken for a lost one, only matched late (within
    // the delivery time): delivery times grow too.
    let delivery = |v: &&String| v.contains("never got its own") || v.contains("to reach streams");
    let others: Vec<&String> = outcome.findings.violations.iter().filter(|v| !delivery(v)).collect();
    assert!(others.is_empty(), "only deliveries fail: {others:#?}");
}

#[test]
fn the_checker_catches_a_task_left_running_on_a_killed_instance() {
    let outcome = fleet_run("broken-keep-tasks", &[(FaultKind::Kill, Target::NewestTask)], &["keep-tasks"]);
    assert_caught(&outcome, "a task left working", |v| v.contains("did not end the same") && v.contains("working"));
}

#[test]
fn the_checker_catches_an_answer_lost_with_no_fault_to_explain_it() {
    let outcome = fleet_run("broken-lose-answers", &[], &["lose-answers"]);
    assert_caught(&outcome, "a lost answer", |v| v.contains("no fault explains"));
}

#[test]
fn the_readme_shows_the_haproxy_configuration_the_test_uses() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let block = readme.split("```haproxy\n").nth(1).and_then(|rest| rest.split("```").next()).expect("a haproxy block");
    let servers = [("n1".to_owned(), 8081), ("n2".to_owned(), 8082), ("n3".to_owned(), 8083)];
    let used = mcp_rounds_tests::fleet::haproxy::config(8080, &servers, "<health token>", "/run/haproxy/admin.sock");
    assert_eq!(block, used);
}
