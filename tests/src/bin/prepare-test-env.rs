//! Prepares what the end-to-end tests need (the Python reference client) ahead of the run.

fn main() {
    let python = mcp_rounds_tests::python::interpreter();
    println!("reference client ready: {}", python.display());
}
