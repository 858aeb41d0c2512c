//! Where the database is and how it is reached: a URL read with the TLS settings libpq users
//! know (`sslmode`, `sslrootcert`), and the one connector that every PostgreSQL connection of
//! the runtime goes through (the stores' pool and the change relay alike).

use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use percent_encoding::percent_decode_str;
use tokio_postgres::config::{Host, SslMode};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{describe, tls};
use crate::replay::StoreError;

/// Where a PostgreSQL database is, and how connections to it are secured.
///
/// Read from a `postgres://` URL. TLS is rustls's, with the server's certificate verified
/// (its chain up to a trusted root, and its host name: what libpq calls `sslmode=verify-full`;
/// tokio-postgres has no such mode, the verification is rustls's). The URL's `sslmode` says:
///
/// | `sslmode` | connections |
/// |---|---|
/// | `verify-full`, `verify-ca`, `require` | verified TLS, whichever of the three (stricter than libpq for the last two) |
/// | `disable` | plain TCP, on purpose |
/// | `allow`, `prefer` | refused: they fall back to plain TCP without saying so |
/// | absent | verified TLS, unless every host is this machine (`localhost`, a loopback address, a Unix socket): then plain |
///
/// The CA is `sslrootcert=PATH` (a PEM file of one or more certificates, which then are the only
/// roots trusted) or [`with_ca_file`](Self::with_ca_file); without one, or with
/// `sslrootcert=system`, the system's roots. Naming a CA asks for TLS even on this machine.
///
/// ```no_run
/// use mcp_rounds::replay::{PostgresReplayStore, PostgresSettings};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let settings = PostgresSettings::from_url(
///     "postgres://notes@db.internal/notes?sslmode=verify-full&sslrootcert=/etc/notes/db-ca.pem",
/// )?;
/// let store = PostgresReplayStore::connect_settings(&settings, 32).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PostgresSettings {
    /// The URL's settings, `sslmode` set to what tokio-postgres must do (require or disable);
    /// boxed, as it is large and the settings are kept beside smaller things.
    config: Box<tokio_postgres::Config>,
    tls: Tls,
    ca_file: Option<PathBuf>,
    connector: MakeRustlsConnect,
}

/// What the settings ask of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tls {
    /// TLS with the certificate verified.
    Verified,
    /// Plain, because the URL said `sslmode=disable`.
    Disabled,
    /// Plain, because the server is on this machine and nothing asked for TLS.
    Local,
}

impl fmt::Debug for PostgresSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the password.
        f.debug_struct("PostgresSettings")
            .field("hosts", &self.config.get_hosts())
            .field("ports", &self.config.get_ports())
            .field("dbname", &self.config.get_dbname())
            .field("user", &self.config.get_user())
            .field("tls", &self.tls)
            .field("ca_file", &self.ca_file)
            .finish_non_exhaustive()
    }
}

impl std::str::FromStr for PostgresSettings {
    type Err = StoreError;

    fn from_str(url: &str) -> Result<Self, StoreError> {
        PostgresSettings::from_url(url)
    }
}

fn invalid(problem: impl fmt::Display) -> StoreError {
    StoreError(format!("invalid PostgreSQL URL: {problem}"))
}

impl PostgresSettings {
    /// Reads `postgres://user:password@host:port/database?param=value&...` (or
    /// `postgresql://`). Fails on anything else (a `key=value` connection string included), on
    /// an `sslmode` that could fall back to plain TCP, and on a CA file that cannot be read.
    pub fn from_url(url: &str) -> Result<Self, StoreError> {
        let Some(split) = split_tls_params(url) else {
            return Err(invalid("it must start with postgres:// or postgresql://"));
        };
        let mut config: tokio_postgres::Config = split.rest.parse().map_err(|e| invalid(describe(&e)))?;
        let ca_file = match split.root_cert.as_deref() {
            None | Some("system") => None,
            Some(path) => Some(PathBuf::from(path)),
        };
        let tls = match split.mode.as_deref() {
            Some("disable") if split.root_cert.is_some() => {
                return Err(invalid("sslrootcert names a CA, but sslmode=disable turns TLS off"));
            }
            Some("disable") => Tls::Disabled,
            Some("require" | "verify-ca" | "verify-full") => Tls::Verified,
            Some(mode @ ("allow" | "prefer")) => {
                return Err(invalid(format!(
                    "sslmode={mode} falls back to plain TCP without saying so: use sslmode=verify-full \
                     (TLS, the server's certificate verified), or sslmode=disable for plain TCP on purpose"
                )));
            }
            Some(other) => {
                return Err(invalid(format!("sslmode={other} is none of disable, require, verify-ca, verify-full")));
            }
            None if split.root_cert.is_none() && is_this_machine(&config) => Tls::Local,
            None => Tls::Verified,
        };
        let connector = match tls {
            Tls::Verified => {
                refuse_unix_sockets(&config)?;
                config.ssl_mode(SslMode::Require);
                tls::verifying(ca_file.as_deref())?
            }
            Tls::Disabled | Tls::Local => {
                config.ssl_mode(SslMode::Disable);
                tls::never_used()
            }
        };
        Ok(PostgresSettings { config: Box::new(config), tls, ca_file, connector: MakeRustlsConnect::new(connector) })
    }

    /// The same settings trusting only the CA certificates in the PEM file at `path` (as
    /// `sslrootcert=PATH` does), over TLS even to this machine. Fails when the URL said
    /// `sslmode=disable`, or when the file cannot be read or holds no certificate.
    pub fn with_ca_file(mut self, path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        if self.tls == Tls::Disabled {
            return Err(StoreError(format!(
                "a CA file ({}) was given, but the URL's sslmode=disable turns TLS off",
                path.display()
            )));
        }
        refuse_unix_sockets(&self.config)?;
        self.connector = MakeRustlsConnect::new(tls::verifying(Some(path))?);
        self.config.ssl_mode(SslMode::Require);
        self.tls = Tls::Verified;
        self.ca_file = Some(path.to_path_buf());
        Ok(self)
    }

    /// Whether connections use TLS (then always with the server's certificate verified).
    pub fn uses_tls(&self) -> bool {
        self.tls == Tls::Verified
    }

    /// The connection settings, for a caller to add its own defaults to.
    pub(crate) fn config(&self) -> tokio_postgres::Config {
        (*self.config).clone()
    }

    /// The connector every connection goes through.
    pub(crate) fn connector(&self) -> MakeRustlsConnect {
        self.connector.clone()
    }
}

/// TLS over a Unix socket is not something PostgreSQL offers.
fn refuse_unix_sockets(config: &tokio_postgres::Config) -> Result<(), StoreError> {
    match config.get_hosts().iter().find(|host| !matches!(host, Host::Tcp(_))) {
        Some(Host::Unix(path)) => Err(invalid(format!(
            "TLS was asked for, but host {} is a Unix socket, over which PostgreSQL has no TLS; \
             name a TCP host, or say sslmode=disable",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Whether every host (and every `hostaddr`) is this machine: traffic that never leaves it.
fn is_this_machine(config: &tokio_postgres::Config) -> bool {
    let loopback = |host: &str| {
        host.eq_ignore_ascii_case("localhost")
            || host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    };
    config.get_hosts().iter().all(|host| match host {
        Host::Tcp(name) => loopback(name),
        _ => true,
    }) && config.get_hostaddrs().iter().all(IpAddr::is_loopback)
}

/// A URL with the parameters tokio-postgres does not know taken out.
#[derive(Debug, PartialEq)]
struct UrlParts {
    /// The URL without `sslmode` and `sslrootcert`.
    rest: String,
    /// `sslmode`, decoded.
    mode: Option<String>,
    /// `sslrootcert`, decoded.
    root_cert: Option<String>,
}

/// Takes `sslmode` and `sslrootcert` out of `url` (the last of each counts, as in libpq); `None`
/// unless it is a `postgres://` URL.
fn split_tls_params(url: &str) -> Option<UrlParts> {
    let scheme = ["postgres://", "postgresql://"].into_iter().find(|scheme| url.starts_with(scheme))?;
    let after_scheme = &url[scheme.len()..];
    // The query starts after the credentials, as tokio-postgres reads them: a password may hold
    // a `?` of its own.
    let host_start = after_scheme.find('@').map_or(0, |at| at + 1);
    let Some(query_start) = after_scheme[host_start..].find('?').map(|q| scheme.len() + host_start + q) else {
        return Some(UrlParts { rest: url.to_owned(), mode: None, root_cert: None });
    };
    let (mut mode, mut root_cert) = (None, None);
    let mut kept = Vec::new();
    for param in url[query_start + 1..].split('&').filter(|param| !param.is_empty()) {
        let (key, value) = param.split_once('=').unwrap_or((param, ""));
        let decoded = || percent_decode_str(value).decode_utf8_lossy().into_owned();
        match percent_decode_str(key).decode_utf8_lossy().as_ref() {
            "sslmode" => mode = Some(decoded()),
            "sslrootcert" => root_cert = Some(decoded()),
            _ => kept.push(param),
        }
    }
    let mut rest = url[..query_start].to_owned();
    if !kept.is_empty() {
        rest.push('?');
        rest.push_str(&kept.join("&"));
    }
    Some(UrlParts { rest, mode, root_cert })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls_of(url: &str) -> Result<Tls, String> {
        PostgresSettings::from_url(url).map(|settings| settings.tls).map_err(|e| e.to_string())
    }

    #[test]
    fn tls_is_verified_unless_plain_is_asked_for_or_the_server_is_this_machine() {
        let cases = [
            ("postgres://u@db.example/d", Tls::Verified),
            ("postgres://u@db.example/d?sslmode=require", Tls::Verified),
            ("postgres://u@db.example/d?sslmode=verify-ca", Tls::Verified),
            ("postgresql://u@db.example/d?sslmode=verify-full", Tls::Verified),
            ("postgres://u@db.example/d?sslmode=disable", Tls::Disabled),
            ("postgres://u@127.0.0.1:5433/d", Tls::Local),
            ("postgres://u@localhost/d", Tls::Local),
            ("postgres://u@[::1]:5433/d", Tls::Local),
            ("postgres://u@%2Fvar%2Frun%2Fpostgresql/d", Tls::Local),
            ("postgres://u@localhost/d?sslmode=verify-full", Tls::Verified),
            // Another machine behind a loopback name is not this machine.
            ("postgres://u@localhost/d?hostaddr=10.1.2.3", Tls::Verified),
            ("postgres://u@127.0.0.1,db.example/d", Tls::Verified),
        ];
        for (url, expected) in cases {
            assert_eq!(tls_of(url), Ok(expected), "{url}");
        }
    }

    #[test]
    fn what_could_fall_back_to_plain_or_contradicts_itself_is_refused_by_name() {
        let cases = [
            ("postgres://u@db.example/d?sslmode=prefer", "sslmode=prefer falls back to plain TCP"),
            ("postgres://u@db.example/d?sslmode=allow", "sslmode=allow falls back"),
            ("postgres://u@db.example/d?sslmode=sometimes", "sslmode=sometimes is none of"),
            ("postgres://u@db.example/d?sslmode=disable&sslrootcert=/ca.pem", "sslmode=disable turns TLS off"),
            ("postgres://u@%2Frun%2Fpg/d?sslmode=require", "is a Unix socket"),
            ("postgres://u@db.example/d?sslrootcert=/no/such/ca.pem", "cannot read the CA file /no/such/ca.pem"),
            ("host=db.example user=u", "must start with postgres://"),
            ("postgres://u@db.example/d?bogus=1", "unknown option"),
        ];
        for (url, expected) in cases {
            let err = tls_of(url).unwrap_err();
            assert!(err.contains(expected), "{url}: {err}");
            assert!(err.contains("PostgreSQL URL") || err.contains("CA file"), "{url}: {err}");
        }
    }

    #[test]
    fn only_the_tls_params_are_taken_out_and_a_password_may_hold_a_question_mark() {
        let split = split_tls_params("postgres://u:p?w@h:1/d?application_name=a&sslmode=verify-full&sslrootcert=%2Fetc%2Fca%20x.pem&connect_timeout=3").unwrap();
        assert_eq!(split.rest, "postgres://u:p?w@h:1/d?application_name=a&connect_timeout=3");
        assert_eq!(split.mode.as_deref(), Some("verify-full"));
        assert_eq!(split.root_cert.as_deref(), Some("/etc/ca x.pem"));
        let split = split_tls_params("postgres://h/d?sslmode=disable").unwrap();
        assert_eq!((split.rest.as_str(), split.mode.as_deref()), ("postgres://h/d", Some("disable")));
        assert_eq!(split_tls_params("postgres://h/d").unwrap().rest, "postgres://h/d");
    }

    #[test]
    fn the_password_never_shows_in_debug_output() {
        let settings = PostgresSettings::from_url("postgres://u:hunter2@127.0.0.1/d").unwrap();
        let shown = format!("{settings:?}");
        assert!(!shown.contains("hunter2") && shown.contains("127.0.0.1"), "{shown}");
    }
}
