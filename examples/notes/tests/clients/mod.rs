//! A data directory for the tests that drive real clients (the Python SDK in either era): left
//! for the server to seed, read back from disk, removed at the end.

// Each test crate that includes this module uses only part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

/// A fresh data directory for one test in this process, removed when the test ends.
pub struct DataDir(pub PathBuf);

impl DataDir {
    /// `prefix` names the test file, so that parallel test binaries never share a directory.
    pub fn new(prefix: &str, name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("notes-{prefix}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        DataDir(dir)
    }

    pub fn arg(&self) -> &str {
        self.0.to_str().expect("the temp dir is UTF-8")
    }

    pub fn workspace(&self) -> PathBuf {
        self.0.join("workspace")
    }

    /// The notes on disk (regular `.md` files, not the symlink), by id.
    pub fn notes(&self) -> BTreeMap<String, String> {
        std::fs::read_dir(self.workspace())
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().unwrap().is_file())
            .filter_map(|e| {
                let name = e.file_name().into_string().unwrap();
                let id = name.strip_suffix(".md")?.to_owned();
                Some((id, std::fs::read_to_string(e.path()).unwrap()))
            })
            .collect()
    }

    /// The files in the workspace's trash, by name (none when it does not exist yet).
    pub fn trash(&self) -> BTreeMap<String, String> {
        let Ok(entries) = std::fs::read_dir(self.workspace().join(".trash")) else {
            return BTreeMap::new();
        };
        entries
            .map(|e| e.unwrap())
            .map(|e| (e.file_name().into_string().unwrap(), std::fs::read_to_string(e.path()).unwrap()))
            .collect()
    }

    /// What config.toml says: the demo principal's workspace URI and bearer token.
    pub fn demo(&self) -> (String, String) {
        let text = std::fs::read_to_string(self.0.join("config.toml")).expect("read config.toml");
        let config: toml::Table = toml::from_str(&text).expect("config.toml parses");
        let demo = &config["principals"]["demo"];
        let workspaces = demo["workspaces"].as_array().expect("workspaces");
        assert_eq!(workspaces.len(), 1, "{text}");
        (workspaces[0].as_str().unwrap().to_owned(), demo["token"].as_str().expect("token").to_owned())
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Seeds `dir` the way an operator's first start does, over stdio with nothing to read.
pub fn seed(dir: &DataDir) {
    let status = Command::new(BIN)
        .args(["--data", dir.arg(), "--stdio"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("start notes-server");
    assert!(status.success(), "seeding start failed: {status}");
}
