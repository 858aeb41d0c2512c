//! Prepares what the end-to-end tests need (the Python reference client, the Node.js tools:
//! the official conformance suite and oidc-provider, and a PostgreSQL server on loopback)
//! ahead of the run.

fn main() {
    let python = mcp_rounds_tests::python::interpreter();
    println!("reference client ready: {}", python.display());
    let suite = mcp_rounds_tests::conformance::ConformanceSuite::install();
    let required = suite.required_server_scenarios("2026-07-28");
    println!("conformance suite ready: {} required server scenarios", required.len());
    println!("PostgreSQL ready: {}", mcp_rounds_tests::postgres::url());
}
