//! The notes example server: `notes-server [--data DIR] [--listen HOST:PORT | --stdio] [--database URL]`.

mod app;
mod board;
mod config;
mod delete;
mod export;
mod faults;
mod resources;
mod scope;
mod seed;
mod store;
mod summarize;
mod tools;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Parser;
use mcp_rounds::changes::PostgresFanOut;
use mcp_rounds::replay::{PostgresReplayStore, PostgresSettings, ReplayStore, SqliteReplayStore};
use mcp_rounds::tasks::{PostgresTaskStore, SqliteTaskStore};
use mcp_rounds::transport::http::{BearerTokens, Http};
use mcp_rounds::transport::oauth::OAuth;
use mcp_rounds::transport::stdio::Stdio;
use mcp_rounds::{Principal, Server};
use tracing_subscriber::prelude::*;

/// A notes server for MCP clients, built with mcp-rounds.
#[derive(Debug, Parser)]
#[command(name = "notes-server", version, about)]
struct Args {
    /// Where everything the server keeps lives; created and seeded on first start.
    #[arg(long, value_name = "DIR", default_value = "./notes-data")]
    data: PathBuf,
    /// Serve Streamable HTTP on HOST:PORT, MCP endpoint at /mcp (the default, on 127.0.0.1:8787).
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "stdio")]
    listen: Option<String>,
    /// Serve newline-delimited JSON-RPC on stdin and stdout instead.
    #[arg(long)]
    stdio: bool,
    /// Where the replay store lives: postgres://user:password@host/db to share it between
    /// instances on many machines (TLS with the server's certificate verified, the CA by
    /// ?sslrootcert=PATH or the system's; plain only with ?sslmode=disable or on this machine),
    /// or an SQLite file (a path or sqlite://PATH; default DIR/state.sqlite3).
    #[arg(long, value_name = "URL")]
    database: Option<String>,
}

/// Where single-use states are claimed.
enum Database {
    Sqlite(PathBuf),
    Postgres(PostgresSettings),
}

fn database(args: &Args) -> Result<Database, String> {
    let Some(url) = &args.database else { return Ok(Database::Sqlite(args.data.join("state.sqlite3"))) };
    if let Some(path) = url.strip_prefix("sqlite://") {
        return Ok(Database::Sqlite(PathBuf::from(path)));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return PostgresSettings::from_url(url).map(Database::Postgres).map_err(|e| format!("--database: {e}"));
    }
    match url.split_once("://") {
        Some((scheme, _)) => Err(format!("--database: {scheme}:// is not a store this server can use")),
        None => Ok(Database::Sqlite(PathBuf::from(url))),
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("notes-server: {message}");
    ExitCode::from(2)
}

fn parse_args() -> Result<Args, ExitCode> {
    match Args::try_parse() {
        Ok(args) => Ok(args),
        Err(err) if !err.use_stderr() => {
            // --help and --version.
            let _ = err.print();
            Err(ExitCode::SUCCESS)
        }
        Err(err) => {
            let text = err.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ");
            Err(fail(format!("{first} (try --help)")))
        }
    }
}

fn hex_nonce(key: &str) -> Option<[u8; 16]> {
    let mut nonce = [0u8; 16];
    if key.len() != 32 {
        return None;
    }
    for (i, byte) in nonce.iter_mut().enumerate() {
        *byte = u8::from_str_radix(key.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(nonce)
}

/// Recent deletes whose confirmation was never recorded (a crash between the delete and the
/// claim) are recorded now, so that their states are refused from here on; writes a killed
/// process left unfinished are swept away.
async fn recover(config: &config::Config, store: &dyn ReplayStore) {
    use futures_util::stream::{self, StreamExt as _};
    let keep = app::trash_retention(config.state_ttl);
    for workspace in &config.workspaces {
        let swept = store::sweep_unfinished(workspace, std::time::Duration::from_secs(60));
        if swept > 0 {
            tracing::info!(swept, "removed writes a stopped process left unfinished");
        }
        // A state lives `state_ttl` from when it was made, before its delete: one deleted
        // longer ago (give or take the instances' clocks) can no longer come back.
        let recent = config.state_ttl + std::time::Duration::from_secs(5);
        let nonces = store::trashed_keys(workspace, keep, recent).into_iter().filter_map(|key| hex_nonce(&key));
        // Many at once: a busy server deletes thousands of notes within a state's lifetime, and
        // one after another they would hold up its start.
        stream::iter(nonces).for_each_concurrent(16, |nonce| record_delete(store, nonce, config.state_ttl)).await;
    }
}

/// Records the claim of a delete that finished (its note is in the trash, under its key),
/// unless it is recorded already.
async fn record_delete(store: &dyn ReplayStore, nonce: [u8; 16], ttl: std::time::Duration) {
    // Almost always recorded already: a read is cheaper than a claim.
    if store.is_claimed(nonce).await.unwrap_or(false) {
        return;
    }
    match store.begin(nonce, SystemTime::now() + ttl).await {
        Ok(Some(claim)) => {
            if let Err(e) = claim.commit().await {
                tracing::warn!(error = %e, "cannot record a finished delete");
            }
        }
        Ok(None) => {}
        Err(e) => tracing::warn!(error = %e, "cannot record a finished delete"),
    }
}

/// The OAuth resource server of the `[oauth]` table, with its keys fetched: reading needs
/// `notes:read`, so that is what a `401` asks for; a write asks for `notes:write` when it
/// needs it.
async fn oauth(config: &config::OAuthConfig) -> Result<OAuth, String> {
    let mut builder =
        OAuth::builder(&config.issuer).scopes_supported(&config.scopes_supported).challenge_scopes(["notes:read"]);
    if let Some(url) = &config.jwks_uri {
        builder = builder.jwks_uri(url);
    }
    if let Some(audience) = &config.audience {
        builder = builder.audience(audience);
    }
    builder.build().await.map_err(|e| format!("[oauth]: {e}"))
}

async fn serve(args: Args, config: config::Config, server: Server, oauth: Option<OAuth>) -> Result<(), String> {
    if args.stdio {
        let principal = config.stdio_principal.as_deref().map_or_else(Principal::anonymous, Principal::new);
        return Stdio::new().principal(principal).serve(&server).await.map_err(|e| format!("stdio: {e}"));
    }
    let address = args.listen.as_deref().unwrap_or("127.0.0.1:8787");
    let http =
        match oauth {
            Some(oauth) => Http::new(oauth),
            None => Http::new(config.tokens.iter().fold(BearerTokens::new(), |tokens, (token, principal)| {
                tokens.token(token.as_str(), principal.as_str())
            })),
        };
    let bound = http.bind(address).await.map_err(|e| format!("cannot listen on {address}: {e}"))?;
    eprintln!("listening on http://{}/mcp", bound.local_addr());
    bound.serve(&server, shutdown_signal()).await.map_err(|e| format!("http: {e}"))
}

async fn shutdown_signal() {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async { match terminate.as_mut() { Some(s) => { s.recv().await; } None => std::future::pending().await } } => {}
    }
}

/// The store the server claims states in (and keeps its tasks in).
enum Store {
    Sqlite(SqliteReplayStore, PathBuf),
    Postgres(PostgresReplayStore, PostgresSettings),
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(code) => return code,
    };
    // Everything that can be refused is checked before the data directory is touched.
    let database = match database(&args) {
        Ok(database) => database,
        Err(problem) => return fail(problem),
    };
    // Telemetry goes wherever OTEL_EXPORTER_OTLP_ENDPOINT says, if it says.
    let otel = match mcp_rounds::otel::init() {
        Ok(otel) => otel,
        Err(problem) => return fail(problem.to_string()),
    };
    let log_filter = tracing_subscriber::EnvFilter::try_from_env("NOTES_LOG").unwrap_or_else(|_| "warn".into());
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_filter(log_filter))
        .with(otel.as_ref().map(|otel| otel.layer()))
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => return fail(format!("cannot start the runtime: {err}")),
    };
    let postgres = match &database {
        Database::Postgres(settings) => match runtime.block_on(PostgresReplayStore::connect_settings(settings, 32)) {
            Ok(store) => Some((store, settings.clone())),
            Err(e) => return fail(format!("--database: {e}")),
        },
        Database::Sqlite(_) => None,
    };

    if let Err(err) = seed::ensure(&args.data) {
        return fail(format!("cannot prepare data directory {}: {err}", args.data.display()));
    }
    let config = match config::load(&args.data) {
        Ok(config) => config,
        Err(problem) => return fail(problem),
    };
    // Instances sharing PostgreSQL tell each other of changes there, sealed with the relay keys:
    // without them anyone who can connect to the database could announce changes.
    let relay_keys = match (&postgres, &config.relay_keys) {
        (Some(_), None) => return fail(config::MISSING_RELAY_KEYS),
        (_, keys) => keys.clone(),
    };
    // Only once the configuration is known good: a refused start adds nothing to the data.
    if let Err(err) = seed::ensure_skills(&args.data) {
        return fail(format!("cannot prepare {}: {err}", config.skills.display()));
    }
    let store = match (database, postgres) {
        (_, Some((store, settings))) => Store::Postgres(store, settings),
        (Database::Sqlite(path), None) => match SqliteReplayStore::open(&path) {
            Ok(store) => Store::Sqlite(store, path),
            Err(e) => return fail(format!("cannot open the replay store {}: {e}", path.display())),
        },
        (Database::Postgres(_), None) => unreachable!("connected above"),
    };
    let built = match store {
        Store::Sqlite(store, path) => {
            runtime.block_on(recover(&config, &store));
            // Tasks live in the same file, in a table of their own.
            let tasks = match SqliteTaskStore::open(&path) {
                Ok(tasks) => tasks,
                Err(e) => return fail(format!("cannot open the task store {}: {e}", path.display())),
            };
            app::server(&config, store, tasks).map(|server| (server, None))
        }
        Store::Postgres(store, settings) => {
            runtime.block_on(recover(&config, &store));
            let tasks = PostgresTaskStore::sharing(&store);
            app::server(&config, store, tasks).map(|server| (server, Some(settings)))
        }
    };
    let (server, relay_settings) = match built {
        Ok(built) => built,
        Err(problem) => return fail(problem),
    };
    let _watch = match config.watch_files {
        false => None,
        true => match watch::start(&config.workspaces, server.changes()) {
            Ok(watch) => Some(watch),
            Err(e) => {
                tracing::warn!(error = %e, "cannot watch the workspaces; changes made outside this server go unannounced");
                None
            }
        },
    };
    // The other instances learn here of the changes announced in this one.
    let _relay = match (relay_settings, relay_keys) {
        (Some(settings), Some(keys)) if !faults::broken("no-relay") => {
            match runtime.block_on(PostgresFanOut::builder(server.changes(), keys).start_with(&settings)) {
                Ok(relay) => Some(relay),
                Err(e) => return fail(format!("--database: {e}")),
            }
        }
        _ => None,
    };
    // Over HTTP with [oauth], the authorization server's keys are fetched before anything is
    // served: a server that cannot check tokens does not start.
    let oauth = match (&config.oauth, args.stdio) {
        (Some(oauth_config), false) => match runtime.block_on(oauth(oauth_config)) {
            Ok(oauth) => Some(oauth),
            Err(problem) => return fail(problem),
        },
        _ => None,
    };
    let served = runtime.block_on(serve(args, config, server, oauth));
    // Requests are over (stdin closed, Ctrl-C or SIGTERM): what telemetry holds goes out now.
    if let Some(otel) = otel {
        otel.shutdown();
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("notes-server: {problem}");
            ExitCode::FAILURE
        }
    }
}
