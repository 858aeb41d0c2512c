//! The notes server's command line and first start, as an operator sees them.

use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("notes-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn refused(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("notes-server: "), "{stderr}");
    stderr
}

fn workspace_uri(dir: &Path) -> String {
    format!("file://{}/workspace", std::fs::canonicalize(dir).unwrap().display())
}

#[test]
fn bad_flags_give_one_line_and_exit_code_2() {
    for args in [&["--bogus"][..], &["--stdio", "--listen", "127.0.0.1:0"], &["--data"]] {
        refused(args);
    }
}

#[test]
fn refusals_touch_no_data() {
    let dir = fresh_dir("refused");
    let data = dir.to_str().unwrap();
    let stderr = refused(&["--data", data, "--stdio", "--database", "mysql://db.example/notes"]);
    assert!(stderr.contains("mysql://"), "{stderr}");
    assert!(!dir.exists(), "a refused start must not create the data directory");

    // An unreadable config on existing data: refused, and the notes are as they were.
    std::fs::create_dir_all(dir.join("workspace")).unwrap();
    std::fs::write(dir.join("workspace/keep.md"), "# Keep\n").unwrap();
    std::fs::write(dir.join("config.toml"), "this is = = not toml").unwrap();
    let stderr = refused(&["--data", data, "--stdio"]);
    assert!(stderr.contains("config.toml"), "{stderr}");
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "nothing was added: {names:?}");
    assert_eq!(std::fs::read_to_string(dir.join("workspace/keep.md")).unwrap(), "# Keep\n");

    // A config naming a workspace that does not exist.
    std::fs::write(
        dir.join("config.toml"),
        "[principals.demo]\nworkspaces = [\"file:///no/such/workspace\"]\n[[state.keys]]\nid = \"k\"\nsecret = \"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\"\n",
    )
    .unwrap();
    let stderr = refused(&["--data", data, "--stdio"]);
    assert!(stderr.contains("/no/such/workspace"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn first_start_seeds_and_serves_over_stdio_and_later_starts_keep_the_data() {
    let dir = fresh_dir("seed");
    let data = dir.to_str().unwrap();
    let mut server = StdioProcess::spawn(BIN, &["--data", data, "--stdio"]);
    let discover = server.call(&request(json!(1), "server/discover", json!({})));
    assert_eq!(discover["result"]["supportedVersions"], json!(["2026-07-28"]));
    let workspace = workspace_uri(&dir);
    let listed = server.call(&request(
        json!(2),
        "tools/call",
        json!({"name": "notes_list", "arguments": {"workspaceUri": workspace, "query": "tps report"}}),
    ));
    let notes = listed["result"]["structuredContent"]["notes"].as_array().unwrap().clone();
    assert_eq!(notes.len(), 3, "exactly three seeded notes mention TPS report: {notes:?}");
    let (_, status) = server.finish();
    assert_eq!(status.code(), Some(0), "stdio exits 0 when stdin closes");

    // The seed: a private sibling, a symlink into it, and a config granting demo the workspace.
    assert!(dir.join("workspace-private").is_dir());
    let link = dir.join("workspace/private-link.md");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let config = std::fs::read_to_string(dir.join("config.toml")).unwrap();
    assert!(config.contains(&format!("workspaces = [\"{workspace}\"]")), "{config}");
    assert!(config.contains("stdio_principal = \"demo\""));
    assert!(config.contains("[principals.demo]\n") && config.contains("token = \""), "{config}");
    assert!(config.contains("[[state.keys]]") && config.contains("ttl_seconds = 300"), "{config}");

    // Edit a note; a second start must not reseed over it, and must not list the symlink.
    std::fs::write(dir.join("workspace/offsite-ideas.md"), "# Offsite, revised\n").unwrap();
    let mut server = StdioProcess::spawn(BIN, &["--data", data, "--stdio"]);
    let listed = server.call(&request(
        json!(3),
        "tools/call",
        json!({"name": "notes_list", "arguments": {"workspaceUri": workspace}}),
    ));
    let notes = &listed["result"]["structuredContent"]["notes"];
    let titles: Vec<&str> = notes.as_array().unwrap().iter().map(|n| n["title"].as_str().unwrap()).collect();
    assert!(titles.contains(&"Offsite, revised"), "{titles:?}");
    assert!(!titles.iter().any(|t| t.contains("Salaries")), "the symlinked private note must not be listed");
    assert_eq!(std::fs::read_to_string(dir.join("config.toml")).unwrap(), config, "never reseeded");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn http_is_the_default_and_prints_where_it_listens() {
    let dir = fresh_dir("http");
    let server = HttpProcess::spawn(BIN, &["--data", dir.to_str().unwrap()]);
    assert!(server.address.starts_with("127.0.0.1:"), "{}", server.address);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
