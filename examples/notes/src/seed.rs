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

/// The seed's Agent Skill, by path below `DIR/skills/`: its `SKILL.md` and the file it refers to.
const SKILL: &[(&str, &str)] = &[
    (
        "tps-report-writing/SKILL.md",
        "---
name: tps-report-writing
description: Write a TPS report the way this office expects, cover sheet included. Use when someone asks \
for a TPS report or mentions the cover sheet.
license: CC0-1.0
metadata:
  author: notes-server
  version: \"1.0\"
---
# Writing a TPS report

1. Start from the quarter's numbers (the notes tagged with the quarter, e.g. `TPS report Q1 2026`).
2. Put [the cover sheet](references/cover-sheet.md) first: a report without it goes back.
3. Save the report as a note titled `TPS report <quarter> <year>`.
",
    ),
    (
        "tps-report-writing/references/cover-sheet.md",
        "# TPS report cover sheet\n\n| field | what goes in |\n|---|---|\n| Quarter | Q1 to Q4 and the year |\n\
         | Author | who wrote the report |\n| Reviewed by | the author's manager |\n",
    ),
];

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

# The keys that verify requestState; the last one signs, unless `signing = "<id>"` under
# [state] names another. Every server sharing this data must have the same keys. To rotate,
# restart every server after each step: add the new key with `signing` naming the old one; then
# make `signing` name the new key; then, once ttl_seconds have passed, remove the old key.
[[state.keys]]
id = "k1"
secret = "{secret}"

[tasks]
# How long a running notes_export may go without its server vouching for it before it is
# reported failed (the server was killed, say).
lease_seconds = 15

[model]
# "sampling": summarize_notes asks the client's model. "builtin": the server's own summarizer.
provider = "sampling"

[changes]
# true: the server watches the workspaces' files and announces every change to a note, whoever
# made it (an editor, another process). false: each tool announces only what it changed itself;
# servers sharing a database tell each other through the relay below, so that each change is
# announced once (changes made outside the servers then go unannounced).
watch_files = true

[relay]
# With --database postgres://..., instances tell each other of changes through the database,
# each notification sealed with a relay key; one without a valid seal is ignored. Every server
# sharing the database must have the same keys. The last one seals, unless `signing = "<id>"`
# names another; rotate as the state keys rotate: add the new key with `signing` naming the old
# one; then make `signing` name the new key; then remove the old key (a restart of every server
# after each step).
[[relay.keys]]
id = "r1"
secret = "{relay_secret}"
"#,
        token = random_hex(24),
        secret = StateKey::generate_secret(),
        relay_secret = StateKey::generate_secret(),
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
    staged(&target, |staging| seed(staging, &target))
}

/// Makes the directory `target` by filling a hidden sibling with `fill` and renaming it into
/// place, so that an interrupted start leaves nothing half-made. When another process made
/// `target` first, theirs is used.
fn staged(target: &Path, fill: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<()> {
    let name = target.file_name().map_or_else(Default::default, |name| name.to_string_lossy());
    let staging = target.with_file_name(format!(".{name}.seeding-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    let seeded = fill(&staging).and_then(|()| fs::rename(&staging, target));
    if seeded.is_err() {
        let _ = fs::remove_dir_all(&staging);
        if fs::read_dir(target).is_ok_and(|mut entries| entries.next().is_some()) {
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
    seed_skills(&staging.join("skills"))?;
    let workspace_uri = file_uri(&target.join("workspace"));
    fs::write(staging.join("config.toml"), config(&workspace_uri))
}

/// Creates and seeds `DIR/skills/` when it is missing (a data directory made before the server
/// served skills), the way [`ensure`] makes the whole directory; an existing one is left alone.
pub fn ensure_skills(dir: &Path) -> io::Result<()> {
    let skills = dir.join("skills");
    if fs::symlink_metadata(&skills).is_ok() {
        return Ok(());
    }
    staged(&skills, seed_skills)
}

fn seed_skills(skills: &Path) -> io::Result<()> {
    for (path, text) in SKILL {
        let path = skills.join(path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, text)?;
    }
    Ok(())
}
