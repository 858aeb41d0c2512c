//! Runs the official MCP conformance suite in client mode against the conformance client, one
//! scenario at a time with an explicit `--spec-version`: every scenario the suite requires of a
//! client at 2026-07-28 (25 of its 32 are authorization) and at 2025-11-25 (14 of 18), plus
//! `json-schema-2020-12-preservation` at both, and the client credentials extension's two
//! scenarios (which the suite runs but does not score: they are judged here from their checks).
//! A scenario fails on any FAILURE or WARNING among its checks, or on the suite's own verdict.

use std::fs;
use std::path::Path;

use mcp_rounds_tests::conformance::{ConformanceSuite, client_checks_of};
use mcp_rounds_tests::python::target_dir;

/// Plays `scenario` at `version` (an extension's scenario: at the version the suite gives it);
/// the problems found.
fn play(suite: &ConformanceSuite, output_dir: &Path, scenario: &str, version: &str) -> Vec<String> {
    let mut command = suite.command();
    command.args(["client", "--command", env!("CARGO_BIN_EXE_conformance-client"), "--scenario", scenario]);
    if version != "extension" {
        command.args(["--spec-version", version]);
    }
    let output = command.arg("-o").arg(output_dir).output().expect("run the conformance suite");
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
    let required = if version == "extension" { Vec::new() } else { suite.required_client_scenarios(version) };
    assert_eq!(required.len(), expected, "the frozen list of {version} has {expected} client scenarios: {required:?}");
    let output_dir = target_dir().join(format!("conformance-results/client-{}-{version}", std::process::id()));
    let _ = fs::remove_dir_all(&output_dir);
    fs::create_dir_all(&output_dir).expect("create the results directory");
    let scenarios = required.iter().map(String::as_str).chain(extra.iter().copied());
    let problems: Vec<String> = scenarios.flat_map(|scenario| play(&suite, &output_dir, scenario, version)).collect();
    assert!(problems.is_empty(), "{version}: {} problem(s):\n{}", problems.len(), problems.join("\n"));
    let _ = fs::remove_dir_all(&output_dir);
}

#[test]
fn every_client_scenario_of_2026_07_28() {
    every_scenario_of("2026-07-28", 32, &["json-schema-2020-12-preservation"]);
}

#[test]
fn every_client_scenario_of_2025_11_25() {
    every_scenario_of("2025-11-25", 18, &["json-schema-2020-12-preservation"]);
}

#[test]
fn the_client_credentials_extension() {
    every_scenario_of("extension", 0, &["auth/client-credentials-basic", "auth/client-credentials-jwt"]);
}
