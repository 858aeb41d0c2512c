//! The notes server's command line and first start, as an operator sees them.

use std::path::PathBuf;
use std::process::Command;

use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("notes-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn bad_flags_give_one_line_and_exit_code_2() {
    for args in [&["--bogus"][..], &["--stdio", "--listen", "127.0.0.1:0"], &["--data"]] {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("notes-server: "), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn unavailable_transports_are_refused_without_touching_data() {
    let dir = fresh_dir("http");
    let out = Command::new(BIN).arg("--data").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--listen"));
    assert!(!dir.exists(), "a refused start must not create the data directory");
}

#[test]
fn first_start_seeds_and_serves_over_stdio_and_later_starts_keep_the_data() {
    let dir = fresh_dir("seed");
    let data = dir.to_str().unwrap();
    let mut server = StdioProcess::spawn(BIN, &["--data", data, "--stdio"]);
    let discover = server.call(&request(json!(1), "server/discover", json!({})));
    assert_eq!(discover["result"]["supportedVersions"], json!(["2026-07-28"]));
    let listed = server.call(&request(
        json!(2),
        "tools/call",
        json!({"name": "notes_list", "arguments": {"query": "tps report"}}),
    ));
    let notes = listed["result"]["structuredContent"]["notes"].as_array().unwrap().clone();
    assert_eq!(notes.len(), 3, "exactly three seeded notes mention TPS report: {notes:?}");
    let (_, status) = server.finish();
    assert_eq!(status.code(), Some(0), "stdio exits 0 when stdin closes");

    assert!(dir.join("workspace-private").is_dir());
    let link = dir.join("workspace/private-link.md");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());

    // Edit a note; a second start must not reseed over it, and must not list the symlink.
    std::fs::write(dir.join("workspace/offsite-ideas.md"), "# Offsite, revised\n").unwrap();
    let mut server = StdioProcess::spawn(BIN, &["--data", data, "--stdio"]);
    let listed = server.call(&request(json!(3), "tools/call", json!({"name": "notes_list"})));
    let notes = &listed["result"]["structuredContent"]["notes"];
    let titles: Vec<&str> = notes.as_array().unwrap().iter().map(|n| n["title"].as_str().unwrap()).collect();
    assert!(titles.contains(&"Offsite, revised"), "{titles:?}");
    assert!(!titles.iter().any(|t| t.contains("Salaries")), "the symlinked private note must not be listed");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
