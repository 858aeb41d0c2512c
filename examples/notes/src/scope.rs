//! Which notes a caller may touch: authorization (the workspaces config.toml grants the
//! principal), containment (a path stays inside its workspace, compared by components after
//! percent-decoding and dot segments), and the note ids and URIs that name notes.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use mcp_rounds::Principal;
use percent_encoding::percent_decode_str;

/// A workspace directory: where a principal's notes live.
#[derive(Debug)]
pub struct Workspace {
    /// Its short name in note URIs (`notes://{slug}/{id}`): the directory's name.
    pub slug: String,
    /// Its `file://` URI as config.toml writes it, normalized.
    pub uri: String,
    /// Its absolute path, normalized but not resolved: what URIs are compared with.
    pub path: PathBuf,
    /// Its path with symlinks resolved when the server started: what file operations use.
    pub root: PathBuf,
}

impl Workspace {
    /// The URI of one of its notes.
    pub fn note_uri(&self, id: &str) -> String {
        format!("notes://{}/{id}", self.slug)
    }

    /// Where note `id` lives; `None` for an id that could name anything else.
    pub fn note_path(&self, id: &str) -> Option<PathBuf> {
        let path = self.root.join(format!("{id}.md"));
        (is_note_id(id) && contains(&self.root, &path)).then_some(path)
    }
}

/// Why a workspace cannot be used. Both read the same to the caller, so that a refusal does not
/// tell which workspaces exist.
#[derive(Debug, PartialEq, Eq)]
pub enum ScopeError {
    /// Not a `file://` URI of an absolute path.
    NotAFileUri,
    /// A workspace this principal has not been granted (or a path outside every one).
    NotAuthorized,
}

impl std::fmt::Display for ScopeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScopeError::NotAFileUri => f.write_str("a workspace is named by a file:// URI of a directory"),
            ScopeError::NotAuthorized => f.write_str("that workspace is not one you may use"),
        }
    }
}

/// Note ids: file names without `.md`, from a set of characters that is safe in paths and URIs.
pub fn is_note_id(id: &str) -> bool {
    (1..=100).contains(&id.len())
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The absolute path a `file://` URI names, percent-decoded and with `.` and `..` resolved
/// lexically (never above the root). `None` for anything else: another scheme, a remote host,
/// a relative path, a NUL byte or bytes that are not UTF-8.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let scheme_end = uri.find("://")?;
    if !uri[..scheme_end].eq_ignore_ascii_case("file") {
        return None;
    }
    let rest = &uri[scheme_end + 3..];
    let (authority, path) = rest.split_at(rest.find('/')?);
    if !(authority.is_empty() || authority.eq_ignore_ascii_case("localhost")) || path.contains(['?', '#']) {
        return None;
    }
    // Decoding first turns `%2e%2e` into `..` and `%2f` into `/`, which the normalization
    // below then treats exactly like their plain forms.
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    if decoded.contains('\0') || decoded.contains('\\') {
        return None;
    }
    let mut normalized = PathBuf::from("/");
    for component in Path::new(decoded.as_ref()).components() {
        match component {
            Component::Normal(part) => normalized.push(part),
            Component::ParentDir => {
                normalized.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    Some(normalized)
}

/// `target` is `root` or inside it, compared component by component (so `/srv/notes-evil` is
/// not inside `/srv/notes`). Both must be normalized already.
pub fn contains(root: &Path, target: &Path) -> bool {
    target.starts_with(root)
}

/// The workspaces each principal may use.
#[derive(Debug, Default, Clone)]
pub struct Scope {
    granted: BTreeMap<String, Vec<Arc<Workspace>>>,
}

impl Scope {
    /// Grants `principal` the `workspaces`.
    pub fn grant(&mut self, principal: &str, workspaces: impl IntoIterator<Item = Arc<Workspace>>) {
        self.granted.entry(principal.to_owned()).or_default().extend(workspaces);
    }

    /// The workspaces `principal` may use.
    pub fn workspaces_of(&self, principal: &Principal) -> &[Arc<Workspace>] {
        principal.name().and_then(|name| self.granted.get(name)).map_or(&[], Vec::as_slice)
    }

    /// The workspace a `workspaceUri` argument names, if `principal` may use it.
    pub fn workspace(&self, principal: &Principal, uri: &str) -> Result<Arc<Workspace>, ScopeError> {
        let path = file_uri_path(uri).ok_or(ScopeError::NotAFileUri)?;
        self.workspaces_of(principal)
            .iter()
            .find(|workspace| workspace.path == path)
            .cloned()
            .ok_or(ScopeError::NotAuthorized)
    }

    /// The workspace a note URI names by its slug, if `principal` may use it.
    pub fn workspace_by_slug(&self, principal: &Principal, slug: &str) -> Option<Arc<Workspace>> {
        self.workspaces_of(principal).iter().find(|workspace| workspace.slug == slug).cloned()
    }

    /// Whether `principal` may read the note at a `notes://` URI.
    pub fn may_read(&self, principal: &Principal, uri: &str) -> bool {
        parse_note_uri(uri)
            .is_some_and(|(slug, id)| is_note_id(id) && self.workspace_by_slug(principal, slug).is_some())
    }
}

/// The workspace slug and note id of `notes://{slug}/{id}`.
pub fn parse_note_uri(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix("notes://")?;
    let (slug, id) = rest.split_once('/')?;
    (!slug.is_empty() && !id.contains('/')).then_some((slug, id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(path: &str) -> Arc<Workspace> {
        Arc::new(Workspace {
            slug: Path::new(path).file_name().unwrap().to_string_lossy().into_owned(),
            uri: format!("file://{path}"),
            path: PathBuf::from(path),
            root: PathBuf::from(path),
        })
    }

    fn scope() -> Scope {
        let mut scope = Scope::default();
        scope.grant("demo", [workspace("/srv/notes/workspace")]);
        scope
    }

    #[test]
    fn the_granted_workspace_is_found_however_it_is_spelled() {
        let demo = Principal::new("demo");
        for uri in [
            "file:///srv/notes/workspace",
            "file:///srv/notes/workspace/",
            "file://localhost/srv/notes/workspace",
            "FILE:///srv/notes/./workspace",
            "file:///srv/notes/other/../workspace",
            "file:///srv/notes/%77orkspace",
            "file:///srv%2fnotes/workspace",
        ] {
            assert_eq!(scope().workspace(&demo, uri).map(|w| w.slug.clone()), Ok("workspace".to_owned()), "{uri}");
        }
    }

    #[test]
    fn prefixes_and_traversals_never_reach_another_directory() {
        let demo = Principal::new("demo");
        for uri in [
            "file:///srv/notes/workspace-evil",
            "file:///srv/notes/workspace-private",
            "file:///srv/notes/workspace/../workspace-private",
            "file:///srv/notes/workspace/%2e%2e/workspace-private",
            "file:///srv/notes/workspace/%2E%2E/workspace-private",
            "file:///srv/notes/workspace/.%2e/workspace-private",
            "file:///srv/notes/workspace%2f..%2fworkspace-private",
            "file:///srv/notes/workspace/sub",
            "file:///srv/notes",
            "file:///",
        ] {
            assert_eq!(scope().workspace(&demo, uri).unwrap_err(), ScopeError::NotAuthorized, "{uri}");
        }
    }

    #[test]
    fn only_local_file_uris_name_workspaces() {
        let demo = Principal::new("demo");
        for uri in [
            "https://srv/notes/workspace",
            "file://evil.example/srv/notes/workspace",
            "file:relative/workspace",
            "/srv/notes/workspace",
            "file:///srv/notes/workspace%00",
            "file:///srv/notes/workspace?x=1",
            "file:///srv/notes/%ff",
            "file:///srv\\notes\\workspace",
        ] {
            assert_eq!(scope().workspace(&demo, uri).unwrap_err(), ScopeError::NotAFileUri, "{uri}");
        }
    }

    #[test]
    fn a_workspace_is_granted_to_its_principal_only() {
        assert_eq!(
            scope().workspace(&Principal::new("mallory"), "file:///srv/notes/workspace").unwrap_err(),
            ScopeError::NotAuthorized
        );
        assert_eq!(
            scope().workspace(&Principal::anonymous(), "file:///srv/notes/workspace").unwrap_err(),
            ScopeError::NotAuthorized
        );
        assert!(scope().may_read(&Principal::new("demo"), "notes://workspace/roadmap"));
        assert!(!scope().may_read(&Principal::new("mallory"), "notes://workspace/roadmap"));
        assert!(!scope().may_read(&Principal::new("demo"), "notes://workspace/../x"));
    }

    #[test]
    fn note_ids_are_plain_names() {
        for ok in ["roadmap", "tps-report-2026-q1", "A_1"] {
            assert!(is_note_id(ok), "{ok}");
        }
        for bad in ["", ".hidden", "-x", "a/b", "a.md", "..", "a b", "é", &"x".repeat(101)] {
            assert!(!is_note_id(bad), "{bad}");
        }
        let ws = workspace("/srv/notes/workspace");
        assert_eq!(ws.note_path("roadmap"), Some(PathBuf::from("/srv/notes/workspace/roadmap.md")));
        assert_eq!(ws.note_path("../x"), None);
    }
}
