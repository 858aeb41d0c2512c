//! A stdio client that closes its input while the server waits on it: every request is still
//! answered, and serving ends. Found by fuzzing: a legacy session's round waiting for the
//! client's elicitation answer held the server at end of input forever.

use mcp_rounds::form::FormRequest;
use mcp_rounds::rounds::{Elicitation, Round, Step};
use mcp_rounds::transport::stdio::Stdio;
use mcp_rounds::{Form, Rounds, Server, handlers, tool};
use serde_json::{Value, json};

#[derive(Form)]
struct Confirm {
    /// Go on?
    confirm: bool,
}

#[derive(Rounds)]
enum Ask {
    Confirm {
        #[answer]
        answer: Elicitation<Confirm>,
    },
}

/// Asks before it answers.
#[tool]
fn careful(round: Round<Ask>) -> Step<Ask, String> {
    match round {
        Round::Start => Ask::ask_confirm(FormRequest::new("Go on?")).into(),
        Round::Resumed(Ask::Confirm { answer: Elicitation::Accept(Confirm { confirm }) }) => {
            Step::Done(format!("confirmed: {confirm}"))
        }
        Round::Resumed(_) => Step::Done("not confirmed".into()),
    }
}

#[tokio::test]
async fn a_legacy_round_waiting_on_the_client_ends_with_an_error_when_input_ends() {
    let server = Server::builder("eoi", "1.0.0")
        .handlers(handlers![careful])
        .state_keys(mcp_rounds::request_state::KeyRing::development())
        .build()
        .unwrap();
    let input = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "old", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "careful", "arguments": {}}}),
    ]
    .iter()
    .map(|m| format!("{m}\n"))
    .collect::<String>();
    let (writer, mut output) = tokio::io::duplex(1 << 20);
    // Bounded only so that a regression fails instead of hanging the suite.
    tokio::time::timeout(
        std::time::Duration::from_secs(60),
        Stdio::new().serve_streams(&server, input.as_bytes(), writer),
    )
    .await
    .expect("serving ends when input ends")
    .unwrap();
    let mut written = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut output, &mut written).await.unwrap();
    let messages: Vec<Value> = written.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let answer = messages.iter().find(|m| m["id"] == 1).expect("the call is answered");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer["error"]["message"], "The client's input ended before it answered elicitation/create");
}
