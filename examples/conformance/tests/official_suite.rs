//! Runs the official MCP conformance suite against the conformance server at two revisions,
//! 2026-07-28 (the stateless revision) and 2025-11-25 (the `initialize` handshake and its
//! sessions), against one server binary that serves both. Every scenario the suite runs for a
//! revision must pass with no warning: the required ones, and also those it runs without
//! scoring them (the tasks extension, and scenarios still pending in the suite).

use std::fs;

use mcp_rounds_tests::conformance::{Check, ConformanceSuite, checks_of};
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
        if checks_of(&output_dir, scenario).is_none() {
            problems.push(format!("{scenario}: did not run"));
        }
    }
    let ran = scenarios_run(&output_dir);
    assert!(ran.len() > required.len(), "the unscored scenarios ran too: {ran:?}");
    for scenario in &ran {
        let checks = checks_of(&output_dir, scenario).unwrap_or_default();
        problems.extend(
            checks
                .iter()
                .filter(|c| c.status == "FAILURE" || c.status == "WARNING")
                .map(|c| format!("{scenario}: {} {}: {}", c.status, c.id, c.message)),
        );
    }
    let total = report.lines().find(|line| line.starts_with("Total: ")).unwrap_or_default();
    if !total.ends_with(" 0 failed") {
        problems.push(format!("the suite's own total: {total:?}"));
    }
    assert!(problems.is_empty(), "{revision}: {} problem(s):\n{}\n\n{report}", problems.len(), problems.join("\n"));
    assert!(output.status.success(), "the suite failed at {revision}: {}\n{report}", output.status);
    let _ = fs::remove_dir_all(&output_dir);
}

/// The scenarios whose results the suite saved (directories `server-<scenario>-<timestamp>`).
fn scenarios_run(output_dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(output_dir)
        .expect("the results directory")
        .map_while(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let rest = name.strip_prefix("server-")?;
            // The timestamp starts at the last "-20" (the year).
            let end = rest.rfind("-20")?;
            Some(rest[..end].to_owned())
        })
        .collect();
    names.sort();
    names
}

/// The skills extension's scenarios, which the suite keeps among its pending ones: run by name.
const SKILLS_SCENARIOS: [&str; 3] =
    ["sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest"];

/// Runs `scenario` (at 2026-07-28, or over a legacy session with `legacy`) and returns its checks.
fn run_scenario(suite: &ConformanceSuite, server: &HttpProcess, scenario: &str, legacy: bool) -> Vec<Check> {
    let port = server.address.rsplit(':').next().expect("host:port");
    let output_dir = target_dir().join(format!("conformance-results/{}-{scenario}-{legacy}", std::process::id()));
    let _ = fs::remove_dir_all(&output_dir);
    fs::create_dir_all(&output_dir).expect("create the results directory");
    let mut command = suite.command();
    command.args(["server", "--url", &format!("http://localhost:{port}/mcp"), "--scenario", scenario, "-o"]);
    command.arg(&output_dir);
    if legacy {
        command.args(["--spec-version", "2025-11-25", "--force"]);
    }
    let output = command.output().expect("run the conformance suite");
    let checks = checks_of(&output_dir, scenario).unwrap_or_else(|| {
        panic!(
            "{scenario} did not run:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let _ = fs::remove_dir_all(&output_dir);
    checks
}

#[test]
fn the_skills_scenarios_pass_every_check() {
    let suite = ConformanceSuite::install();
    let server = HttpProcess::spawn(env!("CARGO_BIN_EXE_conformance-server"), &[]);
    let mut problems = Vec::new();
    let mut count = 0;
    for scenario in SKILLS_SCENARIOS {
        let checks = run_scenario(&suite, &server, scenario, false);
        count += checks.len();
        problems.extend(
            checks
                .iter()
                .filter(|c| c.status != "SUCCESS")
                .map(|c| format!("{scenario}: {} {}: {}", c.status, c.id, c.message)),
        );
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
    // The suite's 42 checks, and its wire-schema check once a scenario.
    assert_eq!(count, 42 + SKILLS_SCENARIOS.len(), "every check of the three scenarios ran");
}

#[test]
fn the_skills_scenarios_pass_over_a_legacy_session() {
    let suite = ConformanceSuite::install();
    let server = HttpProcess::spawn(env!("CARGO_BIN_EXE_conformance-server"), &[]);
    let mut problems = Vec::new();
    for scenario in SKILLS_SCENARIOS {
        for check in run_scenario(&suite, &server, scenario, true) {
            // The cache hints do not exist before 2026-07-28: the suite skips their checks.
            let expected = if check.id.ends_with("-cache-attributes") { "SKIPPED" } else { "SUCCESS" };
            if check.status != expected {
                problems.push(format!("{scenario}: {} {}: {}", check.status, check.id, check.message));
            }
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn every_scenario_of_2026_07_28_passes() {
    every_required_scenario_of("2026-07-28", 37);
}

#[test]
fn every_scenario_of_2025_11_25_passes() {
    every_required_scenario_of("2025-11-25", 30);
}
