//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned in
//! `tests/node/` with the other [Node.js tools](crate::node)), and its results read back.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::node::NodeTools;

/// An installed copy of the suite.
#[derive(Debug, Clone)]
pub struct ConformanceSuite {
    tools: NodeTools,
}

impl ConformanceSuite {
    /// The suite, installed with the other [Node.js tools](NodeTools::install).
    pub fn install() -> Self {
        ConformanceSuite { tools: NodeTools::install() }
    }

    /// `conformance <args>`, ready to run.
    pub fn command(&self) -> Command {
        self.tools.command(self.tools.dir().join("node_modules/.bin/conformance"))
    }

    /// `mcp-inspector-cli <args>` (the MCP Inspector's CLI, installed with the suite), ready to
    /// run: Node.js 22 first on PATH, and run from the install's `node_modules` (the CLI
    /// crashes when started elsewhere). It prints its answer as JSON on stdout and exits 1,
    /// saying why on stderr, when the request fails.
    pub fn inspector_command(&self) -> Command {
        let mut command = self.tools.command(self.tools.dir().join("node_modules/.bin/mcp-inspector-cli"));
        command.current_dir(self.tools.dir().join("node_modules"));
        command
    }

    /// The server scenarios a protocol revision requires, from the suite's own frozen list.
    pub fn required_server_scenarios(&self, revision: &str) -> Vec<String> {
        self.required_scenarios(revision, "server")
    }

    /// The client scenarios a protocol revision requires, from the suite's own frozen list.
    pub fn required_client_scenarios(&self, revision: &str) -> Vec<String> {
        self.required_scenarios(revision, "client")
    }

    fn required_scenarios(&self, revision: &str, leg: &str) -> Vec<String> {
        let file = self
            .tools
            .dir()
            .join(format!("node_modules/@modelcontextprotocol/conformance/requirements/{revision}.yaml"));
        let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        text.lines()
            .skip_while(|line| line.trim_end() != format!("{leg}:"))
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

/// The checks the suite saved under `output_dir` for server scenario `scenario` (a directory
/// `server-<scenario>-<timestamp>` holding `checks.json`); `None` when it did not run.
pub fn checks_of(output_dir: &Path, scenario: &str) -> Option<Vec<Check>> {
    checks_under(output_dir, &format!("server-{scenario}-"), scenario)
}

/// The checks the suite saved under `output_dir` for client scenario `scenario` (a directory
/// `<scenario>-<timestamp>`, nested where the name has a `/`: `auth/x` is under `auth/`);
/// `None` when it did not run.
pub fn client_checks_of(output_dir: &Path, scenario: &str) -> Option<Vec<Check>> {
    let (dir, name) = match scenario.rsplit_once('/') {
        Some((parent, name)) => (output_dir.join(parent), name),
        None => (output_dir.to_path_buf(), scenario),
    };
    checks_under(&dir, &format!("{name}-"), scenario)
}

fn checks_under(output_dir: &Path, prefix: &str, scenario: &str) -> Option<Vec<Check>> {
    let entry = fs::read_dir(output_dir).ok()?.map_while(Result::ok).find(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        name.strip_prefix(prefix).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
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
