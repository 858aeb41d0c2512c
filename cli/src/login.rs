//! Logging in from the command: the loopback redirect a browser comes back to (RFC 8252), and
//! the file that keeps each server's login, readable by the user alone. A client secret goes
//! only to the issuer the person named (`--issuer`, or the one a kept login names).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use mcp_rounds::client::oauth::{Authorizer, ClientCredentials, Issuer, Login, LoginError, SavedLogin, TokenStore};
use mcp_rounds::future::BoxFuture;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::failure::{Failure, usage};
use crate::options::LoginOptions;
use crate::screen::styled;
use crate::shown::shown_line;

/// How the command logs in to `url`: a machine's client credentials, or a person through
/// `person` (none: a login needed is an error naming the command that logs in).
pub fn logins(options: &LoginOptions, url: &str, person: Option<Loopback>) -> Result<Option<Login>, Failure> {
    let store = FileStore::for_server(url)?;
    let kept = store.load();
    let issuer = issuer(options, kept.as_ref());
    if options.client_credentials {
        let (Some(id), Some(secret)) = (&options.client_id, &options.client_secret) else {
            return Err(usage("--client-credentials needs --client-id and --client-secret (or MCP_CLIENT_SECRET)"));
        };
        let issuer = issuer.ok_or_else(issuer_needed)?;
        let builder = Login::client_credentials(ClientCredentials::secret(issuer, id.clone(), secret.expose()));
        return Ok(Some(trusting(builder, options).build()));
    }
    let mut builder = match person {
        Some(loopback) => Login::builder(loopback.redirect_uri(), loopback),
        // Nobody to ask and nothing kept: no login to try (a 401 says what to do).
        None if kept.is_none() => return Ok(None),
        None => Login::builder("http://127.0.0.1/callback", NoPerson),
    };
    builder = trusting(builder.store(store).client_name("mcp-rounds"), options);
    if let Some(url) = &options.client_metadata_url {
        builder = builder.client_metadata_url(url.clone());
    }
    if let Some(id) = &options.client_id {
        let secret = options.client_secret.as_ref().map(|s| s.expose().to_owned());
        let issuer = match issuer {
            Some(issuer) => issuer,
            // A client id alone is no secret: whichever issuer the server names may have it.
            None if secret.is_none() => Issuer::trust_server_named(),
            None => return Err(issuer_needed()),
        };
        builder = builder.preregistered(issuer, id.clone(), secret);
    }
    Ok(Some(builder.build()))
}

/// Whose the client's credentials are: `--trust-server-issuer`, `--issuer`, else the issuer
/// of the login kept for this server.
fn issuer(options: &LoginOptions, kept: Option<&SavedLogin>) -> Option<Issuer> {
    if options.trust_server_issuer {
        return Some(Issuer::trust_server_named());
    }
    options.issuer.clone().or_else(|| kept.map(|k| k.issuer.clone())).map(Issuer::named)
}

fn issuer_needed() -> Failure {
    usage(
        "--client-secret is sent only to the authorization server it belongs to: name it with --issuer URL \
         (or pass --trust-server-issuer to send it wherever the server says, for a server you control)",
    )
}

fn trusting(
    builder: mcp_rounds::client::oauth::LoginBuilder,
    options: &LoginOptions,
) -> mcp_rounds::client::oauth::LoginBuilder {
    if options.allow_private_addresses { builder.allow_private_addresses() } else { builder }
}

/// Says a login is needed instead of starting one.
struct NoPerson;

impl Authorizer for NoPerson {
    fn authorize<'a>(&'a self, _url: &'a str, _redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
        Box::pin(async { Err(LoginError::Authorization("the kept login no longer works".into())) })
    }
}

/// A one-request web server on a loopback port: the browser's way back with the code.
pub struct Loopback {
    listener: Mutex<Option<tokio::net::TcpListener>>,
    port: u16,
}

impl Loopback {
    /// Listens on a free loopback port.
    pub async fn bind() -> Result<Loopback, Failure> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| Failure::Io(format!("cannot listen on a loopback port for the login: {e}")))?;
        let port = listener.local_addr().map_err(|e| Failure::Io(e.to_string()))?.port();
        Ok(Loopback { listener: Mutex::new(Some(listener)), port })
    }

    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }
}

impl Authorizer for Loopback {
    fn authorize<'a>(&'a self, url: &'a str, _redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
        Box::pin(async move {
            let failed = |why: String| LoginError::Authorization(why);
            let listener = self.listener.lock().unwrap_or_else(|e| e.into_inner()).take();
            let listener = listener.ok_or_else(|| failed("the login's redirect was already used".into()))?;
            // The URL is printed, never opened by the command itself.
            eprintln!(
                "{} open this page to log in:\n  {}",
                styled("Login:").bold(),
                styled(shown_line(url)).underlined()
            );
            loop {
                let (stream, _) = listener.accept().await.map_err(|e| failed(e.to_string()))?;
                let (reader, mut writer) = stream.into_split();
                let mut request_line = String::new();
                BufReader::new(reader).read_line(&mut request_line).await.map_err(|e| failed(e.to_string()))?;
                let target = request_line.split_whitespace().nth(1).unwrap_or_default().to_owned();
                if !target.starts_with("/callback") {
                    let _ = writer
                        .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                        .await;
                    continue;
                }
                let page = "<!doctype html><title>mcp-rounds</title><p>Done: you can close this page.</p>";
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = writer.write_all(answer.as_bytes()).await;
                return Ok(format!("http://127.0.0.1:{}{target}", self.port));
            }
        })
    }
}

/// The logins file: `logins.json` in the user's configuration directory (`$XDG_CONFIG_HOME`,
/// else `~/.config`, under `mcp-rounds/`), one entry per server URL. The directory is the
/// user's alone (made 0700, refused if others may write to it); the file is written whole
/// through a new temporary file of mode 0600, synced, then renamed over the old one, under a
/// lock, so that two commands at once lose nothing and a crash leaves the old file or the new.
pub struct FileStore {
    path: PathBuf,
    url: String,
}

impl FileStore {
    /// The store's entry for the server at `url`.
    pub fn for_server(url: &str) -> Result<FileStore, Failure> {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
            .ok_or_else(|| Failure::Io("no home directory to keep logins in (set XDG_CONFIG_HOME)".into()))?;
        Ok(FileStore { path: base.join("mcp-rounds").join("logins.json"), url: url.to_owned() })
    }

    /// Where the logins are kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// Every kept login; none when the file is missing, unreadable, or readable by others
    /// (then said on stderr: its tokens may have been read).
    fn read(&self) -> BTreeMap<String, SavedLogin> {
        let file = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(&self.path);
        let Ok(file) = file else { return BTreeMap::new() };
        if let Ok(metadata) = file.metadata()
            && metadata.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "mcp-rounds: {} can be read by others (mode {:o}): not used; `chmod 600` it, or log in again",
                self.path.display(),
                metadata.permissions().mode() & 0o777
            );
            return BTreeMap::new();
        }
        serde_json::from_reader(std::io::BufReader::new(file)).unwrap_or_default()
    }

    /// Reads, changes and writes the file under its lock.
    fn change(&self, change: impl FnOnce(&mut BTreeMap<String, SavedLogin>) -> bool) -> std::io::Result<bool> {
        self.ensure_dir()?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.dir().join("logins.lock"))?;
        lock.lock()?;
        let mut logins = self.read();
        let changed = change(&mut logins);
        if changed {
            self.write(&logins)?;
        }
        Ok(changed)
    }

    /// The directory, made the user's alone; refused if others may write to it, since they
    /// could then swap the file for theirs.
    fn ensure_dir(&self) -> std::io::Result<()> {
        let dir = self.dir();
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let metadata = std::fs::symlink_metadata(dir)?;
        let mode = metadata.permissions().mode();
        if !metadata.is_dir() || mode & 0o022 != 0 {
            return Err(std::io::Error::other(format!(
                "{} is not a directory only you can write to (mode {:o}): logins are not kept there",
                dir.display(),
                mode & 0o777
            )));
        }
        Ok(())
    }

    fn write(&self, logins: &BTreeMap<String, SavedLogin>) -> std::io::Result<()> {
        let text = serde_json::to_vec_pretty(logins).map_err(std::io::Error::other)?;
        let (temporary, mut file) = self.temporary()?;
        let written = file.write_all(&text).and_then(|()| file.sync_all());
        let renamed = written.and_then(|()| std::fs::rename(&temporary, &self.path));
        if let Err(error) = renamed {
            let _ = std::fs::remove_file(&temporary);
            return Err(error);
        }
        // The rename itself is durable once the directory is synced.
        File::open(self.dir()).and_then(|dir| dir.sync_all())
    }

    /// A new file beside the logins, of a name nobody could have prepared, mode 0600.
    fn temporary(&self) -> std::io::Result<(PathBuf, File)> {
        for _ in 0..8 {
            let mut random = [0u8; 8];
            getrandom::fill(&mut random).map_err(std::io::Error::other)?;
            let name = format!(".logins.{}.{}.tmp", std::process::id(), u64::from_le_bytes(random));
            let path = self.dir().join(name);
            match OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(&path)
            {
                Ok(file) => return Ok((path, file)),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(error) => return Err(error),
            }
        }
        Err(std::io::Error::other("cannot make a temporary file for the logins"))
    }

    fn report(&self, outcome: std::io::Result<bool>) -> bool {
        outcome.unwrap_or_else(|error| {
            eprintln!("mcp-rounds: cannot keep the login in {}: {error}", self.path.display());
            false
        })
    }

    /// Forgets this server's login; whether there was one.
    pub fn forget(&self) -> bool {
        if !self.path.exists() {
            return false;
        }
        let outcome = self.change(|logins| logins.remove(&self.url).is_some());
        self.report(outcome)
    }
}

impl TokenStore for FileStore {
    fn load(&self) -> Option<SavedLogin> {
        self.read().remove(&self.url)
    }

    fn save(&self, login: &SavedLogin) {
        let outcome = self.change(|logins| {
            logins.insert(self.url.clone(), login.clone());
            true
        });
        self.report(outcome);
    }

    fn clear(&self) {
        self.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(name: &str) -> (FileStore, PathBuf) {
        let base = std::env::temp_dir().join(format!("mcp-rounds-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let store = FileStore { path: base.join("mcp-rounds").join("logins.json"), url: "http://s/mcp".into() };
        (store, base)
    }

    fn login() -> SavedLogin {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://as", "resource": "http://s/mcp", "client_id": "c",
            "token_endpoint_auth_method": "none", "access_token": "a"
        }))
        .unwrap()
    }

    #[test]
    fn the_file_is_the_users_alone_and_written_through_a_new_file() {
        let (store, base) = store("modes");
        store.save(&login());
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(store.dir()), 0o700);
        assert_eq!(mode(&store.path), 0o600);
        assert_eq!(store.load().map(|l| l.access_token), Some("a".to_owned()));
        // A link planted where the old fixed temporary name was is left alone, not written through.
        let target = base.join("target");
        std::fs::write(&target, "untouched").unwrap();
        std::os::unix::fs::symlink(&target, store.dir().join("logins.json.tmp")).unwrap();
        store.save(&login());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "untouched");
        let left: Vec<_> = std::fs::read_dir(store.dir()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(!left.iter().any(|n| n.to_string_lossy().starts_with(".logins.")), "no temporary left: {left:?}");
        let _ = std::fs::remove_dir_all(base);
    }

    #[test]
    fn a_directory_others_can_write_and_a_file_others_can_read_are_refused() {
        let (store, base) = store("refused");
        std::fs::DirBuilder::new().mode(0o777).create(store.dir()).unwrap();
        std::fs::set_permissions(store.dir(), std::fs::Permissions::from_mode(0o777)).unwrap();
        store.save(&login());
        assert!(!store.path.exists(), "nothing kept in a directory others can write to");
        std::fs::set_permissions(store.dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
        store.save(&login());
        std::fs::set_permissions(&store.path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(store.load().is_none(), "a file others can read is not used");
        // Nor is a link in the file's place followed.
        std::fs::remove_file(&store.path).unwrap();
        let elsewhere = base.join("elsewhere.json");
        std::fs::write(&elsewhere, serde_json::to_vec(&serde_json::json!({"http://s/mcp": login()})).unwrap()).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &store.path).unwrap();
        assert!(store.load().is_none(), "a link is not followed");
        let _ = std::fs::remove_dir_all(base);
    }
}
