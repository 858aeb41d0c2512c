//! The test client answering rounds by itself: registered answers, the capabilities they
//! declare, the round cap, and requests it has no answer for.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_rounds::form::FormRequest;
use mcp_rounds::model::{ClientCapabilities, ElicitRequestParams, GetPromptResult, Outcome, Root, SamplingContent};
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{
    Elicitation, Roots, RootsRequest, Round, Sampled, SamplingRequest, Step, UrlElicitation, UrlRequest,
};
use mcp_rounds::testing::{MAX_ROUNDS, TestClient, accept, cancel, decline, model_reply};
use mcp_rounds::{Error, Form, Rounds, Server, handlers, prompt, tool};
use serde_json::{Value, json};

#[derive(Form)]
struct Confirm {
    /// Delete it for good?
    confirm: bool,
}

#[derive(Rounds)]
enum Delete {
    Confirm {
        #[answer]
        choice: Elicitation<Confirm>,
    },
}

/// Deletes the note titled `title` once the user confirms.
#[tool(destructive)]
fn delete_note(title: String, round: Round<Delete>) -> Step<Delete, String> {
    match round {
        Round::Start => Delete::ask_confirm(FormRequest::new(format!("Delete {title:?}?"))).into(),
        Round::Resumed(Delete::Confirm { choice }) => Step::Done(match choice {
            Elicitation::Accept(Confirm { confirm: true }) => format!("Deleted {title}."),
            Elicitation::Accept(_) => "Not confirmed; nothing deleted.".into(),
            Elicitation::Decline => "Declined; nothing deleted.".into(),
            Elicitation::Cancel => "Cancelled; nothing deleted.".into(),
        }),
    }
}

#[derive(Form)]
struct Tone {
    /// How the reply should sound.
    tone: String,
}

#[derive(Rounds)]
enum Reply {
    Tone {
        topic: String,
        #[answer]
        tone: Elicitation<Tone>,
    },
    Draft {
        #[answer]
        draft: Sampled<String>,
    },
}

/// Drafts a reply about `topic` with the client's model, in the tone the user picks.
#[tool(read_only)]
fn draft_reply(topic: String, round: Round<Reply>) -> Step<Reply, String> {
    match round {
        Round::Start => Reply::ask_tone(topic, FormRequest::new("Which tone?")).into(),
        Round::Resumed(Reply::Tone { topic, tone: Elicitation::Accept(Tone { tone }) }) => {
            Reply::ask_draft(SamplingRequest::new(format!("Write a {tone} reply about {topic}."), 100)).into()
        }
        Round::Resumed(Reply::Tone { .. }) => Step::Done("no reply".into()),
        Round::Resumed(Reply::Draft { draft }) => Step::Done(draft.value),
    }
}

#[derive(Form)]
struct Go {
    /// Go on?
    go: bool,
}

#[derive(Rounds)]
enum Nag {
    Again {
        asked: u32,
        #[answer]
        go: Elicitation<Go>,
    },
}

/// Asks `times` times before it answers, unless the user says to stop.
#[tool(read_only)]
fn nag(times: u32, round: Round<Nag>) -> Step<Nag, String> {
    let asked = match round {
        Round::Start => 0,
        Round::Resumed(Nag::Again { asked, go: Elicitation::Accept(Go { go: true }) }) => asked,
        Round::Resumed(Nag::Again { asked, .. }) => return Step::Done(format!("stopped after {asked}")),
    };
    if asked == times {
        Step::Done(format!("asked {asked} times"))
    } else {
        Nag::ask_again(asked + 1, FormRequest::new(format!("Round {}?", asked + 1))).into()
    }
}

#[derive(Rounds)]
enum Onboard {
    Visit {
        #[answer]
        opened: UrlElicitation,
    },
    Workspace {
        #[answer]
        roots: Roots,
    },
}

/// Sends the user to a sign-in page, then reads the client's roots.
#[tool(read_only)]
fn onboard(round: Round<Onboard>) -> Step<Onboard, String> {
    match round {
        Round::Start => Onboard::ask_visit(UrlRequest::new("Sign in", "https://example.com/sign-in")).into(),
        Round::Resumed(Onboard::Visit { opened: UrlElicitation::Accept }) => {
            Onboard::ask_workspace(RootsRequest).into()
        }
        Round::Resumed(Onboard::Visit { .. }) => Step::Done("not signed in".into()),
        Round::Resumed(Onboard::Workspace { roots }) => {
            Step::Done(roots.0.iter().map(|root| root.uri.as_str()).collect::<Vec<_>>().join(" "))
        }
    }
}

#[derive(Form)]
struct Focus {
    /// What the briefing should cover.
    focus: String,
}

#[derive(Rounds)]
enum Briefing {
    Focus {
        audience: String,
        #[answer]
        focus: Elicitation<Focus>,
    },
}

/// A briefing for `audience`, on what the user asks for.
#[prompt]
fn briefing(audience: String, round: Round<Briefing>) -> Result<Step<Briefing, String>, Error> {
    match round {
        Round::Start => Ok(Briefing::ask_focus(audience, FormRequest::new("What should it cover?")).into()),
        Round::Resumed(Briefing::Focus { audience, focus }) => Ok(Step::Done(match focus {
            Elicitation::Accept(Focus { focus }) => format!("Brief {audience} on {focus}."),
            _ => format!("Brief {audience}."),
        })),
    }
}

fn server() -> Server {
    Server::builder("test-client", "1.0.0")
        .state_keys(KeyRing::new([StateKey::new("k", &[9u8; 32]).unwrap()]).unwrap())
        .handlers(handlers![delete_note, draft_reply, nag, onboard, briefing])
        .build()
        .unwrap()
}

fn caps(value: Value) -> ClientCapabilities {
    serde_json::from_value(value).unwrap()
}

fn text(result: &mcp_rounds::model::CallToolResult) -> &str {
    result.content[0].as_text().unwrap()
}

fn prompt_text(result: &GetPromptResult) -> String {
    serde_json::to_value(&result.messages[0].content).unwrap()["text"].as_str().unwrap().to_owned()
}

/// A counter a handler bumps, readable after the client is gone.
fn counter() -> (Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    (count.clone(), count)
}

#[tokio::test]
async fn an_accepted_form_completes_the_call_and_declares_elicitation() {
    let server = server();
    let client = TestClient::new(&server).with_elicitation(|params| {
        let ElicitRequestParams::Form(form) = params else { panic!("a form, not {params:?}") };
        assert_eq!(form.message, "Delete \"draft\"?");
        accept(json!({"confirm": true}))
    });
    let result = client.call_tool("delete_note", json!({"title": "draft"})).await.unwrap();
    assert_eq!(text(&result), "Deleted draft.");
}

#[tokio::test]
async fn declined_and_cancelled_forms_reach_the_tool() {
    let server = server();
    for (answer, expected) in [
        (decline as fn() -> _, "Declined; nothing deleted."),
        (cancel, "Cancelled; nothing deleted."),
        (|| accept(json!({"confirm": false})), "Not confirmed; nothing deleted."),
    ] {
        let client = TestClient::new(&server).with_elicitation(move |_| answer());
        let result = client.call_tool("delete_note", json!({"title": "draft"})).await.unwrap();
        assert_eq!(text(&result), expected);
    }
}

#[tokio::test]
async fn two_rounds_of_different_kinds_play_out() {
    let server = server();
    let (forms, forms_seen) = counter();
    let (samples, samples_seen) = counter();
    let client = TestClient::new(&server)
        .with_elicitation(move |_| {
            forms.fetch_add(1, Ordering::Relaxed);
            accept(json!({"tone": "cheerful"}))
        })
        .with_sampling(move |params| {
            samples.fetch_add(1, Ordering::Relaxed);
            let SamplingContent::Text(prompt) = params.messages[0].content.iter().next().unwrap() else {
                panic!("a text prompt")
            };
            assert_eq!(prompt.text, "Write a cheerful reply about lunch.");
            model_reply("Lunch sounds great!")
        });
    let result = client.call_tool("draft_reply", json!({"topic": "lunch"})).await.unwrap();
    assert_eq!(text(&result), "Lunch sounds great!");
    assert_eq!((forms_seen.load(Ordering::Relaxed), samples_seen.load(Ordering::Relaxed)), (1, 1));
}

#[tokio::test]
async fn one_elicitation_answer_handles_urls_and_roots_are_listed() {
    let server = server();
    let client = TestClient::new(&server)
        .with_elicitation(|params| match params {
            ElicitRequestParams::Url(url) => {
                assert_eq!(url.url, "https://example.com/sign-in");
                accept(Value::Null)
            }
            ElicitRequestParams::Form(_) => panic!("no form in this flow"),
        })
        .with_roots([Root::new("file:///home/ada/a"), {
            let mut root = Root::new("file:///home/ada/b");
            root.name = Some("B".into());
            root
        }]);
    let result = client.call_tool("onboard", json!({})).await.unwrap();
    assert_eq!(text(&result), "file:///home/ada/a file:///home/ada/b");
}

#[tokio::test]
async fn a_prompt_round_plays_out() {
    let server = server();
    let client = TestClient::new(&server).with_elicitation(|_| accept(json!({"focus": "Q3 numbers"})));
    let result = client.get_prompt("briefing", json!({"audience": "the board"})).await.unwrap();
    assert_eq!(prompt_text(&result), "Brief the board on Q3 numbers.");
    let declined = TestClient::new(&server).with_elicitation(|_| decline());
    let outcome = declined.get_prompt_outcome("briefing", json!({"audience": "the board"})).await.unwrap();
    let Outcome::Complete(result) = outcome else { panic!("a declined prompt still renders") };
    assert_eq!(prompt_text(&result), "Brief the board.");
}

#[tokio::test]
async fn as_many_rounds_as_the_cap_complete() {
    let server = server();
    let (count, seen) = counter();
    let client = TestClient::new(&server).with_elicitation(move |_| {
        count.fetch_add(1, Ordering::Relaxed);
        accept(json!({"go": true}))
    });
    let result = client.call_tool("nag", json!({"times": MAX_ROUNDS})).await.unwrap();
    assert_eq!(text(&result), format!("asked {MAX_ROUNDS} times"));
    assert_eq!(seen.load(Ordering::Relaxed), MAX_ROUNDS);
}

#[tokio::test]
async fn a_tool_that_keeps_asking_fails_the_test_after_the_cap() {
    let server = server();
    let (count, seen) = counter();
    let client = TestClient::new(&server).with_elicitation(move |_| {
        count.fetch_add(1, Ordering::Relaxed);
        accept(json!({"go": true}))
    });
    // A task, so that the panic can be inspected (and the client's futures are shown to be Send).
    let run = tokio::spawn(async move { client.call_tool("nag", json!({"times": 1000})).await });
    let panic = run.await.expect_err("the client must give up").into_panic();
    let message = panic.downcast::<String>().expect("a formatted message");
    assert!(message.contains("tool \"nag\" was still asking for input after 8 answered rounds"), "{message}");
    assert!(message.contains("(now asking: \"go\" elicitation/create)"), "{message}");
    assert_eq!(seen.load(Ordering::Relaxed), MAX_ROUNDS);
}

#[tokio::test]
async fn a_request_without_an_answer_is_returned_by_the_outcome_variant() {
    let server = server();
    let (forms, forms_seen) = counter();
    let client = TestClient::new(&server)
        .with_capabilities(caps(json!({"elicitation": {}, "sampling": {}})))
        .with_elicitation(move |_| {
            forms.fetch_add(1, Ordering::Relaxed);
            accept(json!({"tone": "dry"}))
        });
    let outcome = client.call_tool_outcome("draft_reply", json!({"topic": "taxes"})).await.unwrap();
    let asked = outcome.input_required().expect("the sampling round is left to the test");
    let requests = serde_json::to_value(asked.input_requests.unwrap()).unwrap();
    assert_eq!(requests["draft"]["method"], "sampling/createMessage");
    assert_eq!(forms_seen.load(Ordering::Relaxed), 1, "the form round was answered");
}

#[tokio::test]
#[should_panic(
    expected = "tool \"draft_reply\" asked for `sampling/createMessage` under key \"draft\", and this TestClient has no answer for it: register one with TestClient::with_sampling"
)]
async fn a_request_without_an_answer_fails_call_tool_by_name() {
    let server = server();
    let client = TestClient::new(&server)
        .with_capabilities(caps(json!({"elicitation": {}, "sampling": {}})))
        .with_elicitation(|_| accept(json!({"tone": "dry"})));
    let _ = client.call_tool("draft_reply", json!({"topic": "taxes"})).await;
}

#[tokio::test]
#[should_panic(expected = "tool \"delete_note\" asked for `elicitation/create` under key \"choice\"")]
async fn a_client_without_answers_fails_call_tool_by_name() {
    let server = server();
    let client = TestClient::new(&server).with_capabilities(caps(json!({"elicitation": {}})));
    let _ = client.call_tool("delete_note", json!({"title": "draft"})).await;
}

#[tokio::test]
async fn only_answered_kinds_are_declared_and_explicit_capabilities_win() {
    let server = server();
    // Only elicitation is declared, so the server refuses to embed the sampling round.
    let form_only = TestClient::new(&server).with_elicitation(|_| accept(json!({"tone": "dry"})));
    let err = form_only.call_tool("draft_reply", json!({"topic": "taxes"})).await.unwrap_err();
    assert_eq!((err.code, err.data), (-32021, Some(json!({"requiredCapabilities": {"sampling": {}}}))));

    // Declared explicitly (in either order), the capabilities are exactly those.
    let bare = caps(json!({}));
    let before = TestClient::new(&server).with_capabilities(bare.clone()).with_elicitation(|_| decline());
    let after = TestClient::new(&server).with_elicitation(|_| decline()).with_capabilities(bare);
    for client in [before, after] {
        let err = client.call_tool("delete_note", json!({"title": "draft"})).await.unwrap_err();
        assert_eq!(err.code, -32021);
    }
}
