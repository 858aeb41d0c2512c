//! The ceiling no MCP framework can beat on the same transports: over stdio, a loop that only
//! parses each line as JSON and writes a fixed result for its id; over HTTP, a bare axum
//! handler that returns a fixed JSON body, or (`--parse-body`) one that reads and parses the
//! body and answers with its id, the work no server that reads requests can skip.

use std::io::{BufRead, Write};

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::post;
use clap::Parser;
use serde_json::Value;

const RESULT: &str = r#"{"resultType":"complete","content":[{"type":"text","text":"hi"}]}"#;

static PARSED_RESULT: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| serde_json::from_str(RESULT).expect("valid JSON"));

#[derive(Parser)]
struct Args {
    #[arg(long)]
    stdio: bool,
    #[arg(long)]
    listen: Option<String>,
    /// Over HTTP, read and parse each body and answer with its id.
    #[arg(long)]
    parse_body: bool,
}

fn stdio() -> std::io::Result<()> {
    let mut stdin = std::io::BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let result: Value = serde_json::from_str(RESULT).expect("valid JSON");
    let mut line = String::new();
    loop {
        line.clear();
        if stdin.read_line(&mut line)? == 0 {
            return Ok(());
        }
        // The same work a framework cannot avoid: parse the message, write a message back.
        let Ok(request) = serde_json::from_str::<Value>(&line) else { continue };
        let response = serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        serde_json::to_writer(&mut stdout, &response)?;
        stdout.write_all(b"\n")?;
        // Flush only when no more input is waiting: the best any server can do.
        if !stdin.buffer().contains(&b'\n') {
            stdout.flush()?;
        }
    }
}

async fn answer() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}]}}"#,
    )
}

async fn parse_and_answer(body: axum::body::Bytes) -> axum::response::Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return axum::http::StatusCode::BAD_REQUEST.into_response();
    };
    let response = serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": *PARSED_RESULT});
    ([(header::CONTENT_TYPE, "application/json")], serde_json::to_vec(&response).expect("serializable")).into_response()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    match args.listen {
        Some(address) if !args.stdio => {
            let listener = tokio::net::TcpListener::bind(address).await?;
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            let router = if args.parse_body {
                Router::new().route("/mcp", post(parse_and_answer))
            } else {
                Router::new().route("/mcp", post(answer))
            };
            // Ends on Ctrl-C (SIGINT) as the other servers do, also when started in the
            // background, where SIGINT's default action is to be ignored.
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
        }
        _ => tokio::task::spawn_blocking(stdio).await.expect("the loop does not panic"),
    }
}
