//! A hostile MCP server, written by hand, for tests of a client's defences: it speaks just
//! enough of the protocol to be connected to, then misbehaves, one way per scenario. See
//! `mcp_rounds_tests::hostile` for the harness and the scenarios' paths.
//!
//! `hostile-server --listen 127.0.0.1:0 [--name-issuer URL]` serves every scenario over
//! Streamable HTTP at `http://HOST:PORT/<scenario>/mcp`, and a second origin on another port.
//! `hostile-server --stdio SCENARIO[?QUERY]` serves one scenario on stdin and stdout.
//!
//! `--listen` takes a loopback address only, unless `--listen-in-namespace` is given too: that
//! flag is for tests that run the server inside a network namespace of their own (`ip netns`),
//! with no route out, to stand for a server that is not on the client's machine. Never use it
//! where the address can be reached from another machine. There, `--tls-cert PEM --tls-key PEM`
//! put TLS in front of both origins (their URLs become `https://`), for a client that goes to
//! nothing but https off its own machine; the routes themselves are then also served plain on
//! the namespace's loopback (`plain main on …`, `plain elsewhere on …`), for the test to read
//! `/_record` without TLS.

mod auth;
mod body;
mod escapes;
mod http;
mod legacy;
mod record;
mod rounds;
mod stdio;
mod streams;
mod wire;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use axum::Router;

use crate::http::App;
use crate::record::Record;

const USAGE: &str = "usage: hostile-server --listen 127.0.0.1:0 [--listen-in-namespace [--tls-cert PEM --tls-key PEM]] \
                     [--name-issuer URL] | --stdio SCENARIO[?QUERY]";

fn main() -> ExitCode {
    let mut listen = None;
    let mut issuer = None;
    let mut stdio = None;
    let (mut cert, mut key) = (None, None);
    let mut in_namespace = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--listen-in-namespace" => {
                in_namespace = true;
                continue;
            }
            "--listen" => &mut listen,
            "--name-issuer" => &mut issuer,
            "--stdio" => &mut stdio,
            "--tls-cert" => &mut cert,
            "--tls-key" => &mut key,
            _ => {
                eprintln!("hostile-server: unknown argument {arg:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        let Some(value) = args.next() else {
            eprintln!("hostile-server: {arg} needs a value\n{USAGE}");
            return ExitCode::from(2);
        };
        *slot = Some(value);
    }
    if let Some(scenario) = stdio {
        return stdio::run(&scenario);
    }
    let Some(listen) = listen else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let address = match listen.parse::<SocketAddr>() {
        // Hostile by design: never reachable from anywhere but this machine, or, for a test
        // that made a network namespace without a route out, from anywhere but that namespace.
        Ok(address) if address.ip().is_loopback() || in_namespace => address,
        _ => {
            eprintln!(
                "hostile-server: --listen takes a loopback address and port (any address only with \
                 --listen-in-namespace, inside a network namespace of a test), not {listen:?}"
            );
            return ExitCode::from(2);
        }
    };
    let tls = match (cert, key) {
        (None, None) => None,
        (Some(cert), Some(key)) if in_namespace => match tls::config(&cert, &key) {
            Ok(config) => Some(config),
            Err(e) => {
                eprintln!("hostile-server: cannot use {cert} and {key} for TLS: {e}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("hostile-server: --tls-cert and --tls-key go together, with --listen-in-namespace\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("hostile-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(address, issuer, tls)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hostile-server: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(address: SocketAddr, issuer: Option<String>, tls: Option<tls::Config>) -> std::io::Result<()> {
    // With TLS, the routes listen on the namespace's loopback, and TLS on `address` in front.
    let plain = if tls.is_some() { SocketAddr::from(([127, 0, 0, 1], 0)) } else { address };
    let main = tokio::net::TcpListener::bind(plain).await?;
    let other = tokio::net::TcpListener::bind(SocketAddr::new(plain.ip(), 0)).await?;
    let (mut main_address, mut other_address) = (main.local_addr()?, other.local_addr()?);
    let mut scheme = "http";
    if let Some(config) = tls {
        eprintln!("plain main on http://{main_address}");
        eprintln!("plain elsewhere on http://{other_address}");
        main_address = tls::front(address, main_address, config.clone())?;
        other_address = tls::front(SocketAddr::new(address.ip(), 0), other_address, config)?;
        scheme = "https";
    }
    let elsewhere = format!("{scheme}://{other_address}");
    let app = Arc::new(App {
        record: Arc::new(Record::default()),
        main: format!("{scheme}://{main_address}"),
        issuer: issuer.unwrap_or_else(|| format!("{elsewhere}/as")),
        elsewhere,
    });
    let main_routes = Router::new().fallback(http::main_origin).with_state(app.clone());
    let other_routes = Router::new().fallback(http::elsewhere_origin).with_state(app);
    // The other origin first: a reader that stops at the main line has seen both.
    eprintln!("elsewhere on {scheme}://{other_address}");
    eprintln!("listening on {scheme}://{main_address}/mcp");
    let other = tokio::spawn(async move { axum::serve(other, other_routes).await });
    axum::serve(main, main_routes).await?;
    other.await.map_err(std::io::Error::other)?
}

/// TLS in front of a plain listener, for a server in a test's network namespace: each
/// connection relayed by a thread of its own, its bytes decrypted to the plain listener and
/// encrypted back.
mod tls {
    use std::io::{ErrorKind, Read, Write};
    use std::net::{SocketAddr, TcpListener, TcpStream};
    use std::sync::Arc;
    use std::time::Duration;

    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use rustls::{ServerConfig, ServerConnection, StreamOwned};

    pub type Config = Arc<ServerConfig>;

    /// The certificate chain and key of PEM files `cert` and `key`.
    pub fn config(cert: &str, key: &str) -> Result<Config, String> {
        let chain = CertificateDer::pem_file_iter(cert).map_err(|e| e.to_string())?;
        let chain = chain.collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?;
        let key = PrivateKeyDer::from_pem_file(key).map_err(|e| e.to_string())?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| e.to_string())?;
        Ok(Arc::new(config))
    }

    /// Listens on `address` with TLS, relaying to `plain`; returns where it listens.
    pub fn front(address: SocketAddr, plain: SocketAddr, config: Config) -> std::io::Result<SocketAddr> {
        let listener = TcpListener::bind(address)?;
        let bound = listener.local_addr()?;
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let config = config.clone();
                std::thread::spawn(move || relay(client, plain, config));
            }
        });
        Ok(bound)
    }

    /// Relays one connection until either side ends it.
    fn relay(client: TcpStream, plain: SocketAddr, config: Config) -> std::io::Result<()> {
        let mut backend = TcpStream::connect(plain)?;
        // Each side is read in turn, a few milliseconds at a time.
        let turn = Some(Duration::from_millis(5));
        client.set_read_timeout(turn)?;
        backend.set_read_timeout(turn)?;
        let mut tls = StreamOwned::new(ServerConnection::new(config).map_err(std::io::Error::other)?, client);
        let mut buffer = vec![0; 64 * 1024];
        let waiting = |e: &std::io::Error| matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
        loop {
            match tls.read(&mut buffer) {
                Ok(0) => return Ok(()),
                Ok(n) => backend.write_all(&buffer[..n])?,
                Err(e) if waiting(&e) => {}
                Err(e) => return Err(e),
            }
            match backend.read(&mut buffer) {
                Ok(0) => {
                    tls.conn.send_close_notify();
                    return tls.flush();
                }
                Ok(n) => {
                    tls.write_all(&buffer[..n])?;
                    tls.flush()?;
                }
                Err(e) if waiting(&e) => {}
                Err(e) => return Err(e),
            }
        }
    }
}
