//! The notes example server: `notes-server [--data DIR] [--listen HOST:PORT | --stdio] [--database URL]`.

mod notes;
mod seed;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use mcp_rounds::transport::stdio::Stdio;

/// A notes server for MCP clients, built with mcp-rounds.
#[derive(Debug, Parser)]
#[command(name = "notes-server", version, about)]
struct Args {
    /// Where everything the server keeps lives; created and seeded on first start.
    #[arg(long, value_name = "DIR", default_value = "./notes-data")]
    data: PathBuf,
    /// Serve Streamable HTTP on HOST:PORT (MCP endpoint at /mcp).
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "stdio")]
    listen: Option<String>,
    /// Serve newline-delimited JSON-RPC on stdin and stdout.
    #[arg(long)]
    stdio: bool,
    /// Where the replay store lives (default: DIR/state.sqlite3).
    #[arg(long, value_name = "URL")]
    database: Option<String>,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("notes-server: {message}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(err) if !err.use_stderr() => {
            // --help and --version.
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            let text = err.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ");
            return fail(format!("{first} (try --help)"));
        }
    };
    if !args.stdio {
        let address = args.listen.as_deref().unwrap_or("127.0.0.1:8787");
        return fail(format!("Streamable HTTP (--listen {address}) is not available in this build yet; use --stdio"));
    }
    if let Some(url) = &args.database {
        return fail(format!("--database {url}: only the embedded default store is available in this build"));
    }

    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("NOTES_LOG").unwrap_or_else(|_| "info".into()))
        .init();

    if let Err(err) = seed::ensure(&args.data) {
        return fail(format!("cannot prepare data directory {}: {err}", args.data.display()));
    }
    let server = match notes::server(&args.data) {
        Ok(server) => server,
        Err(err) => return fail(err),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => return fail(format!("cannot start the runtime: {err}")),
    };
    match runtime.block_on(Stdio::new().serve(&server)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!(error = %err, "stdio transport failed");
            ExitCode::FAILURE
        }
    }
}
