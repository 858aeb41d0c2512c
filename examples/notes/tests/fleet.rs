//! Three notes-server instances behind HAProxy, sharing one data directory and one PostgreSQL,
//! under a workload of creates, edits, reads, two-round deletes, listen streams and export
//! tasks, while one fault at a time hits them: every invariant of the checker holds. Then the
//! server is broken on purpose, one way at a time, and the checker says so.
//!
//! The short form of `scripts/fleet`, which runs every fault, combined, for ten minutes.

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

fn fleet_run(name: &str, faults: &[(FaultKind, Target)], broken: Option<&str>) -> Outcome {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = std::env::temp_dir().join(format!("mcp-rounds-fleet-{name}-{}", std::process::id()));
    let mut env = vec![("NOTES_TEST_EXPORT_PAUSE_MS".to_owned(), "200".to_owned())];
    env.extend(broken.map(|b| ("NOTES_TEST_BROKEN".to_owned(), b.to_owned())));
    let options =
        Options { binary: PathBuf::from(BIN), dir: dir.clone(), instances: 3, env, state_ttl: 10, task_lease: 3 };
    let mut fleet = Fleet::start(options);
    let plan = Plan {
        settings: Settings::default(),
        gap: Duration::from_secs(3),
        faults: faults.to_vec(),
        duration: None,
        delivery: Duration::from_secs(10),
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

/// Every invariant held, rounds of one delete were answered by different instances, and each
/// fault was recovered from.
fn assert_sound(outcome: &Outcome) {
    let findings = &outcome.findings;
    assert!(findings.violations.is_empty(), "broken invariants:\n{}", findings.violations.join("\n"));
    assert!(findings.both_rounds > 20, "too few deletes to say anything: {}", findings.both_rounds);
    assert!(findings.crossed > 0, "no delete had its rounds answered by two instances");
    assert!(!findings.delivery.is_empty(), "no change reached a stream");
    for fault in &outcome.journal.faults {
        assert!(fault.recovered.is_some(), "the fleet did not recover from {}", fault.what);
    }
}

#[test]
fn an_instance_killed_mid_request_while_it_runs_a_task_loses_nothing() {
    let outcome = fleet_run("kill", &[(FaultKind::Kill, Target::NewestTask)], None);
    assert_sound(&outcome);
    // The task that was running on the killed instance ended (failed, after its lease) and
    // every instance says so; the checker verified each one.
    assert!(outcome.journal.tasks.len() >= 2);
}

#[test]
fn postgres_restarting_answers_retryable_errors_and_loses_nothing() {
    let outcome = fleet_run("postgres", &[(FaultKind::Postgres, Target::Instance(0))], None);
    assert_sound(&outcome);
    // Streams were ended with their result when the instances lost the database's
    // notifications, and listened again.
    let ended_with_result = outcome
        .journal
        .streams
        .iter()
        .filter(|s| s.ended.as_ref().is_some_and(|(_, how)| *how == mcp_rounds_tests::fleet::record::End::Result));
    assert!(ended_with_result.count() > 0, "no stream was told to listen again");
}

#[test]
fn haproxy_reloading_loses_nothing() {
    assert_sound(&fleet_run("haproxy", &[(FaultKind::Reload, Target::Instance(0))], None));
}

#[test]
fn a_stopped_instance_delays_answers_but_loses_nothing() {
    assert_sound(&fleet_run("stop", &[(FaultKind::Stop, Target::Instance(1))], None));
}

#[test]
fn a_key_rotated_by_three_rolling_restarts_refuses_no_state() {
    // The checker fails a run in which a state was refused before its first use.
    assert_sound(&fleet_run("rotate", &[(FaultKind::Rotate, Target::Instance(0))], None));
}

#[test]
fn the_checker_catches_a_state_used_twice() {
    let outcome = fleet_run("broken-reuse-states", &[], Some("reuse-states"));
    let violations = &outcome.findings.violations;
    assert!(violations.iter().any(|v| v.contains("(used twice)")), "{violations:#?}");
}

#[test]
fn the_checker_catches_a_change_never_announced() {
    let outcome = fleet_run("broken-drop-changes", &[], Some("drop-changes"));
    let violations = &outcome.findings.violations;
    assert!(violations.iter().any(|v| v.contains("never got Updated")), "{violations:#?}");
}

#[test]
fn the_checker_catches_a_task_left_running_on_a_killed_instance() {
    let outcome = fleet_run("broken-keep-tasks", &[(FaultKind::Kill, Target::NewestTask)], Some("keep-tasks"));
    let violations = &outcome.findings.violations;
    assert!(violations.iter().any(|v| v.contains("did not end the same") && v.contains("working")), "{violations:#?}");
}

#[test]
fn the_readme_shows_the_haproxy_configuration_the_test_uses() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let block = readme.split("```haproxy\n").nth(1).and_then(|rest| rest.split("```").next()).expect("a haproxy block");
    let servers = [("n1".to_owned(), 8081), ("n2".to_owned(), 8082), ("n3".to_owned(), 8083)];
    let used = mcp_rounds_tests::fleet::haproxy::config(8080, &servers, "<health token>", "/run/haproxy/admin.sock");
    assert_eq!(block, used);
}
