//! The Python virtual environment holding the reference client (PyPI `mcp`), created on
//! first use and shared by every test process.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the workspace").to_path_buf()
}

/// Where build output and test tools live.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace_root().join("target"), PathBuf::from)
}

fn requirements() -> PathBuf {
    workspace_root().join("tests/python/requirements.txt")
}

/// A Python interpreter that can `import mcp` at the pinned version.
///
/// `MCP_ROUNDS_PYTHON` names one explicitly; otherwise a virtual environment under the target
/// directory is created (once, under a file lock) with `tests/python/requirements.txt`.
pub fn interpreter() -> PathBuf {
    if let Some(python) = std::env::var_os("MCP_ROUNDS_PYTHON") {
        return PathBuf::from(python);
    }
    let venv = target_dir().join("test-venv");
    let python = venv.join("bin/python");
    let stamp = venv.join("requirements.installed");
    let wanted = fs::read(requirements()).expect("read tests/python/requirements.txt");

    fs::create_dir_all(target_dir()).expect("create target dir");
    let lock = File::create(target_dir().join("test-venv.lock")).expect("create venv lock");
    lock.lock().expect("lock venv");
    if fs::read(&stamp).ok().as_ref() != Some(&wanted) || !python.exists() {
        let _ = fs::remove_dir_all(&venv);
        let base = std::env::var("PYTHON3").unwrap_or_else(|_| "python3".into());
        run(Command::new(&base).args(["-m", "venv"]).arg(&venv), "create the test virtual environment");
        run(
            Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(requirements()),
            "install the Python test requirements",
        );
        fs::write(&stamp, &wanted).expect("write venv stamp");
    }
    drop(lock);
    python
}

fn run(command: &mut Command, what: &str) {
    let status = command.status().unwrap_or_else(|e| panic!("cannot {what}: {e}"));
    assert!(status.success(), "could not {what}: {status}");
}
