//! A replay store that cannot be reached (a database restarting): the confirming round is
//! refused with -31503 and when to try again, nothing happens, and the same state confirms once
//! the store is back.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_rounds::form::FormRequest;
use mcp_rounds::model::{ClientCapabilities, Outcome};
use mcp_rounds::replay::MemoryReplayStore;
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{Elicitation, Round, Step};
use mcp_rounds::testing::TestClient;
use mcp_rounds::{ErrorCode, Form, Principal, Rounds, Server, State, handlers, tool};
use serde_json::json;

mod faulty;

use faulty::Faulty;

#[derive(Form)]
struct Confirm {
    /// Really?
    sure: bool,
}

#[derive(Rounds)]
enum Ask {
    Confirm {
        #[answer]
        answer: Elicitation<Confirm>,
    },
}

/// How many times the effect happened.
#[derive(Clone, Default)]
struct Effects(Arc<AtomicUsize>);

/// Does something once the user confirms.
#[tool(destructive)]
fn wipe(round: Round<Ask>, State(effects): State<Effects>) -> Step<Ask, String> {
    match round {
        Round::Start => Ask::ask_confirm(FormRequest::new("Wipe it?")).into(),
        Round::Resumed(Ask::Confirm { answer: Elicitation::Accept(Confirm { sure: true }) }) => {
            effects.0.fetch_add(1, Ordering::SeqCst);
            Step::Done("wiped".into())
        }
        Round::Resumed(_) => Step::Done("kept".into()),
    }
}

#[tokio::test]
async fn a_store_that_is_down_refuses_with_when_to_retry_and_the_state_still_confirms_later() {
    // Down at `begin`, where the claim starts: the store cannot be reached at all.
    let store = Faulty::new(MemoryReplayStore::default());
    let effects = Effects::default();
    let server = Server::builder("store-down", "1.0.0")
        .state(effects.clone())
        .state_keys(KeyRing::new([StateKey::new("k", &[7u8; 32]).unwrap()]).unwrap())
        .replay_store(store.clone())
        .handlers(handlers![wipe])
        .build()
        .unwrap();
    let capabilities: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
    let client = TestClient::new(&server).as_principal(Principal::new("demo")).with_capabilities(capabilities);
    let Outcome::InputRequired(asked) = client.call_tool_outcome("wipe", json!({})).await.unwrap() else {
        panic!("the first call asks");
    };
    let state = asked.request_state.unwrap();
    let yes = json!({"answer": {"action": "accept", "content": {"sure": true}}});

    store.at_begin.store(true, Ordering::SeqCst);
    let refused = client.call_tool_resume("wipe", json!({}), yes.clone(), &state).await.unwrap_err();
    assert_eq!(refused.code, i64::from(ErrorCode::Unavailable.code()));
    assert_eq!(refused.code, -31503);
    assert_eq!(refused.message, "Temporarily unavailable: try again in 1000 ms");
    assert_eq!(refused.data, Some(json!({"retryAfterMs": 1000})));
    assert_eq!(effects.0.load(Ordering::SeqCst), 0, "nothing happens while the store is down");

    store.at_begin.store(false, Ordering::SeqCst);
    let done = client.call_tool_resume("wipe", json!({}), yes.clone(), &state).await.unwrap();
    assert!(matches!(done, Outcome::Complete(ref r) if r.content[0].as_text() == Some("wiped")), "{done:?}");
    let again = client.call_tool_resume("wipe", json!({}), yes, &state).await.unwrap_err();
    assert_eq!(again.code, -32602, "and then it is used up");
    assert_eq!(effects.0.load(Ordering::SeqCst), 1);
}
