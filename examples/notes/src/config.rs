//! `DIR/config.toml`: the principals, their bearer tokens and workspaces, the principal of
//! stdio, the keys that sign `requestState`, the keys that seal the change notifications
//! instances sharing PostgreSQL send each other, which model `summarize_notes` uses, and the
//! OAuth authorization server whose access tokens HTTP accepts instead of the static tokens.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mcp_rounds::changes::{RelayKey, RelayKeys};
use mcp_rounds::request_state::{KeyRing, StateKey};
use serde::Deserialize;

use crate::scope::{Scope, Workspace, file_uri_path};

/// Which model `summarize_notes` asks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// The client's model, through sampling rounds.
    #[default]
    Sampling,
    /// The server's own (built-in, deterministic) summarizer: no rounds at all.
    Builtin,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    stdio_principal: Option<String>,
    #[serde(default)]
    principals: BTreeMap<String, PrincipalEntry>,
    state: StateEntry,
    #[serde(default)]
    model: ModelEntry,
    #[serde(default)]
    tasks: TasksEntry,
    oauth: Option<OAuthEntry>,
    relay: Option<RelayEntry>,
    #[serde(default)]
    changes: ChangesEntry,
}

/// `[changes]`: who announces a change to a note.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChangesEntry {
    /// Watch the workspaces' files (every change, whoever made it: an editor, another
    /// process); when false, the server announces only what its own tools change.
    #[serde(default = "watching_files")]
    watch_files: bool,
}

fn watching_files() -> bool {
    true
}

impl Default for ChangesEntry {
    fn default() -> Self {
        ChangesEntry { watch_files: true }
    }
}

/// What a server with `--database postgres://…` refuses to start without.
pub const MISSING_RELAY_KEYS: &str = "config.toml: --database is PostgreSQL, so [relay] needs a key \
     ([[relay.keys]] with an id and a secret of 32 random bytes in base64, the same on every instance): \
     instances tell each other of changes through the database, and accept only what is sealed with it";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RelayEntry {
    keys: Vec<KeyEntry>,
    /// The id of the key that seals; by default the last.
    signing: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TasksEntry {
    #[serde(default = "default_lease")]
    lease_seconds: u64,
}

impl Default for TasksEntry {
    fn default() -> Self {
        TasksEntry { lease_seconds: default_lease() }
    }
}

fn default_lease() -> u64 {
    15
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OAuthEntry {
    issuer: String,
    jwks_uri: Option<String>,
    audience: Option<String>,
    #[serde(default)]
    scopes_supported: Vec<String>,
}

/// The `[oauth]` table: HTTP accepts the issuer's access tokens instead of static tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthConfig {
    /// Tokens' `iss`.
    pub issuer: String,
    /// The issuer's keys; `None`: found through its metadata.
    pub jwks_uri: Option<String>,
    /// What tokens' `aud` must contain; `None`: the server's own MCP URL.
    pub audience: Option<String>,
    /// For the protected resource metadata.
    pub scopes_supported: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrincipalEntry {
    token: Option<String>,
    #[serde(default)]
    workspaces: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateEntry {
    #[serde(default = "default_ttl")]
    ttl_seconds: u64,
    keys: Vec<KeyEntry>,
    /// The id of the key that signs; by default the last.
    signing: Option<String>,
}

fn default_ttl() -> u64 {
    300
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyEntry {
    id: String,
    secret: String,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelEntry {
    #[serde(default)]
    provider: Provider,
}

/// The configuration, checked: every workspace exists, every token is unique.
#[derive(Debug)]
pub struct Config {
    /// Who may use which workspace.
    pub scope: Scope,
    /// Bearer token → principal, for HTTP.
    pub tokens: Vec<(String, String)>,
    /// The principal of a stdio session, if any.
    pub stdio_principal: Option<String>,
    /// The keys that verify `requestState`; `[state] signing` names the one that signs (by
    /// default the last).
    pub keys: KeyRing,
    /// How long a state stays valid.
    pub state_ttl: Duration,
    /// How soon a task whose instance stopped (killed, say) is reported failed.
    pub task_lease: Duration,
    /// The model `summarize_notes` uses.
    pub provider: Provider,
    /// Every workspace, once.
    pub workspaces: Vec<Arc<Workspace>>,
    /// The authorization server HTTP trusts, if any.
    pub oauth: Option<OAuthConfig>,
    /// The keys that seal the change notifications sent through PostgreSQL and open those of
    /// other instances (`[relay]`; `signing` names the one that seals, by default the last).
    pub relay_keys: Option<RelayKeys>,
    /// The Agent Skills served (`DIR/skills/`).
    pub skills: std::path::PathBuf,
    /// Whether the workspaces' files are watched (`[changes] watch_files`, by default): every
    /// change is announced, whoever made it. When not, each tool announces its own changes,
    /// and in a fleet the relay tells the other instances: each change is announced once.
    pub watch_files: bool,
}

/// Reads and checks `DIR/config.toml`. The error is one line naming the problem.
pub fn load(dir: &Path) -> Result<Config, String> {
    let path = dir.join("config.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file: File = toml::from_str(&text)
        .map_err(|e| format!("{}: {}", path.display(), e.message().lines().next().unwrap_or("invalid TOML")))?;
    let mut config = check(file).map_err(|problem| format!("{}: {problem}", path.display()))?;
    config.skills = dir.join("skills");
    Ok(config)
}

fn check(file: File) -> Result<Config, String> {
    if file.state.keys.is_empty() {
        return Err("[state] needs at least one key to sign requestState".into());
    }
    let keys = file
        .state
        .keys
        .iter()
        .map(|k| StateKey::from_base64(k.id.clone(), &k.secret).map_err(|e| format!("state key {:?}: {e}", k.id)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut keys = KeyRing::new(keys).map_err(|e| format!("[state] keys: {e}"))?;
    if let Some(id) = &file.state.signing {
        keys = keys.signing_with(id).map_err(|e| format!("[state] signing: {e}"))?;
    }
    let relay_keys = file.relay.as_ref().map(relay_keys).transpose()?;
    if file.state.ttl_seconds == 0 || file.state.ttl_seconds > 86_400 {
        return Err("[state] ttl_seconds must be between 1 and 86400".into());
    }
    if file.tasks.lease_seconds == 0 || file.tasks.lease_seconds > 3_600 {
        return Err("[tasks] lease_seconds must be between 1 and 3600".into());
    }

    let mut workspaces: Vec<Arc<Workspace>> = Vec::new();
    let mut scope = Scope::default();
    let mut tokens = Vec::new();
    let mut seen_tokens = HashSet::new();
    for (name, entry) in &file.principals {
        if let Some(token) = &entry.token {
            if token.len() < 16 {
                return Err(format!("principal {name:?}: a token needs at least 16 characters"));
            }
            if !seen_tokens.insert(token.clone()) {
                return Err(format!("principal {name:?}: its token is another principal's too"));
            }
            tokens.push((token.clone(), name.clone()));
        }
        let mut granted = Vec::new();
        for uri in &entry.workspaces {
            let path = file_uri_path(uri)
                .ok_or_else(|| format!("principal {name:?}: workspace {uri:?} is not a file:// URI"))?;
            let existing = workspaces.iter().find(|w| w.path == path).cloned();
            let workspace = match existing {
                Some(workspace) => workspace,
                None => {
                    let root = std::fs::canonicalize(&path)
                        .map_err(|e| format!("principal {name:?}: workspace {uri:?}: {e}"))?;
                    if !root.is_dir() {
                        return Err(format!("principal {name:?}: workspace {uri:?} is not a directory"));
                    }
                    let slug = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .filter(|s| crate::scope::is_note_id(s))
                        .ok_or_else(|| {
                            format!("workspace {uri:?}: its directory name must be letters, digits, - or _")
                        })?;
                    if workspaces.iter().any(|w| w.slug == slug) {
                        return Err(format!("two workspaces are both named {slug:?}; note URIs need them apart"));
                    }
                    let workspace = Arc::new(Workspace { slug, uri: format!("file://{}", path.display()), path, root });
                    workspaces.push(workspace.clone());
                    workspace
                }
            };
            granted.push(workspace);
        }
        scope.grant(name, granted);
    }
    let oauth = match file.oauth {
        None => None,
        Some(entry) => {
            let is_url = |url: &str| url.starts_with("https://") || url.starts_with("http://");
            if !is_url(&entry.issuer) {
                return Err(format!("[oauth] issuer {:?} is not an http(s) URL", entry.issuer));
            }
            for (key, url) in [("jwks_uri", &entry.jwks_uri), ("audience", &entry.audience)] {
                if let Some(url) = url.as_deref().filter(|url| !is_url(url)) {
                    return Err(format!("[oauth] {key} {url:?} is not an http(s) URL"));
                }
            }
            if let Some(bad) = entry.scopes_supported.iter().find(|s| !mcp_rounds::context::is_scope_token(s)) {
                return Err(format!("[oauth] scopes_supported: {bad:?} is not an OAuth scope"));
            }
            Some(OAuthConfig {
                issuer: entry.issuer,
                jwks_uri: entry.jwks_uri,
                audience: entry.audience,
                scopes_supported: entry.scopes_supported,
            })
        }
    };
    if let Some(principal) = &file.stdio_principal
        && !file.principals.contains_key(principal)
    {
        return Err(format!("stdio_principal {principal:?} is not among [principals]"));
    }
    Ok(Config {
        scope,
        tokens,
        stdio_principal: file.stdio_principal,
        keys,
        state_ttl: Duration::from_secs(file.state.ttl_seconds),
        task_lease: Duration::from_secs(file.tasks.lease_seconds),
        provider: file.model.provider,
        workspaces,
        oauth,
        relay_keys,
        // Set by `load`, which knows the directory.
        skills: std::path::PathBuf::new(),
        watch_files: file.changes.watch_files,
    })
}

fn relay_keys(relay: &RelayEntry) -> Result<RelayKeys, String> {
    if relay.keys.is_empty() {
        return Err("[relay] needs at least one key to seal change notifications".into());
    }
    let keys = relay
        .keys
        .iter()
        .map(|k| RelayKey::from_base64(k.id.clone(), &k.secret).map_err(|e| format!("[relay] key {:?}: {e}", k.id)))
        .collect::<Result<Vec<_>, _>>()?;
    let keys = RelayKeys::new(keys).map_err(|e| format!("[relay] keys: {e}"))?;
    match &relay.signing {
        Some(id) => keys.signing_with(id).map_err(|e| format!("[relay] signing: {e}")),
        None => Ok(keys),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        check(toml::from_str(text).map_err(|e| e.to_string())?)
    }

    fn key() -> String {
        format!("[[state.keys]]\nid = \"k1\"\nsecret = \"{}\"\n", StateKey::generate_secret())
    }

    #[test]
    fn a_minimal_config_reads() {
        let dir = std::env::temp_dir();
        let text = format!(
            "stdio_principal = \"demo\"\n[principals.demo]\ntoken = \"0123456789abcdef\"\nworkspaces = [\"file://{}\"]\n{}",
            dir.display(),
            key()
        );
        let config = parse(&text).unwrap();
        assert_eq!(config.tokens, [("0123456789abcdef".to_owned(), "demo".to_owned())]);
        assert_eq!(config.state_ttl, Duration::from_secs(300));
        assert_eq!(config.task_lease, Duration::from_secs(15));
        assert_eq!(config.provider, Provider::Sampling);
        assert_eq!(config.workspaces.len(), 1);
        assert_eq!(config.oauth, None);
        assert!(config.relay_keys.is_none());
    }

    #[test]
    fn the_relay_keys_read_and_one_seals() {
        let relay = |id: &str| format!("[[relay.keys]]\nid = \"{id}\"\nsecret = \"{}\"\n", StateKey::generate_secret());
        let text = format!("{}[relay]\nsigning = \"r1\"\n{}{}", key(), relay("r1"), relay("r2"));
        assert_eq!(parse(&text).unwrap().relay_keys.unwrap().signing_id(), "r1");
        let text = format!("{}{}{}", key(), relay("r1"), relay("r2"));
        assert_eq!(parse(&text).unwrap().relay_keys.unwrap().signing_id(), "r2", "by default the last");
    }

    #[test]
    fn the_oauth_table_reads() {
        let text = format!(
            "[oauth]\nissuer = \"https://auth.example.com\"\njwks_uri = \"https://auth.example.com/jwks\"\n\
             scopes_supported = [\"notes:read\", \"notes:write\"]\n{}",
            key()
        );
        let oauth = parse(&text).unwrap().oauth.unwrap();
        assert_eq!(oauth.issuer, "https://auth.example.com");
        assert_eq!(oauth.jwks_uri.as_deref(), Some("https://auth.example.com/jwks"));
        assert_eq!(oauth.audience, None);
        assert_eq!(oauth.scopes_supported, ["notes:read", "notes:write"]);
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            ("[state]\nkeys = []\n", "at least one key"),
            (&format!("stdio_principal = \"ghost\"\n{}", key()), "not among [principals]"),
            (&format!("[principals.a]\ntoken = \"short\"\n{}", key()), "at least 16 characters"),
            (&format!("[principals.a]\nworkspaces = [\"https://x/y\"]\n{}", key()), "not a file:// URI"),
            (&format!("[principals.a]\nworkspaces = [\"file:///no/such/dir\"]\n{}", key()), "No such file"),
            (&format!("[model]\nprovider = \"oracle\"\n{}", key()), "unknown variant"),
            (&format!("surprise = 1\n{}", key()), "unknown field"),
            (&format!("[state]\nsigning = \"k9\"\n{}", key()), "no state key has the id \"k9\""),
            (&format!("[oauth]\nissuer = \"auth.example.com\"\n{}", key()), "is not an http(s) URL"),
            (&format!("[oauth]\nissuer = \"https://a\"\njwks_uri = \"/jwks\"\n{}", key()), "jwks_uri"),
            (
                &format!("[oauth]\nissuer = \"https://a\"\nscopes_supported = [\"a b\"]\n{}", key()),
                "not an OAuth scope",
            ),
            (&format!("[oauth]\nissuer = \"https://a\"\nclient = \"x\"\n{}", key()), "unknown field"),
            (&format!("[tasks]\nlease_seconds = 0\n{}", key()), "[tasks] lease_seconds must be between 1 and 3600"),
            (&format!("[relay]\nkeys = []\n{}", key()), "[relay] needs at least one key"),
            (&format!("[[relay.keys]]\nid = \"r\"\nsecret = \"c2hvcnQ=\"\n{}", key()), "use at least 32 random bytes"),
            (&format!("[[relay.keys]]\nid = \"r\"\nsecret = \"!\"\n{}", key()), "not valid base64"),
            (
                &format!(
                    "[relay]\nsigning = \"r9\"\n[[relay.keys]]\nid = \"r\"\nsecret = \"{}\"\n{}",
                    StateKey::generate_secret(),
                    key()
                ),
                "[relay] signing: no relay key has the id \"r9\"",
            ),
        ];
        for (text, expected) in cases {
            let err = parse(text).map(|_| ()).unwrap_err();
            assert!(err.contains(expected), "{text}\n→ {err}");
        }
    }
}
