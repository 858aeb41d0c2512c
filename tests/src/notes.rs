//! A data directory for the example notes server, which seeds it on its first start: for tests
//! that drive the server through a client (the library's, or the `mcp-rounds` command).

use std::path::PathBuf;

/// A data directory the notes server seeds on its first start; removed when dropped, with the
/// files written beside it (`<dir>-<name>`).
pub struct NotesData {
    /// The directory (absent until the server's first start).
    pub path: PathBuf,
}

impl NotesData {
    /// A fresh directory under the system temp dir, unique to `name` and this process.
    pub fn new(name: &str) -> Self {
        let base = std::env::temp_dir().canonicalize().expect("the temp dir");
        let path = base.join(format!("mcp-rounds-notes-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        NotesData { path }
    }

    /// The path, as the server's `--data` argument.
    pub fn arg(&self) -> &str {
        self.path.to_str().expect("a UTF-8 temp dir")
    }

    /// A file beside the directory (which the server seeds only when it does not exist yet).
    pub fn beside(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("{}-{name}", self.path.display()))
    }

    /// The workspace the seed grants `demo`.
    pub fn workspace_uri(&self) -> String {
        format!("file://{}", self.path.join("workspace").display())
    }

    /// `demo`'s bearer token, as the seed wrote it.
    pub fn token(&self) -> String {
        let config = std::fs::read_to_string(self.path.join("config.toml")).expect("config.toml");
        let line = config.lines().find(|l| l.starts_with("token = ")).expect("a token line");
        line.trim_start_matches("token = ").trim_matches('"').to_owned()
    }

    /// The ids of the notes in the workspace, sorted.
    pub fn notes(&self) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(self.path.join("workspace"))
            .expect("the workspace")
            .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".md").map(str::to_owned))
            .collect();
        ids.sort();
        ids
    }
}

impl Drop for NotesData {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        let prefix = format!("{}-", self.path.file_name().unwrap_or_default().to_string_lossy());
        let parent = self.path.parent().map(PathBuf::from).unwrap_or_default();
        for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

impl NotesData {
    /// Seeds the directory by one short start of the notes server at `binary` over stdio (its
    /// stdin closed at once).
    pub fn seed(&self, binary: &std::path::Path) {
        let output = std::process::Command::new(binary)
            .args(["--data", self.arg(), "--stdio"])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run the notes server");
        assert!(output.status.success(), "seeding: {}", String::from_utf8_lossy(&output.stderr));
    }

    /// Has the seeded server trust the authorization server `auth` (its tokens, with scopes
    /// `notes:read` and `notes:write`), and grant `principals` the seeded workspace.
    pub fn trust(&self, auth: &crate::oauth::AuthorizationServer, principals: &[&str]) {
        let path = self.path.join("config.toml");
        let mut config = std::fs::read_to_string(&path).expect("config.toml");
        config.push_str(&trusting(auth, &self.workspace_uri(), principals));
        // Written whole (by a rename), so that a server starting meanwhile never reads half.
        let temporary = self.path.join(".config.toml.test");
        std::fs::write(&temporary, config).expect("write the config");
        std::fs::rename(temporary, path).expect("move the config into place");
    }
}

/// The notes server's config lines that trust `auth` (its tokens, with scopes `notes:read` and
/// `notes:write`) and grant each of `principals` the workspace `workspace_uri`.
pub fn trusting(auth: &crate::oauth::AuthorizationServer, workspace_uri: &str, principals: &[&str]) -> String {
    let mut config = format!(
        "\n[oauth]\nissuer = \"{}\"\njwks_uri = \"{}\"\nscopes_supported = [\"notes:read\", \"notes:write\"]\n",
        auth.issuer(),
        auth.jwks_uri()
    );
    for principal in principals {
        config.push_str(&format!("\n[principals.{principal}]\nworkspaces = [\"{workspace_uri}\"]\n"));
    }
    config
}
