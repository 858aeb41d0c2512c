//! The benchmark server written with mcp-rounds: `echo` and the two-round `confirm_echo`,
//! over stdio (`--stdio`) or Streamable HTTP (`--listen HOST:PORT`, endpoint `/mcp`).

use clap::Parser;
use mcp_rounds::form::FormRequest;
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{Elicitation, Round, Step};
use mcp_rounds::transport::http::Http;
use mcp_rounds::transport::stdio::Stdio;
use mcp_rounds::{Form, Rounds, Server, handlers, tool};

/// Echoes the text back.
#[tool(read_only)]
fn echo(
    /// What to echo.
    text: String,
) -> String {
    text
}

#[derive(Form)]
struct Confirm {
    /// Echo it?
    confirm: bool,
}

#[derive(Rounds)]
enum ConfirmRound {
    Ask {
        #[answer]
        confirm: Elicitation<Confirm>,
    },
}

/// Echoes the text back once the user confirms.
#[tool(read_only)]
fn confirm_echo(
    /// What to echo.
    text: String,
    round: Round<ConfirmRound>,
) -> Step<ConfirmRound, String> {
    match round {
        Round::Start => ConfirmRound::ask_ask(FormRequest::new("Echo it?")).into(),
        Round::Resumed(ConfirmRound::Ask { confirm: Elicitation::Accept(Confirm { confirm: true }) }) => {
            Step::Done(text)
        }
        Round::Resumed(_) => Step::Done("not confirmed".into()),
    }
}

#[derive(Parser)]
struct Args {
    /// Serve stdin and stdout.
    #[arg(long)]
    stdio: bool,
    /// Serve Streamable HTTP here.
    #[arg(long)]
    listen: Option<String>,
}

#[cfg(feature = "otel")]
fn main() -> std::io::Result<()> {
    // Exported only when OTEL_EXPORTER_OTLP_ENDPOINT says where (the bench's "+ OTLP" rows).
    let otel = mcp_rounds::otel::init().expect("a usable OTEL_* configuration");
    if let Some(otel) = &otel {
        use tracing_subscriber::prelude::*;
        tracing_subscriber::registry().with(otel.layer()).init();
    }
    let served = tokio::runtime::Runtime::new()?.block_on(serve(Args::parse()));
    if let Some(otel) = otel {
        otel.shutdown();
    }
    served
}

#[cfg(not(feature = "otel"))]
fn main() -> std::io::Result<()> {
    tokio::runtime::Runtime::new()?.block_on(serve(Args::parse()))
}

async fn serve(args: Args) -> std::io::Result<()> {
    let keys = KeyRing::new([StateKey::new("bench", &[7u8; 32]).expect("a valid key")]).expect("one key");
    let server = Server::builder("bench-rounds", "1.0.0")
        .state_keys(keys)
        .handlers(handlers![echo, confirm_echo])
        .build()
        .expect("valid handlers");
    match args.listen {
        Some(address) if !args.stdio => {
            let bound = Http::without_authentication().bind(address).await?;
            eprintln!("listening on http://{}/mcp", bound.local_addr());
            bound
                .serve(&server, async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
        }
        _ => Stdio::new().serve(&server).await,
    }
}
