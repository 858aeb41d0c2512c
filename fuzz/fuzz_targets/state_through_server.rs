//! A two-round tool call resumed with its `requestState` changed: every changed state is
//! refused with the very same error (-32602, one message, naming only the field), whatever was changed, so
//! that a refusal tells a client nothing about why; the state itself works once and only once.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_rounds::model::ClientCapabilities;
use mcp_rounds::testing::TestClient;
use mcp_rounds_fuzz::{runtime, server};
use serde_json::{Value, json};

fn client() -> TestClient {
    let capabilities: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
    TestClient::new(server()).with_capabilities(capabilities)
}

async fn first_round(client: &TestClient) -> String {
    let asked = client.request_raw("tools/call", json!({"name": "confirm_echo", "arguments": {"text": "hi"}})).await;
    asked["result"]["requestState"].as_str().expect("the first round asks").to_owned()
}

async fn resume(client: &TestClient, state: &str) -> Value {
    client
        .request_raw(
            "tools/call",
            json!({
                "name": "confirm_echo",
                "arguments": {"text": "hi"},
                "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
                "requestState": state,
            }),
        )
        .await
}

/// The refusal of a state presented twice: every other refusal must be this one.
fn refusal() -> &'static Value {
    static REFUSAL: OnceLock<Value> = OnceLock::new();
    REFUSAL.get_or_init(|| {
        runtime().block_on(async {
            let client = client();
            let state = first_round(&client).await;
            assert_eq!(resume(&client, &state).await["result"]["content"][0]["text"], "hi");
            let replayed = resume(&client, &state).await;
            assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
            assert_eq!(
                replayed["error"]["data"],
                json!({"field": "requestState"}),
                "a refusal says no more: {replayed}"
            );
            replayed["error"].clone()
        })
    })
}

fuzz_target!(|input: (Vec<(u16, u8)>, Option<String>)| {
    let refusal = refusal();
    let (edits, replacement) = input;
    runtime().block_on(async {
        let client = client();
        let state = first_round(&client).await;
        let changed = match replacement {
            Some(text) => text,
            None => {
                let mut bytes = state.clone().into_bytes();
                for (at, byte) in edits {
                    if !bytes.is_empty() {
                        let i = usize::from(at) % bytes.len();
                        bytes[i] = byte;
                    }
                }
                String::from_utf8_lossy(&bytes).into_owned()
            }
        };
        let answer = resume(&client, &changed).await;
        if changed == state {
            assert_eq!(answer["result"]["content"][0]["text"], "hi", "{answer}");
        } else {
            assert_eq!(&answer["error"], refusal, "a changed state {changed:?}");
        }
    });
});
