//! `mcp-rounds`: calls any MCP server from a terminal, answers its forms there, and writes new
//! servers. A thin user of the `mcp-rounds` client: parsing, prompts, rendering, exit codes.

use std::process::ExitCode;

use clap::Parser;

mod answering;
mod arguments;
mod commands;
mod failure;
mod login;
mod options;
mod prompt;
mod render;
mod roots;
mod sampling;
mod scaffold;
mod screen;
mod shown;
mod target;

fn main() -> ExitCode {
    let (args, server) = options::split_server(std::env::args_os());
    let cli = options::Cli::parse_from(args);
    // The client's own diagnostics, as RUST_LOG asks (warnings by default).
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-rounds: cannot start: {e}");
            return failure::exit(failure::TRANSPORT);
        }
    };
    // `listen` ends on Ctrl-C by itself, with success; anything else interrupted stops where
    // it is, with the cursor a prompt may have hidden shown again.
    let listens = matches!(cli.command, options::Command::Listen(_));
    let outcome = runtime.block_on(async move {
        if listens {
            return commands::run(cli, server).await;
        }
        tokio::select! {
            outcome = commands::run(cli, server) => outcome,
            _ = tokio::signal::ctrl_c() => Err(failure::Failure::Interrupted),
        }
    });
    if matches!(outcome, Err(failure::Failure::Interrupted)) {
        let _ = console::Term::stderr().show_cursor();
    }
    // A child server still shutting down, or a prompt's thread, must not hold the exit.
    runtime.shutdown_background();
    match outcome {
        Ok(()) => failure::exit(failure::SUCCESS),
        Err(failure) => {
            if !failure.shown() {
                // A failure quotes the server (its error messages, its URLs): shown, not obeyed.
                eprintln!("{} {}", screen::styled("mcp-rounds:").red().bold(), shown::shown(&failure.to_string()));
            }
            failure::exit(failure.exit_code())
        }
    }
}
