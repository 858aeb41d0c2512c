//! `conformance-server [--listen HOST:PORT]`: the fixtures the official MCP conformance suite
//! calls (tools, prompts, resources and their multi-round variants), written as any user of
//! mcp-rounds would write them, and the Agent Skills of the skills extension's scenarios.

mod fixtures;

use std::process::ExitCode;

use clap::Parser;
use mcp_rounds::Server;
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::transport::http::Http;

/// Serves the MCP conformance fixtures over Streamable HTTP at /mcp.
#[derive(Debug, Parser)]
#[command(name = "conformance-server", version, about)]
struct Args {
    /// Where to listen; port 0 picks a free one.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:0")]
    listen: String,
    /// The Agent Skills served through the skills extension.
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))]
    skills: std::path::PathBuf,
}

fn server(skills: &std::path::Path) -> Server {
    // A fresh key per process: states from an earlier run are refused, which is what a
    // conformance run wants.
    let key = StateKey::from_base64("conformance", &StateKey::generate_secret()).expect("a generated key is valid");
    Server::builder("mcp-rounds-conformance", env!("CARGO_PKG_VERSION"))
        .state_keys(KeyRing::new([key]).expect("one key"))
        .handlers(fixtures::all())
        .skills_dir(skills)
        .build()
        .expect("the fixtures are valid")
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CONFORMANCE_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let server = server(&args.skills);
    // The suite runs on this machine and sends no credentials.
    let bound = match Http::without_authentication().bind(&args.listen).await {
        Ok(bound) => bound,
        Err(e) => {
            eprintln!("conformance-server: cannot listen on {}: {e}", args.listen);
            return ExitCode::from(2);
        }
    };
    eprintln!("listening on http://{}/mcp", bound.local_addr());
    let stopped = bound
        .serve(&server, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await;
    match stopped {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            ExitCode::FAILURE
        }
    }
}
