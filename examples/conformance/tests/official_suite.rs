//! Runs the official MCP conformance suite against the conformance server and requires every
//! scenario that protocol 2026-07-28 requires to pass, with no warning either.

use std::fs;

use mcp_rounds_tests::conformance::{ConformanceSuite, checks_of};
use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::python::target_dir;

const REVISION: &str = "2026-07-28";

#[test]
fn every_required_scenario_passes() {
    let suite = ConformanceSuite::install();
    let required = suite.required_server_scenarios(REVISION);
    assert_eq!(required.len(), 37, "the frozen list of {REVISION} has 37 server scenarios: {required:?}");

    let server = HttpProcess::spawn(env!("CARGO_BIN_EXE_conformance-server"), &[]);
    let port = server.address.rsplit(':').next().expect("host:port");
    let output_dir = target_dir().join(format!("conformance-results/{}", std::process::id()));
    let _ = fs::remove_dir_all(&output_dir);
    fs::create_dir_all(&output_dir).expect("create the results directory");

    let output = suite
        .command()
        .args(["server", "--url", &format!("http://localhost:{port}/mcp"), "--requirements", REVISION, "-o"])
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
    assert!(problems.is_empty(), "{} problem(s):\n{}\n\n{report}", problems.len(), problems.join("\n"));
    assert!(output.status.success(), "the suite failed: {}\n{report}", output.status);
    let _ = fs::remove_dir_all(&output_dir);
}
