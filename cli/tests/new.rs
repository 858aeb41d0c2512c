//! `mcp-rounds new`: the crate it writes builds, passes its own tests, and is listed by the
//! command itself.

mod common;

use std::process::Command;

use common::{mcp_rounds, run, text};
use mcp_rounds_tests::python::{target_dir, workspace_root};
use serde_json::Value;

#[test]
fn a_new_server_builds_passes_its_tests_and_lists_its_tools() {
    let parent = std::env::temp_dir().join(format!("mcp-rounds-new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&parent);
    std::fs::create_dir_all(&parent).unwrap();
    let checkout = workspace_root();
    let output = Command::new(mcp_rounds())
        .args(["new", "demo", "--path"])
        .arg(&checkout)
        .current_dir(&parent)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("cargo test"), "it says what to do next");
    let crate_dir = parent.join("demo");
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(&format!("path = \"{}\"", checkout.join("runtime").canonicalize().unwrap().display())));

    // Writing over it is refused, and nothing changes.
    let again = Command::new(mcp_rounds()).args(["new", "demo"]).current_dir(&parent).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("`demo` already exists"), "{}", text(&again.stderr));

    // The checkout's lock file and build directory: the versions this checkout is tested with,
    // already built, rather than a second download and build of every dependency.
    std::fs::copy(checkout.join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let target = target_dir().join("new-crate");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tested = Command::new(&cargo)
        .args(["test", "--quiet"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        tested.status.success(),
        "cargo test in the new crate:\n{}\n{}",
        text(&tested.stdout),
        text(&tested.stderr)
    );
    assert!(text(&tested.stdout).contains("5 passed"), "{}", text(&tested.stdout));

    let server = target.join("debug/demo").display().to_string();
    let listed = run(&["--json", "tools", "list"], std::slice::from_ref(&server));
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let names: Vec<&str> = listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "order_pizza"]);
    let added = run(&["tools", "call", "add", "a=2", "b=40"], &[server]);
    assert_eq!(text(&added.stdout), "42\n", "{}", text(&added.stderr));
    let _ = std::fs::remove_dir_all(&parent);
}
