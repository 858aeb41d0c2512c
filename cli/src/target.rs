//! The server to talk to: `--url` over Streamable HTTP, or the command after `--` as a child
//! process over stdio; connected with the command's handler and the chosen protocol.

use std::ffi::OsString;
use std::sync::Arc;

use mcp_rounds::client::oauth::Login;
use mcp_rounds::client::{ChildProcess, Client, Lifecycle, StreamableHttp, Traffic};

use crate::answering::Answering;
use crate::failure::{Failure, usage};
use crate::options::{ProtocolChoice, TargetOptions};
use crate::screen::{Screen, styled};
use crate::shown::shown;

/// Connects to the server the options name.
pub async fn connect(
    options: &TargetOptions,
    server: &[OsString],
    answering: Answering,
    login: Option<Login>,
    screen: &Arc<Screen>,
    verbose: bool,
) -> Result<Client, Failure> {
    let mut builder = Client::builder()
        .name("mcp-rounds", env!("CARGO_PKG_VERSION"))
        .capabilities(Answering::capabilities())
        .handler(answering);
    builder = match options.protocol {
        ProtocolChoice::Auto => builder,
        ProtocolChoice::Modern => builder.lifecycle(Lifecycle::Discover).protocol_version("2026-07-28"),
        ProtocolChoice::Legacy => builder.lifecycle(Lifecycle::Legacy).protocol_version("2025-11-25"),
    };
    if let Some(timeout) = options.timeout {
        builder = builder.request_timeout(timeout);
    }
    if let Some(timeout) = options.idle_timeout {
        builder = builder.idle_timeout(timeout);
    }
    builder = builder.max_message_size(options.max_message_size);
    if verbose {
        let screen = screen.clone();
        builder = builder.on_traffic(move |traffic| match traffic {
            Traffic::Sent(body) => screen.traffic(true, body),
            Traffic::Received(body) => screen.traffic(false, body),
            _ => {}
        });
    }
    let client = match (&options.url, server.split_first()) {
        (Some(_), Some(_)) => return Err(usage("give the server either as --url or as a command after --, not both")),
        (None, None) => {
            return Err(usage("which server? give --url URL, or its command after --, e.g. `-- notes-server --stdio`"));
        }
        (Some(url), None) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(usage(format!("--url `{url}` is not an http:// or https:// URL")));
            }
            let mut http = StreamableHttp::new(url.clone()).connect_timeout(options.connect_timeout);
            for (name, value) in &options.headers {
                http = http.header(name.clone(), value.expose());
            }
            if let Some(token) = &options.bearer {
                http = http.bearer(token.expose());
            } else if let Some(login) = login {
                http = http.login(login);
            }
            builder.connect(http).await?
        }
        (None, Some((program, args))) => {
            // A bearer token may come from the environment for other servers: only a header given
            // here, which stdio cannot send, is a mistake.
            if !options.headers.is_empty() {
                return Err(usage("--header is sent over HTTP only; this server runs over stdio"));
            }
            // The server's own log is shown as the rest of what it says: never obeyed.
            let log = screen.clone();
            let child = ChildProcess::new(program).args(args).stderr_lines(move |line| {
                log.note(&format!("{} {}", styled("server:").dim(), shown(line)));
            });
            builder.connect(child).await?
        }
    };
    Ok(client)
}
