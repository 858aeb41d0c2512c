//! Notes on the real file system: one Markdown file per note, titled by its first `# `
//! heading. Every operation refuses to follow a symlink at the note's path, re-checks that
//! the workspace directory is still the one configured, and changes files only by creating
//! them exclusively or renaming (which moves a link itself, never what it points at).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::scope::{Workspace, is_note_id};

/// The largest note read or written.
pub const MAX_NOTE_BYTES: u64 = 1024 * 1024;

/// Where deleted notes go, inside their workspace (so that a delete is one rename).
const TRASH: &str = ".trash";

/// A note's id and title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The file name without `.md`.
    pub id: String,
    /// The first `# ` heading, or the id.
    pub title: String,
}

/// Why a note operation failed.
#[derive(Debug)]
pub enum NoteError {
    /// No such note (or not a regular file: a symlink is no note).
    NotFound,
    /// Too large, not UTF-8, or an empty title.
    Invalid(String),
    /// The workspace or the note changed under the operation in a way that could escape it.
    Refused(&'static str),
    /// The file system failed.
    Io(io::Error),
}

impl std::fmt::Display for NoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoteError::NotFound => f.write_str("no such note"),
            NoteError::Invalid(why) => f.write_str(why),
            NoteError::Refused(why) => f.write_str(why),
            NoteError::Io(_) => f.write_str("the note cannot be accessed right now"),
        }
    }
}

impl From<io::Error> for NoteError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::NotFound { NoteError::NotFound } else { NoteError::Io(e) }
    }
}

/// What a delete did.
#[derive(Debug, PartialEq, Eq)]
pub enum Deleted {
    /// The note is gone now.
    Now,
    /// An earlier attempt with the same key already removed it.
    Already,
}

fn title_of(text: &str, id: &str) -> String {
    text.lines().find_map(|l| l.strip_prefix("# ")).map(str::trim).filter(|t| !t.is_empty()).unwrap_or(id).to_owned()
}

/// The workspace directory is still the one the server resolved at start: not swapped for a
/// symlink to somewhere else since.
fn check_root(workspace: &Workspace) -> Result<(), NoteError> {
    match fs::canonicalize(&workspace.path) {
        Ok(root) if root == workspace.root => Ok(()),
        Ok(_) => Err(NoteError::Refused("the workspace directory has moved; refusing to touch it")),
        Err(e) => Err(e.into()),
    }
}

fn note_path(workspace: &Workspace, id: &str) -> Result<PathBuf, NoteError> {
    workspace.note_path(id).ok_or(NoteError::NotFound)
}

/// Opens a note for reading without following a symlink, and checks it is a regular file.
fn open_note(path: &Path) -> Result<File, NoteError> {
    let file =
        OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path).map_err(|e| {
            // O_NOFOLLOW on a symlink: ELOOP. A link is not a note.
            if e.raw_os_error() == Some(libc::ELOOP) { NoteError::NotFound } else { NoteError::from(e) }
        })?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(NoteError::NotFound);
    }
    if metadata.len() > MAX_NOTE_BYTES {
        return Err(NoteError::Invalid(format!("the note is larger than {MAX_NOTE_BYTES} bytes")));
    }
    Ok(file)
}

/// The text of note `id`.
pub fn read(workspace: &Workspace, id: &str) -> Result<String, NoteError> {
    check_root(workspace)?;
    let mut file = open_note(&note_path(workspace, id)?)?;
    let mut bytes = Vec::new();
    Read::by_ref(&mut file).take(MAX_NOTE_BYTES + 1).read_to_end(&mut bytes)?;
    String::from_utf8(bytes).map_err(|_| NoteError::Invalid("the note is not UTF-8 text".into()))
}

/// Every note of the workspace, by id. Symlinks, hidden files and other files are not notes.
pub fn list(workspace: &Workspace) -> Result<Vec<Note>, NoteError> {
    check_root(workspace)?;
    let mut notes = Vec::new();
    for entry in fs::read_dir(&workspace.root)? {
        let entry = entry?;
        // The entry's own type: a symlink is never followed here.
        if !entry.file_type()?.is_file() {
            continue;
        }
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".md")).filter(|id| is_note_id(id)) else {
            continue;
        };
        match read(workspace, id) {
            Ok(text) => notes.push(Note { id: id.to_owned(), title: title_of(&text, id) }),
            // Removed or replaced since the directory was read.
            Err(NoteError::NotFound | NoteError::Invalid(_)) => continue,
            Err(e) => return Err(e),
        }
    }
    notes.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(notes)
}

fn compose(title: &str, body: &str) -> Result<String, NoteError> {
    let title = title.trim();
    if title.is_empty() || title.contains('\n') {
        return Err(NoteError::Invalid("a title is one non-empty line".into()));
    }
    let text = format!("# {title}\n\n{}\n", body.trim_end());
    if text.len() as u64 > MAX_NOTE_BYTES {
        return Err(NoteError::Invalid(format!("a note holds at most {MAX_NOTE_BYTES} bytes")));
    }
    Ok(text)
}

/// An id for a new note from its title: lowercase letters and digits joined by `-`.
fn slug(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.len() >= 60 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-').to_owned();
    if slug.is_empty() { "note".to_owned() } else { slug }
}

/// Creates a note; its id comes from the title, made unique with a number.
pub fn create(workspace: &Workspace, title: &str, body: &str) -> Result<Note, NoteError> {
    let text = compose(title, body)?;
    check_root(workspace)?;
    let base = slug(title);
    // Written whole under a hidden name first, then linked in: a process killed at any moment
    // leaves the note whole or absent, never empty or cut short.
    let temp = temporary(workspace, &base);
    let written = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(e.into());
    }
    let result = (|| {
        for n in 1..1000 {
            let id = if n == 1 { base.clone() } else { format!("{base}-{n}") };
            let path = note_path(workspace, &id)?;
            // A link never replaces anything already there, a symlink included.
            match fs::hard_link(&temp, &path) {
                Ok(()) => return Ok(Note { id, title: title_of(&text, &base) }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(NoteError::Invalid("too many notes share that title".into()))
    })();
    let _ = fs::remove_file(&temp);
    result
}

fn temporary(workspace: &Workspace, id: &str) -> PathBuf {
    let mut random = [0u8; 8];
    let _ = getrandom::fill(&mut random);
    let suffix: String = random.iter().map(|b| format!("{b:02x}")).collect();
    workspace.root.join(format!(".{id}.{suffix}.tmp"))
}

/// Whether `name` is one [`temporary`] makes.
fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// Replaces the title and/or body of a note.
pub fn edit(workspace: &Workspace, id: &str, title: Option<&str>, body: Option<&str>) -> Result<Note, NoteError> {
    let current = read(workspace, id)?;
    let old_title = title_of(&current, id);
    let old_body = current.lines().skip_while(|l| !l.starts_with("# ")).skip(1).collect::<Vec<_>>().join("\n");
    let text = compose(title.unwrap_or(&old_title), body.unwrap_or(old_body.trim()))?;
    let path = note_path(workspace, id)?;
    let temp = temporary(workspace, id);
    let result = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        check_root(workspace)?;
        // The rename replaces whatever is at the path (a symlink swapped in included) and never
        // writes through it.
        fs::rename(&temp, &path)?;
        Ok(Note { id: id.to_owned(), title: title_of(&text, id) })
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

fn trash_dir(workspace: &Workspace) -> Result<PathBuf, NoteError> {
    let dir = workspace.root.join(TRASH);
    match fs::create_dir(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e.into()),
    }
    if !fs::symlink_metadata(&dir)?.is_dir() {
        return Err(NoteError::Refused("the workspace's .trash is not a directory"));
    }
    Ok(dir)
}

/// Deletes note `id` by moving it into the workspace's `.trash` under a name that carries
/// `key`: a retry with the same key finds it there and reports the delete as done, so a
/// crash between the delete and recording it never deletes twice. The move is a rename of the
/// path itself; if what was moved turns out not to be a regular file (a symlink swapped in
/// after the check), it is put back and the delete refused.
pub fn delete(workspace: &Workspace, id: &str, key: &str) -> Result<Deleted, NoteError> {
    // The file system's part of a delete, in traces; which note stays out of them.
    let _span = tracing::info_span!("move note to trash").entered();
    delete_with(workspace, id, key, || {})
}

/// [`delete`], running `between` after the checks and before the rename (where a race with
/// whoever else writes the directory would land).
fn delete_with(workspace: &Workspace, id: &str, key: &str, between: impl FnOnce()) -> Result<Deleted, NoteError> {
    check_root(workspace)?;
    let path = note_path(workspace, id)?;
    let trash = trash_dir(workspace)?;
    let marker = trash.join(format!("{key}--{id}.md"));
    if fs::symlink_metadata(&marker).is_ok() {
        return Ok(Deleted::Already);
    }
    if !fs::symlink_metadata(&path)?.is_file() {
        return Err(NoteError::NotFound);
    }
    between();
    fs::rename(&path, &marker)?;
    if !fs::symlink_metadata(&marker)?.is_file() {
        let _ = fs::rename(&marker, &path);
        return Err(NoteError::Refused("the note was replaced while it was being deleted; nothing deleted"));
    }
    Ok(Deleted::Now)
}

/// Removes what writes cut short left behind (the hidden files a note is written to before it
/// is linked in, after a process was killed mid-write), once older than `age`: younger ones may
/// be another process's write in progress.
pub fn sweep_unfinished(workspace: &Workspace, age: Duration) -> usize {
    let Ok(entries) = fs::read_dir(&workspace.root) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_temporary(&name) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta.modified().ok().and_then(|t| SystemTime::now().duration_since(t).ok()).is_some_and(|a| a > age);
        if meta.is_file() && old && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// How long ago an entry was moved into the trash: its inode's change time, which the rename
/// set (its modification time is the note's last edit, which may be far older).
fn moved_ago(meta: &fs::Metadata) -> Option<Duration> {
    use std::os::unix::fs::MetadataExt;
    let moved = std::time::UNIX_EPOCH
        + Duration::from_secs(u64::try_from(meta.ctime()).ok()?)
        + Duration::from_nanos(u64::try_from(meta.ctime_nsec()).ok()?);
    SystemTime::now().duration_since(moved).ok().or(Some(Duration::ZERO))
}

/// The keys of the deletes moved into the trash within `recent`, and removes trash older than
/// `keep`. Only recent deletes matter to recovery: an older one's state has expired, so it is
/// refused whatever the replay store holds (and going through every delete ever made would
/// make a start slower with each one).
pub fn trashed_keys(workspace: &Workspace, keep: Duration, recent: Duration) -> Vec<String> {
    let Ok(entries) = fs::read_dir(workspace.root.join(TRASH)) else { return Vec::new() };
    let mut keys = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((key, _)) = name.split_once("--") else { continue };
        let Some(age) = entry.metadata().ok().as_ref().and_then(moved_ago) else { continue };
        if age > keep {
            let _ = fs::remove_file(entry.path());
        } else if age <= recent {
            keys.push(key.to_owned());
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Fixture {
        dir: PathBuf,
        workspace: Workspace,
    }

    impl Drop for Fixture {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }

    fn fixture(name: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("notes-store-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("workspace")).unwrap();
        fs::create_dir_all(dir.join("workspace-private")).unwrap();
        fs::write(dir.join("workspace/roadmap.md"), "# Roadmap\n\nship it\n").unwrap();
        fs::write(dir.join("workspace-private/salaries.md"), "# Salaries\n\nsecret\n").unwrap();
        let root = fs::canonicalize(dir.join("workspace")).unwrap();
        let workspace = Workspace { slug: "workspace".into(), uri: String::new(), path: dir.join("workspace"), root };
        Fixture { dir, workspace }
    }

    #[test]
    fn notes_are_created_listed_read_edited_and_deleted() {
        let f = fixture("crud");
        let note = create(&f.workspace, "Team lunch: Friday!", "Pizza.").unwrap();
        assert_eq!(note, Note { id: "team-lunch-friday".into(), title: "Team lunch: Friday!".into() });
        let again = create(&f.workspace, "Team lunch: Friday!", "Sushi.").unwrap();
        assert_eq!(again.id, "team-lunch-friday-2");
        let ids: Vec<String> = list(&f.workspace).unwrap().into_iter().map(|n| n.id).collect();
        assert_eq!(ids, ["roadmap", "team-lunch-friday", "team-lunch-friday-2"]);

        let edited = edit(&f.workspace, "roadmap", Some("Roadmap 2027"), None).unwrap();
        assert_eq!(edited.title, "Roadmap 2027");
        assert_eq!(read(&f.workspace, "roadmap").unwrap(), "# Roadmap 2027\n\nship it\n");

        assert_eq!(delete(&f.workspace, "roadmap", "k1").unwrap(), Deleted::Now);
        assert!(matches!(read(&f.workspace, "roadmap"), Err(NoteError::NotFound)));
        // The same key again: already done, nothing else touched.
        assert_eq!(delete(&f.workspace, "roadmap", "k1").unwrap(), Deleted::Already);
        // Another key for a note that is gone: not found.
        assert!(matches!(delete(&f.workspace, "roadmap", "k2"), Err(NoteError::NotFound)));
        assert_eq!(trashed_keys(&f.workspace, Duration::from_secs(60), Duration::from_secs(60)), ["k1"]);
        assert!(trashed_keys(&f.workspace, Duration::from_secs(60), Duration::ZERO).is_empty(), "not recent");
        assert!(list(&f.workspace).unwrap().iter().all(|n| n.id != "roadmap"));
    }

    #[test]
    fn unfinished_writes_are_swept_once_old() {
        let f = fixture("sweep");
        let workspace = &f.workspace;
        let stale = workspace.root.join(".lost.0011223344556677.tmp");
        fs::write(&stale, "# Lost\n\nhalf").unwrap();
        assert_eq!(sweep_unfinished(workspace, Duration::from_secs(60)), 0, "a write in progress stays");
        assert!(stale.exists());
        assert_eq!(sweep_unfinished(workspace, Duration::ZERO), 1);
        assert!(!stale.exists());
        assert!(!list(workspace).unwrap().is_empty(), "notes are never swept");
    }

    #[test]
    fn symlinks_are_never_followed() {
        let f = fixture("links");
        let private = f.dir.join("workspace-private/salaries.md");
        symlink(&private, f.dir.join("workspace/link.md")).unwrap();
        assert!(list(&f.workspace).unwrap().iter().all(|n| n.id != "link"), "a link is not listed");
        assert!(matches!(read(&f.workspace, "link"), Err(NoteError::NotFound)));
        assert!(matches!(delete(&f.workspace, "link", "k"), Err(NoteError::NotFound)));
        assert!(private.exists());

        // Editing a note that was swapped for a link replaces the link, not what it points to.
        fs::remove_file(f.dir.join("workspace/roadmap.md")).unwrap();
        symlink(&private, f.dir.join("workspace/roadmap.md")).unwrap();
        assert!(matches!(edit(&f.workspace, "roadmap", None, Some("x")), Err(NoteError::NotFound)));
        assert_eq!(fs::read_to_string(&private).unwrap(), "# Salaries\n\nsecret\n");

        // A link where a new note would go: creation picks the next free id.
        symlink(&private, f.dir.join("workspace/fresh.md")).unwrap();
        assert_eq!(create(&f.workspace, "Fresh", "new").unwrap().id, "fresh-2");
        assert_eq!(fs::read_to_string(&private).unwrap(), "# Salaries\n\nsecret\n");
    }

    #[test]
    fn a_link_swapped_in_between_the_check_and_the_delete_deletes_nothing() {
        let f = fixture("race");
        let private = f.dir.join("workspace-private/salaries.md");
        let note = f.dir.join("workspace/roadmap.md");
        let swap = || {
            fs::rename(&note, f.dir.join("roadmap-elsewhere.md")).unwrap();
            symlink(&private, &note).unwrap();
        };
        let outcome = delete_with(&f.workspace, "roadmap", "k", swap);
        assert!(matches!(outcome, Err(NoteError::Refused(_))), "{outcome:?}");
        assert_eq!(fs::read_to_string(&private).unwrap(), "# Salaries\n\nsecret\n", "the target is untouched");
        assert!(fs::symlink_metadata(&note).unwrap().file_type().is_symlink(), "the link is put back");
        assert!(trashed_keys(&f.workspace, Duration::from_secs(60), Duration::from_secs(60)).is_empty());
    }

    #[test]
    fn a_workspace_swapped_for_a_link_is_refused() {
        let f = fixture("swap");
        fs::rename(f.dir.join("workspace"), f.dir.join("workspace-moved")).unwrap();
        symlink(f.dir.join("workspace-private"), f.dir.join("workspace")).unwrap();
        assert!(matches!(list(&f.workspace), Err(NoteError::Refused(_))));
        assert!(matches!(read(&f.workspace, "salaries"), Err(NoteError::Refused(_))));
        assert!(matches!(delete(&f.workspace, "salaries", "k"), Err(NoteError::Refused(_))));
        assert!(f.dir.join("workspace-private/salaries.md").exists());
    }

    #[test]
    fn bad_titles_and_sizes_are_refused() {
        let f = fixture("limits");
        assert!(matches!(create(&f.workspace, "  ", "x"), Err(NoteError::Invalid(_))));
        assert!(matches!(create(&f.workspace, "a\nb", "x"), Err(NoteError::Invalid(_))));
        let huge = "x".repeat(MAX_NOTE_BYTES as usize);
        assert!(matches!(create(&f.workspace, "Huge", &huge), Err(NoteError::Invalid(_))));
        assert_eq!(slug("Ünïcode & co."), "n-code-co");
        assert_eq!(slug("!!!"), "note");
    }
}
