//! Logging in from the command: the loopback redirect a browser comes back to (RFC 8252), and
//! the file that keeps each server's login, readable by the user alone.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

use mcp_rounds::client::oauth::{Authorizer, ClientCredentials, Login, LoginError, SavedLogin, TokenStore};
use mcp_rounds::future::BoxFuture;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::failure::{Failure, usage};
use crate::options::LoginOptions;
use crate::screen::styled;

/// How the command logs in to `url`: a machine's client credentials, or a person through
/// `person` (none: a login needed is an error naming the command that logs in).
pub fn logins(options: &LoginOptions, url: &str, person: Option<Loopback>) -> Result<Option<Login>, Failure> {
    if options.client_credentials {
        let (Some(id), Some(secret)) = (&options.client_id, &options.client_secret) else {
            return Err(usage("--client-credentials needs --client-id and --client-secret (or MCP_CLIENT_SECRET)"));
        };
        return Ok(Some(Login::client_credentials(ClientCredentials::secret(id.clone(), secret.clone()))));
    }
    let store = FileStore::for_server(url)?;
    let mut builder = match person {
        Some(loopback) => Login::builder(loopback.redirect_uri(), loopback),
        // Nobody to ask and nothing kept: no login to try (a 401 says what to do).
        None if store.load().is_none() => return Ok(None),
        None => Login::builder("http://127.0.0.1/callback", NoPerson),
    };
    builder = builder.store(store).client_name("mcp-rounds");
    if let Some(url) = &options.client_metadata_url {
        builder = builder.client_metadata_url(url.clone());
    }
    if let Some(id) = &options.client_id {
        builder = builder.preregistered(None, id.clone(), options.client_secret.clone());
    }
    Ok(Some(builder.build()))
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
            eprintln!("{} open this page to log in:\n  {}", styled("Login:").bold(), styled(url).underlined());
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
/// else `~/.config`, under `mcp-rounds/`), one entry per server URL, mode 0600.
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
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    fn read(&self) -> BTreeMap<String, SavedLogin> {
        std::fs::read(&self.path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
    }

    fn write(&self, logins: &BTreeMap<String, SavedLogin>) {
        if let Err(error) = self.try_write(logins) {
            eprintln!("mcp-rounds: cannot keep the login in {}: {error}", self.path.display());
        }
    }

    fn try_write(&self, logins: &BTreeMap<String, SavedLogin>) -> std::io::Result<()> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let dir = self.path.parent().unwrap_or(std::path::Path::new("."));
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let temporary = self.path.with_extension("json.tmp");
        let mut file =
            std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&temporary)?;
        file.write_all(&serde_json::to_vec_pretty(logins).unwrap_or_default())?;
        file.sync_all()?;
        std::fs::rename(&temporary, &self.path)
    }

    /// Forgets this server's login; whether there was one.
    pub fn forget(&self) -> bool {
        let mut logins = self.read();
        let had = logins.remove(&self.url).is_some();
        if had {
            self.write(&logins);
        }
        had
    }
}

impl TokenStore for FileStore {
    fn load(&self) -> Option<SavedLogin> {
        self.read().remove(&self.url)
    }

    fn save(&self, login: &SavedLogin) {
        let mut logins = self.read();
        logins.insert(self.url.clone(), login.clone());
        self.write(&logins);
    }

    fn clear(&self) {
        self.forget();
    }
}
