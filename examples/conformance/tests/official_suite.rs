//! Runs the official MCP conformance suite against the conformance server and requires every
//! scenario a protocol revision requires to pass, with no warning either: 2026-07-28 (the
//! stateless revision) and 2025-11-25 (the `initialize` handshake and its sessions), against
//! one server binary that serves both.

use std::fs;

use mcp_rounds_tests::conformance::{ConformanceSuite, checks_of};
use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::python::target_dir;

/// Runs the suite's required server scenarios of `revision` and fails on any problem.
fn every_required_scenario_of(revision: &str, expected: usize) {
    let suite = ConformanceSuite::install();
    let required = suite.required_server_scenarios(revision);
    assert_eq!(required.len(), expected, "the frozen list of {revision} has {expected} server scenarios: {required:?}");

    let server = HttpProcess::spawn(env!("CARGO_BIN_EXE_conformance-server"), &[]);
    let port = server.address.rsplit(':').next().expect("host:port");
    let output_dir = target_dir().join(format!("conformance-results/{}-{revision}", std::process::id()));
    let _ = fs::remove_dir_all(&output_dir);
    fs::create_dir_all(&output_dir).expect("create the results directory");

    let output = suite
        .command()
        .args(["server", "--url", &format!("http://localhost:{port}/mcp"), "--requirements", revision, "-o"])
        .arg(&output_dir)
        .output()
        .expect("run the conformance suite");
    let report = String::from_utf8_lossy(&output.stdout);

    let mut problems = Vec::new();
    for scenario in &required {
        match checks_of(&output_dir, scenario) {
            None => problems.push(format!("{scenario}: did not run")),
            Some(checks) => problems.extend(
                checks
                    .iter()
                    .filter(|c| c.status == "FAILURE" || c.status == "WARNING")
                    .map(|c| format!("{scenario}: {} {}: {}", c.status, c.id, c.message)),
            ),
        }
    }
    assert!(problems.is_empty(), "{revision}: {} problem(s):\n{}\n\n{report}", problems.len(), problems.join("\n"));
    assert!(output.status.success(), "the suite failed at {revision}: {}\n{report}", output.status);
    let _ = fs::remove_dir_all(&output_dir);
}

#[test]
fn every_required_scenario_of_2026_07_28_passes() {
    every_required_scenario_of("2026-07-28", 37);
}

#[test]
fn every_required_scenario_of_2025_11_25_passes() {
    every_required_scenario_of("2025-11-25", 30);
}
