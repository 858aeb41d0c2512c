//! Reading a skills directory, treating everything in it as hostile: names that are not plain
//! URI characters, links that lead out of the directory or to directories, special files and
//! oversized skills are refused one by one, each with a reason, and the rest is still read.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::Problem;

/// Directories below the root deeper than this are not read.
const MAX_DEPTH: usize = 16;

/// A file found below the root.
pub(super) struct FoundFile {
    /// Its path from the root, `/`-separated.
    pub rel: String,
    /// Where its bytes are (a link's target, once checked).
    pub path: PathBuf,
    /// Its length when found.
    pub len: u64,
}

/// What a walk of the root found: regular files, directories (by path from the root) and
/// what was refused.
#[derive(Default)]
pub(super) struct Walk {
    pub files: Vec<FoundFile>,
    pub dirs: BTreeSet<String>,
    pub problems: Vec<Problem>,
}

/// Walks `root` (already canonical). Hidden entries (a leading `.`: editor swap files, VCS
/// folders) are passed over without a word.
pub(super) fn walk(root: &Path) -> io::Result<Walk> {
    let mut walk = Walk::default();
    walk.visit(root, root, "", 0)?;
    walk.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(walk)
}

impl Walk {
    fn visit(&mut self, root: &Path, dir: &Path, rel: &str, depth: usize) -> io::Result<()> {
        let mut entries: Vec<_> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let child = join(rel, &entry.file_name().to_string_lossy());
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                self.refuse(&child, "its name is not UTF-8");
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            if !is_uri_safe(&name) {
                self.refuse(&child, "its name has characters other than A-Z a-z 0-9 - . _ ~; rename it");
                continue;
            }
            let path = entry.path();
            let meta = fs::symlink_metadata(&path)?;
            if meta.file_type().is_symlink() {
                self.link(root, &child, &path);
            } else if meta.is_dir() {
                if depth + 1 >= MAX_DEPTH {
                    self.refuse(&child, "it is nested too deep");
                    continue;
                }
                self.dirs.insert(child.clone());
                self.visit(root, &path, &child, depth + 1)?;
            } else if meta.is_file() {
                self.files.push(FoundFile { rel: child, path, len: meta.len() });
            } else {
                self.refuse(&child, "it is not a regular file");
            }
        }
        Ok(())
    }

    /// A link is served as the file it points to when that is a regular file inside the root;
    /// a link to a directory is not followed (it could loop, or make one file two skills').
    fn link(&mut self, root: &Path, rel: &str, path: &Path) {
        let Ok(target) = fs::canonicalize(path) else {
            return self.refuse(rel, "it is a link to nothing");
        };
        if !target.starts_with(root) {
            return self.refuse(rel, "it is a link that leads out of the skills directory");
        }
        match fs::metadata(&target) {
            Ok(meta) if meta.is_file() => {
                self.files.push(FoundFile { rel: rel.to_owned(), path: target, len: meta.len() })
            }
            Ok(meta) if meta.is_dir() => self.refuse(rel, "it is a link to a directory, which is not followed"),
            _ => self.refuse(rel, "it is a link to something that is not a regular file"),
        }
    }

    fn refuse(&mut self, rel: &str, reason: &str) {
        self.problems.push(Problem::new(rel, reason));
    }
}

/// `rel/name`, or `name` at the root.
pub(super) fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") }
}

/// Unreserved URI characters only (RFC 3986): a name that needs no escaping anywhere in a
/// `skill://` URI, and cannot be `.` or `..` (those start with a dot and are hidden).
fn is_uri_safe(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// The bytes of `found`, never more than `budget` of them: a file that grew past what is left
/// of its skill's allowance since it was found is an error, not a larger read.
pub(super) fn read(found: &FoundFile, budget: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(usize::try_from(found.len.min(budget)).unwrap_or(0));
    fs::File::open(&found.path)?.take(budget.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > budget {
        return Err(io::Error::other("it grew past its skill's size limit while being read"));
    }
    Ok(bytes)
}
