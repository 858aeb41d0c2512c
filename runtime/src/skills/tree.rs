//! The directories of the skill namespaces, as `resources/directory/read` lists them: every
//! skill's root, every folder inside a skill (an empty one too), and the folders of a prefix
//! that lead to skills (`acme`, `acme/billing` for `acme/billing/refunds`). A folder that holds
//! no skill is not part of any namespace, and neither is a file outside every skill.

use std::collections::{BTreeMap, BTreeSet};

use super::Skill;
use crate::model::{DIRECTORY_MIME_TYPE, Resource};

/// One entry of a directory: a file of a skill, or a directory of the namespaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Child {
    /// Its path from the skills directory.
    path: String,
    /// Its size, for a file.
    size: Option<u64>,
}

impl Child {
    /// Its path from the skills directory.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Its URI (`skill://` and its path).
    pub fn uri(&self) -> String {
        format!("skill://{}", self.path)
    }

    /// Whether it is a directory.
    pub fn is_directory(&self) -> bool {
        self.size.is_none()
    }

    /// Its resource metadata: name, MIME type (`inode/directory` for a directory) and size.
    pub fn resource(&self) -> Resource {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        let mime = match self.size {
            None => DIRECTORY_MIME_TYPE,
            Some(_) => mime_type(&self.path),
        };
        let mut resource = Resource::new(self.uri(), name).with_mime_type(mime);
        resource.size = self.size;
        resource
    }
}

/// Every directory of the namespaces with its direct children, in path order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Tree {
    dirs: BTreeMap<String, Vec<Child>>,
}

impl Tree {
    /// The tree of `skills`; `found_dirs` are the folders the walk found (empty ones included).
    pub(super) fn new(skills: &BTreeMap<String, Skill>, found_dirs: &BTreeSet<String>) -> Tree {
        let mut dirs: BTreeSet<&str> = BTreeSet::new();
        for root in skills.keys() {
            let mut path = root.as_str();
            loop {
                dirs.insert(path);
                match path.rsplit_once('/') {
                    Some((parent, _)) => path = parent,
                    None => break,
                }
            }
        }
        let inside_a_skill =
            |dir: &str| skills.keys().any(|root| dir.strip_prefix(root.as_str()).is_some_and(|r| r.starts_with('/')));
        dirs.extend(found_dirs.iter().map(String::as_str).filter(|dir| inside_a_skill(dir)));

        // A nested skill's files are also its enclosing skill's: each file once.
        let mut files: BTreeMap<String, u64> = BTreeMap::new();
        for skill in skills.values() {
            for file in &skill.files {
                files.insert(format!("{}/{}", skill.path, file.path), file.size());
            }
        }

        let mut tree: BTreeMap<String, Vec<Child>> = dirs.iter().map(|dir| ((*dir).to_owned(), Vec::new())).collect();
        let children = dirs
            .iter()
            .map(|dir| Child { path: (*dir).to_owned(), size: None })
            .chain(files.into_iter().map(|(path, size)| Child { path, size: Some(size) }));
        for child in children {
            if let Some((parent, _)) = child.path.rsplit_once('/')
                && let Some(siblings) = tree.get_mut(parent)
            {
                siblings.push(child);
            }
        }
        for siblings in tree.values_mut() {
            siblings.sort_by(|a, b| a.path.cmp(&b.path));
        }
        Tree { dirs: tree }
    }

    /// The children of the directory at `path` (from the skills directory), if it is one.
    pub(super) fn children(&self, path: &str) -> Option<&[Child]> {
        self.dirs.get(path).map(Vec::as_slice)
    }
}

/// The MIME type of a skill's file, by its extension (`application/octet-stream` when it is
/// not one a skill usually holds).
pub fn mime_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension).to_ascii_lowercase();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "rs" => "text/x-rust",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// Whether content of `mime` is text, to be served as `text` when it is valid UTF-8.
pub fn is_text(mime: &str) -> bool {
    mime.starts_with("text/")
        || matches!(mime, "application/json" | "application/yaml" | "application/toml" | "application/xml")
        || mime == "image/svg+xml"
}
