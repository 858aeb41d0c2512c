//! Agent Skills from a directory, as the skills extension (`io.modelcontextprotocol/skills`,
//! SEP-2640) describes them: one folder a skill, its `SKILL.md` beginning with YAML frontmatter
//! that has at least `name` (the folder's name) and `description`, any other files beside it.
//!
//! A [`Catalog`] is a snapshot: the bytes of every file are read once, so what a client reads
//! always has the digest and size the catalog published. A skill that breaks a rule is left
//! out with a [`Problem`] saying why, and the others are served.
//!
//! ```
//! # let root = std::env::temp_dir().join(format!("skills-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(root.join("tps-report-writing")).unwrap();
//! # std::fs::write(root.join("tps-report-writing/SKILL.md"),
//! #     "---\nname: tps-report-writing\ndescription: Write TPS reports.\n---\n# TPS reports\n").unwrap();
//! use mcp_rounds::skills::Catalog;
//!
//! let catalog = Catalog::load(&root).unwrap();
//! let skill = catalog.get("skill://tps-report-writing/SKILL.md").unwrap();
//! assert_eq!(skill.name(), "tps-report-writing");
//! assert!(catalog.problems().is_empty());
//! # std::fs::remove_dir_all(&root).unwrap();
//! ```

mod frontmatter;
mod live;
mod scan;
mod tree;

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub(crate) use live::Live;
pub use tree::{Child, is_text, mime_type};

use crate::model::{
    BlobResourceContents, JsonObject, Resource, ResourceContents, SkillEntry, SkillResource, SkillResources,
    TextResourceContents,
};

/// At most this many files in a skill, its `SKILL.md` included (SEP-2640).
pub const MAX_FILES_PER_SKILL: usize = 512;
/// At most this many bytes in all of a skill's files together (SEP-2640: 16 MiB).
pub const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;
/// At most this many characters in a skill's description (Agent Skills).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// The skills of a directory, read at one moment.
#[derive(Debug, Default)]
pub struct Catalog {
    skills: BTreeMap<String, Skill>,
    tree: tree::Tree,
    problems: Vec<Problem>,
}

/// One skill: where it is (its path below the skills directory, which ends in its name), its
/// frontmatter and its files.
#[derive(Debug)]
pub struct Skill {
    path: String,
    frontmatter: JsonObject,
    files: Vec<SkillFile>,
}

/// A file of a skill, with the digest and size the extension publishes.
#[derive(Debug, Clone)]
pub struct SkillFile {
    path: String,
    bytes: Arc<[u8]>,
    digest: String,
}

/// Something in the skills directory that is not served, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file or folder, from the skills directory.
    pub path: String,
    /// Why it is not served.
    pub reason: String,
}

impl Problem {
    fn new(path: &str, reason: impl Into<String>) -> Self {
        Problem { path: path.to_owned(), reason: reason.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

impl Catalog {
    /// Reads every skill below `root`. Fails only when `root` itself cannot be read; whatever
    /// is wrong below it is in [`problems`](Self::problems).
    pub fn load(root: &Path) -> io::Result<Catalog> {
        let root = std::fs::canonicalize(root)?;
        let walk = scan::walk(&root)?;
        let mut catalog = Catalog { skills: BTreeMap::new(), tree: tree::Tree::default(), problems: walk.problems };
        let skill_dirs: Vec<&str> = walk
            .files
            .iter()
            .filter_map(|found| match found.rel.rsplit_once('/') {
                Some((dir, "SKILL.md")) => Some(dir),
                None if found.rel == "SKILL.md" => Some(""),
                _ => None,
            })
            .collect();
        for dir in skill_dirs {
            if dir.is_empty() {
                catalog.problems.push(Problem::new(
                    "SKILL.md",
                    "a skill is a folder: put its SKILL.md in a folder named after the skill",
                ));
                continue;
            }
            match Skill::read(dir, &walk.files) {
                Ok(skill) => {
                    catalog.skills.insert(skill.path.clone(), skill);
                }
                Err(reason) => catalog.problems.push(Problem::new(&format!("{dir}/SKILL.md"), reason)),
            }
        }
        catalog.tree = tree::Tree::new(&catalog.skills, &walk.dirs);
        Ok(catalog)
    }

    /// The skills, by path.
    pub fn skills(&self) -> impl ExactSizeIterator<Item = &Skill> {
        self.skills.values()
    }

    /// What was left out, and why.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub fn get(&self, uri: &str) -> Option<&Skill> {
        let path = uri.strip_prefix("skill://")?.strip_suffix("/SKILL.md")?;
        self.skills.get(path)
    }

    /// The `SKILL.md` of every skill as `resources/list` lists it: named and described by its
    /// frontmatter, `text/markdown`, with its size.
    pub fn listing(&self) -> impl Iterator<Item = Resource> + '_ {
        self.skills.values().map(|skill| {
            let mut resource = Resource::new(skill.uri(), skill.name())
                .with_description(skill.description())
                .with_mime_type("text/markdown");
            resource.size = Some(skill.files[0].size());
            resource
        })
    }

    /// The children of the directory at `uri` (a skill's root, a folder in it, or a prefix
    /// folder leading to skills); `None` when `uri` is no such directory.
    pub fn directory(&self, uri: &str) -> Option<&[Child]> {
        let path = uri.strip_prefix("skill://")?;
        self.tree.children(path.strip_suffix('/').unwrap_or(path))
    }

    /// What `resources/read` answers for the file at `uri`: its bytes as read, as text when
    /// its type is text and it is UTF-8, else base64.
    pub fn contents(&self, uri: &str) -> Option<ResourceContents> {
        let (_, file) = self.file(uri)?;
        let mime = mime_type(&file.path);
        Some(match std::str::from_utf8(&file.bytes) {
            Ok(text) if is_text(mime) => {
                ResourceContents::Text(TextResourceContents::new(uri, text).with_mime_type(mime))
            }
            _ => ResourceContents::Blob(BlobResourceContents::new(uri, &file.bytes).with_mime_type(mime)),
        })
    }

    /// Whether `other` serves the same skills with the same content.
    pub fn same_as(&self, other: &Catalog) -> bool {
        self.skills.len() == other.skills.len()
            && self.skills.values().zip(other.skills.values()).all(|(a, b)| {
                a.path == b.path
                    && a.frontmatter == b.frontmatter
                    && a.files.len() == b.files.len()
                    && a.files.iter().zip(&b.files).all(|(a, b)| a.path == b.path && a.digest == b.digest)
            })
            && self.tree == other.tree
    }

    /// The URI and digest of every file of every skill.
    pub(crate) fn digests(&self) -> BTreeMap<String, &str> {
        self.skills
            .values()
            .flat_map(|skill| skill.files.iter().map(move |file| (skill.file_uri(file), file.digest.as_str())))
            .collect()
    }

    /// The file at `uri` and the innermost skill it belongs to.
    pub fn file(&self, uri: &str) -> Option<(&Skill, &SkillFile)> {
        let rest = uri.strip_prefix("skill://")?;
        // Innermost first: a nested skill's files also belong to the skills around it.
        let mut end = rest.len();
        while let Some(slash) = rest[..end].rfind('/') {
            if let Some(skill) = self.skills.get(&rest[..slash]) {
                let file = skill.files.iter().find(|file| file.path == rest[slash + 1..])?;
                return Some((skill, file));
            }
            end = slash;
        }
        None
    }
}

impl Skill {
    /// Reads the skill in `dir` from the files found below the root.
    fn read(dir: &str, found: &[scan::FoundFile]) -> Result<Skill, String> {
        let prefix = format!("{dir}/");
        let mine: Vec<&scan::FoundFile> = found.iter().filter(|f| f.rel.starts_with(&prefix)).collect();
        if mine.len() > MAX_FILES_PER_SKILL {
            return Err(format!("the skill has {} files; at most {MAX_FILES_PER_SKILL} are served", mine.len()));
        }
        let total: u64 = mine.iter().map(|f| f.len).sum();
        if total > MAX_BYTES_PER_SKILL {
            return Err(format!("the skill's files hold {total} bytes; at most {MAX_BYTES_PER_SKILL} are served"));
        }
        let mut budget = MAX_BYTES_PER_SKILL;
        let mut files = Vec::with_capacity(mine.len());
        for found in mine {
            let bytes = scan::read(found, budget).map_err(|e| format!("{} cannot be read: {e}", found.rel))?;
            budget -= bytes.len() as u64;
            let digest = digest(&bytes);
            files.push(SkillFile { path: found.rel[prefix.len()..].to_owned(), bytes: bytes.into(), digest });
        }
        // SKILL.md first: the entry lists it before the files it refers to.
        files.sort_by(|a, b| (a.path != "SKILL.md").cmp(&(b.path != "SKILL.md")).then_with(|| a.path.cmp(&b.path)));
        let text = std::str::from_utf8(&files[0].bytes).map_err(|_| "SKILL.md is not UTF-8 text".to_owned())?;
        let frontmatter = frontmatter::parse(text)?;
        check(dir, &frontmatter)?;
        Ok(Skill { path: dir.to_owned(), frontmatter, files })
    }

    /// Its name, from the frontmatter (also the last segment of its path).
    pub fn name(&self) -> &str {
        self.frontmatter["name"].as_str().unwrap_or_default()
    }

    /// Its description, from the frontmatter.
    pub fn description(&self) -> &str {
        self.frontmatter["description"].as_str().unwrap_or_default()
    }

    /// Its path below the skills directory (`acme/refunds`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Every field of its frontmatter.
    pub fn frontmatter(&self) -> &JsonObject {
        &self.frontmatter
    }

    /// Its files, `SKILL.md` first.
    pub fn files(&self) -> &[SkillFile] {
        &self.files
    }

    /// The URI of its `SKILL.md`, which names the skill.
    pub fn uri(&self) -> String {
        format!("skill://{}/SKILL.md", self.path)
    }

    /// The URI of one of its files.
    pub fn file_uri(&self, file: &SkillFile) -> String {
        format!("skill://{}/{}", self.path, file.path)
    }

    /// The entry `skills/list` and `skills/get` carry: URI, frontmatter, and every file with
    /// its digest and size.
    pub fn entry(&self) -> SkillEntry {
        let resources = self
            .files
            .iter()
            .map(|file| SkillResource { uri: self.file_uri(file), digest: file.digest.clone(), size: file.size() })
            .collect();
        SkillEntry {
            uri: self.uri(),
            frontmatter: self.frontmatter.clone(),
            resources: SkillResources::Files(resources),
        }
    }
}

impl SkillFile {
    /// Its path within the skill (`references/FORMS.md`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Its bytes, as read when the catalog was made.
    pub fn bytes(&self) -> &Arc<[u8]> {
        &self.bytes
    }

    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Its length in bytes.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
}

/// The rules of Agent Skills a frontmatter must keep, for the skill in `dir`.
fn check(dir: &str, frontmatter: &Map<String, Value>) -> Result<(), String> {
    let name = match frontmatter.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name,
        _ => return Err("the frontmatter needs a `name`: the skill's folder name".into()),
    };
    match frontmatter.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() && d.chars().count() <= MAX_DESCRIPTION_CHARS => {}
        Some(Value::String(d)) if !d.trim().is_empty() => {
            return Err(format!("the description has more than {MAX_DESCRIPTION_CHARS} characters"));
        }
        _ => return Err("the frontmatter needs a `description`: what the skill is for and when to use it".into()),
    }
    let folder = dir.rsplit('/').next().unwrap_or(dir);
    if name != folder {
        return Err(format!("`name: {name}` must be the skill's folder name, `{folder}`"));
    }
    if !mcp_rounds_grammar::is_skill_name(name) {
        return Err(format!("the name `{name}` breaks the Agent Skills rule: {}", mcp_rounds_grammar::SKILL_NAME_RULE));
    }
    Ok(())
}

fn digest(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let hash = Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

#[cfg(test)]
mod tests;
