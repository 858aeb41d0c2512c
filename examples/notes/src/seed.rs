//! The data directory: created and seeded on first start, never reseeded over existing data.

use std::fs;
use std::io;
use std::path::Path;

const NOTES: &[(&str, &str)] = &[
    ("tps-report-2026-q1", "# TPS report Q1 2026\n\nNumbers for the first quarter. Remember the new cover sheet.\n"),
    ("tps-report-cover-sheet", "# TPS Report cover sheet\n\nEvery TPS report now goes out with the new cover sheet.\n"),
    ("tps-report-draft-old", "# Old tps report draft\n\nSuperseded by the Q1 report; kept for reference.\n"),
    ("roadmap-meeting", "# Roadmap meeting\n\n- ship the notes example\n- measure against the other SDKs\n"),
    ("offsite-ideas", "# Ideas for the offsite\n\nA walk, a whiteboard, no laptops.\n"),
    ("reading-list", "# Reading list\n\n- the MCP 2026-07-28 changelog\n- RFC 6570\n"),
];

const PRIVATE_NOTE: (&str, &str) = ("salaries", "# Salaries\n\nNot for the demo principal.\n");

/// Creates and seeds `dir` if it is missing or empty; leaves existing data alone.
pub fn ensure(dir: &Path) -> io::Result<()> {
    let empty = match fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none(),
        Err(err) if err.kind() == io::ErrorKind::NotFound => true,
        Err(err) => return Err(err),
    };
    if !empty {
        return Ok(());
    }
    let workspace = dir.join("workspace");
    let private = dir.join("workspace-private");
    fs::create_dir_all(&workspace)?;
    fs::create_dir_all(&private)?;
    for (id, text) in NOTES {
        fs::write(workspace.join(format!("{id}.md")), text)?;
    }
    let (id, text) = PRIVATE_NOTE;
    fs::write(private.join(format!("{id}.md")), text)?;
    // A link out of the workspace: the server must refuse to follow it.
    #[cfg(unix)]
    std::os::unix::fs::symlink(format!("../workspace-private/{id}.md"), workspace.join("private-link.md"))?;
    Ok(())
}
