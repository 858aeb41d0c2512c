//! In-process costs of serving a request, without any transport: decoding the envelope and
//! dispatching a `tools/call`, listing the tool descriptors, a complete two-round exchange
//! (asking a form, then verifying the state and the answer), and validating a form answer.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_rounds::form::FormRequest;
use mcp_rounds::jsonrpc::{Incoming, decode};
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{Elicitation, Round, Step};
use mcp_rounds::{Form, Principal, Rounds, Server, handlers, tool};
use serde_json::{Value, json};

/// Echoes the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
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
fn confirm_echo(text: String, round: Round<ConfirmRound>) -> Step<ConfirmRound, String> {
    match round {
        Round::Start => ConfirmRound::ask_ask(FormRequest::new("Echo it?")).into(),
        Round::Resumed(ConfirmRound::Ask { confirm: Elicitation::Accept(Confirm { confirm: true }) }) => {
            Step::Done(text)
        }
        Round::Resumed(_) => Step::Done("not confirmed".into()),
    }
}

fn server() -> Server {
    let keys = KeyRing::new([StateKey::new("bench", &[7u8; 32]).unwrap()]).unwrap();
    Server::builder("bench", "1.0.0").state_keys(keys).handlers(handlers![echo, confirm_echo]).build().unwrap()
}

fn message(id: u64, params: Value, method: &str) -> Vec<u8> {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    });
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap()
}

/// Decodes `bytes` and answers it, all in process.
fn answer(runtime: &tokio::runtime::Runtime, server: &Server, bytes: &[u8]) -> Vec<u8> {
    let Incoming::Request(request) = decode(bytes) else { panic!("a request") };
    runtime.block_on(server.handle(request, Principal::anonymous())).bytes
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let server = server();

    let call = message(1, json!({"name": "echo", "arguments": {"text": "hi"}}), "tools/call");
    c.bench_function("dispatch/tools_call_echo", |b| b.iter(|| answer(&runtime, &server, black_box(&call))));

    let list = message(2, json!({}), "tools/list");
    c.bench_function("dispatch/tools_list", |b| b.iter(|| answer(&runtime, &server, black_box(&list))));

    let first = message(3, json!({"name": "confirm_echo", "arguments": {"text": "hi"}}), "tools/call");
    c.bench_function("rounds/first_round", |b| b.iter(|| answer(&runtime, &server, black_box(&first))));
    let asked: Value = serde_json::from_slice(&answer(&runtime, &server, &first)).unwrap();
    let state = asked["result"]["requestState"].as_str().unwrap();
    let retry = message(
        4,
        json!({
            "name": "confirm_echo", "arguments": {"text": "hi"},
            "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
            "requestState": state,
        }),
        "tools/call",
    );
    let done: Value = serde_json::from_slice(&answer(&runtime, &server, &retry)).unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "hi");
    c.bench_function("rounds/retry_with_answer", |b| b.iter(|| answer(&runtime, &server, black_box(&retry))));

    let schema = mcp_rounds::form::FormRequest::<Confirm>::new("Echo it?").into_input_request().unwrap();
    let mcp_rounds::model::InputRequest::Elicit { params: mcp_rounds::model::ElicitRequestParams::Form(form) } = schema
    else {
        panic!("a form")
    };
    let content = json!({"confirm": true});
    let content = content.as_object().unwrap().clone();
    c.bench_function("form/validate", |b| {
        b.iter(|| mcp_rounds::form::validate(black_box(&content), black_box(&form.requested_schema)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
