//! Runs the official MCP conformance suite in client mode against the conformance client, one
//! scenario at a time with an explicit `--spec-version`: every scenario the suite requires of a
//! client at 2026-07-28 and at 2025-11-25 apart from authorization (which the client does not
//! do yet), plus `json-schema-2020-12-preservation` at both. A scenario fails on any FAILURE or
//! WARNING among its checks, or on the suite's own verdict.

use std::fs;
use std::path::Path;

use mcp_rounds_tests::conformance::{ConformanceSuite, client_checks_of};
use mcp_rounds_tests::python::target_dir;

/// Plays `scenario` at `version`; the problems found.
fn play(suite: &ConformanceSuite, output_dir: &Path, scenario: &str, version: &str) -> Vec<String> {
    let output = suite
        .command()
        .args(["client", "--command", env!("CARGO_BIN_EXE_conformance-client"), "--scenario", scenario])
        .args(["--spec-version", version, "-o"])
        .arg(output_dir)
        .output()
        .expect("run the conformance suite");
    let report = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let Some(checks) = client_checks_of(output_dir, scenario) else {
        return vec![format!("{scenario} at {version}: did not run\n{report}")];
    };
    let mut problems: Vec<String> = checks
        .iter()
        .filter(|c| c.status == "FAILURE" || c.status == "WARNING")
        .map(|c| format!("{scenario} at {version}: {} {}: {}", c.status, c.id, c.message))
        .collect();
    if checks.iter().all(|c| c.status != "SUCCESS") {
        problems.push(format!("{scenario} at {version}: no check succeeded"));
    }
    if !output.status.success() {
        problems.push(format!("{scenario} at {version}: the suite says it failed ({})\n{report}", output.status));
    }
    problems
}

fn every_scenario_of(version: &str, expected: usize, extra: &[&str]) {
    let suite = ConformanceSuite::install();
    let required: Vec<String> =
        suite.required_client_scenarios(version).into_iter().filter(|s| !s.starts_with("auth/")).collect();
    assert_eq!(
        required.len(),
        expected,
        "the frozen list of {version} has {expected} non-auth client scenarios: {required:?}"
    );
    let output_dir = target_dir().join(format!("conformance-results/client-{}-{version}", std::process::id()));
    let _ = fs::remove_dir_all(&output_dir);
    fs::create_dir_all(&output_dir).expect("create the results directory");
    let scenarios = required.iter().map(String::as_str).chain(extra.iter().copied());
    let problems: Vec<String> = scenarios.flat_map(|scenario| play(&suite, &output_dir, scenario, version)).collect();
    assert!(problems.is_empty(), "{version}: {} problem(s):\n{}", problems.len(), problems.join("\n"));
    let _ = fs::remove_dir_all(&output_dir);
}

#[test]
fn every_non_auth_client_scenario_of_2026_07_28() {
    every_scenario_of("2026-07-28", 7, &["json-schema-2020-12-preservation"]);
}

#[test]
fn every_non_auth_client_scenario_of_2025_11_25() {
    every_scenario_of("2025-11-25", 4, &["json-schema-2020-12-preservation"]);
}
