//! The data directory: created and seeded on first start, never reseeded over existing data.

use std::fs;
use std::io;
use std::path::Path;

use mcp_rounds::request_state::StateKey;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

/// What a path needs escaped to sit in a `file://` URI.
const PATH: &AsciiSet = &CONTROLS.add(b' ').add(b'"').add(b'#').add(b'%').add(b'<').add(b'>').add(b'?').add(b'`');

const NOTES: &[(&str, &str)] = &[
    ("tps-report-2026-q1", "# TPS report Q1 2026\n\nNumbers for the first quarter. Remember the new cover sheet.\n"),
    ("tps-report-cover-sheet", "# TPS Report cover sheet\n\nEvery TPS report now goes out with the new cover sheet.\n"),
    ("tps-report-draft-old", "# Old tps report draft\n\nSuperseded by the Q1 report; kept for reference.\n"),
    ("roadmap-meeting", "# Roadmap meeting\n\n- ship the notes example\n- measure against the other SDKs\n"),
    ("offsite-ideas", "# Ideas for the offsite\n\nA walk, a whiteboard, no laptops.\n"),
    ("reading-list", "# Reading list\n\n- the MCP 2026-07-28 changelog\n- RFC 6570\n"),
];

const PRIVATE_NOTE: (&str, &str) = ("salaries", "# Salaries\n\nNot for the demo principal.\n");

fn random_hex(bytes: usize) -> String {
    let mut random = vec![0u8; bytes];
    getrandom::fill(&mut random).expect("the operating system provides randomness");
    random.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `file://` URI of an absolute path.
pub fn file_uri(path: &Path) -> String {
    format!("file://{}", utf8_percent_encode(&path.to_string_lossy(), PATH))
}

fn config(workspace_uri: &str) -> String {
    format!(
        r#"# notes-server configuration. Restart the server after changing it.

# Who a --stdio session runs as (stdio has no bearer token).
stdio_principal = "demo"

[principals.demo]
# Over HTTP, send "Authorization: Bearer <token>".
token = "{token}"
# The workspaces this principal may read and change, as file:// URIs of directories.
workspaces = ["{workspace_uri}"]

[state]
# How long a pending confirmation or summary (a signed requestState) stays valid.
ttl_seconds = 300

# The keys that sign requestState: the first signs, all verify. Every server sharing this data
# must have the same keys. To rotate, add a new key first, restart everywhere, then remove the old.
[[state.keys]]
id = "k1"
secret = "{secret}"

[model]
# "sampling": summarize_notes asks the client's model. "builtin": the server's own summarizer.
provider = "sampling"
"#,
        token = random_hex(24),
        secret = StateKey::generate_secret(),
    )
}

/// Creates and seeds `dir` if it is missing or empty; leaves existing data alone. The seed is
/// built beside `dir` and renamed into place, so an interrupted first start leaves nothing
/// half-made behind.
pub fn ensure(dir: &Path) -> io::Result<()> {
    let empty = match fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none(),
        Err(err) if err.kind() == io::ErrorKind::NotFound => true,
        Err(err) => return Err(err),
    };
    if !empty {
        return Ok(());
    }
    let name = dir.file_name().ok_or_else(|| io::Error::other("the data directory needs a name"))?;
    let parent = match dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => std::env::current_dir()?,
    };
    fs::create_dir_all(&parent)?;
    let target = fs::canonicalize(&parent)?.join(name);
    let staging = target.with_file_name(format!(".{}.seeding-{}", name.to_string_lossy(), std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    let seeded = seed(&staging, &target).and_then(|()| fs::rename(&staging, &target));
    if seeded.is_err() {
        let _ = fs::remove_dir_all(&staging);
        // Another process starting on the same directory seeded it first: use theirs.
        if fs::read_dir(&target).is_ok_and(|mut entries| entries.next().is_some()) {
            return Ok(());
        }
    }
    seeded
}

/// Fills `staging` with the seed of a data directory that will live at `target`.
fn seed(staging: &Path, target: &Path) -> io::Result<()> {
    let workspace = staging.join("workspace");
    let private = staging.join("workspace-private");
    fs::create_dir_all(&workspace)?;
    fs::create_dir_all(&private)?;
    for (id, text) in NOTES {
        fs::write(workspace.join(format!("{id}.md")), text)?;
    }
    let (id, text) = PRIVATE_NOTE;
    fs::write(private.join(format!("{id}.md")), text)?;
    // A link out of the workspace: the server must refuse to follow it.
    std::os::unix::fs::symlink(format!("../workspace-private/{id}.md"), workspace.join("private-link.md"))?;
    let workspace_uri = file_uri(&target.join("workspace"));
    fs::write(staging.join("config.toml"), config(&workspace_uri))
}
