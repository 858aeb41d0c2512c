//! The README's Quick start, run for real: a newcomer copies its shell blocks one after the
//! other, so the test does the same in a fresh directory and checks that the answers are the
//! ones the README shows and that the notes it deletes are gone.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{BIN, SEEDED, md_stems};
use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::process::run_to_end;
use serde_json::Value;

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");

/// The block that starts the HTTP server; it runs in a terminal of its own, so it is the only
/// one not run in the shell session of the others.
const SERVER: &str = "cargo run -p notes-server";

/// Printed between the blocks so that each block's output can be told apart.
const BLOCK_END: &str = "@@ end of a README block @@";

/// A fenced code block: its language and its text.
struct Block {
    lang: String,
    text: String,
}

/// The fenced blocks of the Quick start section, in order.
fn quick_start_blocks(readme: &str) -> Vec<Block> {
    let start = readme.find("\n## Quick start\n").expect("README has a Quick start section");
    let len = readme[start + 1..].find("\n## ").map(|end| end + 1).expect("a section follows the Quick start");
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for line in readme[start..start + len].lines() {
        match (line.strip_prefix("```"), open.take()) {
            (Some(lang), None) => open = Some(Block { lang: lang.trim().to_owned(), text: String::new() }),
            (Some(_), Some(block)) => blocks.push(block),
            (None, Some(mut block)) => {
                block.text.push_str(line);
                block.text.push('\n');
                open = Some(block);
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a code block of the Quick start is not closed");
    blocks
}

/// A shell block of the README with the server run from the built binary rather than through
/// cargo, and the HTTP address the test's server really listens on.
fn runnable(text: &str, address: &str) -> String {
    assert!(!BIN.contains('\''), "the binary's path must fit in single quotes: {BIN}");
    let bin = format!("'{BIN}'");
    text.replace("cargo run -p notes-server --", &bin).replace(SERVER, &bin).replace("127.0.0.1:8787", address)
}

/// Checks that `output` shows what the README's JSON block does. The README breaks its JSON
/// only between tokens and elides with `...`, so its lines joined without their indentation
/// give pieces that the compact answers must contain, in order.
fn assert_shows(output: &str, shown: &str) {
    let compact: String = shown.lines().map(str::trim_start).collect();
    let mut rest = output;
    for piece in compact.split("...").filter(|p| !p.is_empty()) {
        let at = rest.find(piece).unwrap_or_else(|| {
            panic!("the README shows\n{shown}\nbut the output lacks {piece:?} (in order):\n{output}")
        });
        rest = &rest[at + piece.len()..];
    }
}

/// The JSON-RPC answers a block printed, one a line.
fn answers(output: &str) -> Vec<Value> {
    output
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The note ids the README's retries choose in their forms.
fn chosen_notes(scripts: &[&str]) -> Vec<String> {
    let marker = r#"{"note":""#;
    let mut ids = Vec::new();
    for script in scripts {
        for (at, _) in script.match_indices(marker) {
            let id = &script[at + marker.len()..];
            ids.push(id[..id.find('"').expect("a closed string")].to_owned());
        }
    }
    ids
}

/// A fresh, empty working directory (canonical, so `$PWD` in the README's workspace URI names
/// the path the seed grants), removed when dropped.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new() -> WorkDir {
        let path = std::env::temp_dir().join(format!("notes-readme-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        WorkDir(std::fs::canonicalize(path).unwrap())
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn quick_start_runs_as_written() {
    let readme = std::fs::read_to_string(README).expect("read README.md");
    let blocks = quick_start_blocks(&readme);
    for block in &blocks {
        // A block in another language would be skipped here, and so never checked.
        assert!(["sh", "json"].contains(&block.lang.as_str()), "a Quick start block in {:?}", block.lang);
    }
    let (first, rest) = blocks.split_first().expect("the Quick start has blocks");
    assert_eq!((first.lang.as_str(), first.text.trim()), ("sh", SERVER), "the Quick start starts the server first");
    // Each shell block, with the JSON blocks after it: what it prints.
    let mut steps: Vec<(&str, Vec<&str>)> = Vec::new();
    for block in rest {
        match block.lang.as_str() {
            "sh" => steps.push((&block.text, Vec::new())),
            _ => steps.last_mut().expect("JSON shown before any command").1.push(&block.text),
        }
    }
    let scripts: Vec<&str> = steps.iter().map(|(script, _)| *script).collect();
    assert!(scripts.iter().any(|s| s.contains("curl ")), "the Quick start shows HTTP with curl");
    assert!(scripts.iter().any(|s| s.contains("-- --stdio")), "the Quick start shows stdio");
    let ok = Command::new("curl").arg("--version").output().is_ok_and(|out| out.status.success());
    assert!(ok, "the README's Quick start uses curl, which is not installed here (Debian: apt-get install curl)");

    let dir = WorkDir::new();
    // The server block runs as written in the fresh directory, so it seeds ./notes-data there;
    // only the address changes, to a free port (8787 may be taken), which it then prints.
    let server_script = format!("set -e; cd \"$0\"; exec {} \"$@\"", runnable(first.text.trim(), "127.0.0.1:8787"));
    let server = HttpProcess::spawn("sh", &["-c", &server_script, dir.path().to_str().unwrap()]);

    // The other blocks in one shell session, as in the newcomer's second terminal: the
    // variables one block sets (the token, the state) are there for the next.
    let mut session = String::from("set -e\n");
    for script in &scripts {
        session.push_str(&runnable(script, &server.address));
        session.push_str(&format!("printf '\\n%s\\n' '{BLOCK_END}'\n"));
    }
    let mut command = Command::new("sh");
    command.arg("-c").arg(&session).current_dir(dir.path());
    let (status, stdout, stderr) = run_to_end(command, Duration::from_secs(120), "the Quick start's commands");
    assert!(status.success(), "the Quick start's commands failed ({status}):\n{stdout}\n{stderr}");
    let outputs: Vec<&str> = stdout.split(&format!("\n{BLOCK_END}\n")).collect();
    assert_eq!(outputs.len(), scripts.len() + 1, "every block ran to its end:\n{stdout}\n{stderr}");
    assert_eq!(outputs[scripts.len()], "", "nothing after the last block");

    let mut all = Vec::new();
    for ((script, shown), output) in steps.iter().zip(&outputs) {
        for json in shown {
            assert_shows(output, json);
        }
        let printed = answers(output);
        assert!(!printed.is_empty(), "no answer printed by\n{script}");
        all.extend(printed);
    }
    for answer in &all {
        let kind = answer["result"]["resultType"].as_str();
        assert!(matches!(kind, Some("complete" | "input_required")), "a failed call: {answer}");
        assert_ne!(answer["result"]["isError"], true, "a failed call: {answer}");
    }

    // Each retry the README shows deleted exactly the note it chose, after a form that offered it.
    let chosen = chosen_notes(&scripts);
    assert!(!chosen.is_empty(), "the Quick start answers a form");
    for id in &chosen {
        let offered = all.iter().filter(|a| {
            let options = &a["result"]["inputRequests"]["choice"]["params"]["requestedSchema"]["properties"]["note"];
            options["oneOf"].as_array().is_some_and(|o| o.iter().any(|option| option["const"] == id.as_str()))
        });
        assert!(offered.count() >= 1, "no form offered {id}: {all:?}");
        let deleted = all.iter().filter(|a| {
            a["result"]["resultType"] == "complete" && a["result"]["content"][0]["text"] == format!("Deleted {id}.")
        });
        assert_eq!(deleted.count(), 1, "{id} deleted once: {all:?}");
    }
    let left: Vec<&str> = SEEDED.iter().copied().filter(|id| !chosen.iter().any(|c| c == id)).collect();
    assert_eq!(md_stems(&dir.path().join("notes-data/workspace")), left);

    // An operator stops the server with SIGTERM; it finishes cleanly.
    let (status, logs) = server.terminate(Duration::from_secs(20));
    assert!(status.success(), "the server on SIGTERM: {status}\n{logs}");
}
