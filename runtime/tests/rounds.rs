//! Multi-round tools end to end through the in-process client: the notes_delete checkpoints of
//! the elicitation lesson, sampling rounds, URL mode, roots, and every way a retry can be wrong.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_rounds::form::{Choice, FormRequest};
use mcp_rounds::model::{CallToolResult, ClientCapabilities, InputRequest, Outcome};
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{
    Elicitation, Roots, RootsRequest, Round, Sampled, SamplingRequest, Step, UrlElicitation, UrlRequest,
};
use mcp_rounds::testing::TestClient;
use mcp_rounds::{
    BuildError, Error, Form, FormChoice, Json, Principal, Rounds, Server, State, ToolError, handlers, tool,
};
use serde_json::{Value, json};

/// The notes of the test, by id, and the ids deleted so far.
struct Notes {
    titles: Mutex<BTreeMap<String, String>>,
    deleted: Mutex<Vec<String>>,
}

impl Notes {
    fn seeded() -> Self {
        let titles = [
            ("q1", "TPS report Q1"),
            ("cover", "TPS Report cover sheet"),
            ("draft", "Old tps report draft"),
            ("roadmap", "Roadmap meeting"),
        ];
        Notes {
            titles: Mutex::new(titles.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()),
            deleted: Mutex::default(),
        }
    }
}

#[derive(Form)]
struct ConfirmDelete {
    /// The note to delete.
    note: Choice,
    /// Delete it for good?
    confirm: bool,
}

#[derive(Rounds)]
enum DeleteFlow {
    Confirm {
        candidates: Vec<String>,
        #[answer]
        choice: Elicitation<ConfirmDelete>,
    },
}

/// Deletes one note whose title contains `title`, after the user picks and confirms it.
#[tool(destructive, rename_all = "camelCase")]
fn notes_delete(
    workspace_uri: String,
    title: String,
    round: Round<DeleteFlow>,
    State(notes): State<Notes>,
) -> Result<Step<DeleteFlow, String>, ToolError> {
    if workspace_uri != "file:///workspace" {
        return Err(ToolError::new("that workspace is not authorized"));
    }
    match round {
        Round::Start => {
            let titles = notes.titles.lock().unwrap();
            let candidates: Vec<(String, String)> = titles
                .iter()
                .filter(|(_, t)| t.to_lowercase().contains(&title.to_lowercase()))
                .map(|(id, t)| (id.clone(), t.clone()))
                .collect();
            if candidates.is_empty() {
                return Ok(Step::Done(format!("No note matches {title:?}.")));
            }
            let ids = candidates.iter().map(|(id, _)| id.clone()).collect();
            let form = FormRequest::new(format!("Which note titled like {title:?} should I delete?"))
                .choices(ConfirmDelete::FIELDS.note, candidates);
            Ok(DeleteFlow::ask_confirm(ids, form).into())
        }
        Round::Resumed(DeleteFlow::Confirm { candidates, choice }) => match choice {
            Elicitation::Accept(ConfirmDelete { note, confirm: true }) => {
                assert!(candidates.contains(&note.0), "validated against the signed candidates");
                notes.titles.lock().unwrap().remove(&note.0).ok_or_else(|| ToolError::new("already gone"))?;
                notes.deleted.lock().unwrap().push(note.0.clone());
                Ok(Step::Done(format!("Deleted {note}.")))
            }
            Elicitation::Accept(_) => Ok(Step::Done("Not confirmed; nothing deleted.".into())),
            Elicitation::Decline => Ok(Step::Done("Declined; nothing deleted.".into())),
            Elicitation::Cancel => Ok(Step::Done("Cancelled; nothing deleted.".into())),
        },
    }
}

#[derive(Rounds)]
enum Summary {
    Pick {
        candidates: Vec<String>,
        #[answer]
        picks: Sampled<Json<Vec<String>>>,
    },
    Write {
        picks: Vec<String>,
        #[answer]
        summary: Sampled<String>,
    },
}

/// Summarizes notes with the client's model: pick representative notes, then write.
#[tool(read_only, rename_all = "camelCase")]
fn summarize_notes(
    workspace_uri: String,
    round: Round<Summary>,
    State(notes): State<Notes>,
) -> Result<Step<Summary, Json<Value>>, Error> {
    let _ = workspace_uri;
    match round {
        Round::Start => {
            let ids: Vec<String> = notes.titles.lock().unwrap().keys().cloned().collect();
            let prompt = format!("Which of these notes are representative? Answer a JSON array of ids: {ids:?}");
            Ok(Summary::ask_pick(ids, SamplingRequest::new(prompt, 200)).into())
        }
        Round::Resumed(Summary::Pick { candidates, picks }) => {
            if let Some(unknown) = picks.value.0.iter().find(|id| !candidates.contains(id)) {
                return Err(Error::invalid_field("inputResponses.picks", format!("unknown note id {unknown:?}")));
            }
            let prompt = format!("Summarize notes {:?} in one sentence.", picks.value.0);
            Ok(Summary::ask_write(picks.value.0, SamplingRequest::new(prompt, 400)).into())
        }
        Round::Resumed(Summary::Write { picks, summary }) => {
            Ok(Step::Done(Json(json!({"picks": picks, "summary": summary.value}))))
        }
    }
}

#[derive(FormChoice, Clone, Copy, Debug, PartialEq)]
#[form(rename_all = "snake_case")]
enum Mood {
    #[form(title = "Happy")]
    Happy,
    #[form(title = "Grumpy")]
    Grumpy,
}

#[derive(Form, Debug)]
#[allow(dead_code)]
struct Survey {
    #[form(min_length = 2)]
    name: String,
    #[form(minimum = 0, maximum = 10)]
    score: u8,
    mood: Mood,
    #[form(format = "email")]
    email: Option<String>,
}

/// Out-of-band flows the server has seen completed (a web handler would record them).
#[derive(Clone, Default)]
struct Flows(Arc<Mutex<Vec<String>>>);

#[derive(Rounds)]
enum Connect {
    #[round(single_use = false)]
    Visit {
        flow: String,
        #[answer]
        opened: UrlElicitation,
    },
    Both {
        #[answer]
        survey: Elicitation<Survey>,
        #[answer(key = "workspace")]
        roots: Roots,
    },
}

/// Connects an account through a web page, then asks a survey and the roots in one round.
#[tool(read_only)]
fn connect(round: Round<Connect>, State(flows): State<Flows>) -> Step<Connect, String> {
    match round {
        Round::Start => Connect::ask_visit(
            "flow-1".into(),
            UrlRequest::new("Sign in to connect", "https://example.com/connect/flow-1"),
        )
        .into(),
        Round::Resumed(Connect::Visit { flow, opened: UrlElicitation::Accept }) => {
            if flows.0.lock().unwrap().contains(&flow) {
                Connect::ask_both(FormRequest::new("How was it?"), RootsRequest).into()
            } else {
                // Agreeing to open is not completing: ask again until our own record says done.
                Connect::ask_visit(
                    flow.clone(),
                    UrlRequest::new("Finish signing in", format!("https://example.com/connect/{flow}")),
                )
                .into()
            }
        }
        Round::Resumed(Connect::Visit { .. }) => Step::Done("not connected".into()),
        Round::Resumed(Connect::Both { survey, roots }) => {
            Step::Done(format!("{survey:?} with {} roots", roots.0.len()))
        }
    }
}

fn keys() -> KeyRing {
    KeyRing::new([StateKey::new("test-1", &[42u8; 32]).unwrap()]).unwrap()
}

fn server_with(ttl: Duration) -> Server {
    server_with_flows(ttl, Flows::default())
}

fn server_with_flows(ttl: Duration, flows: Flows) -> Server {
    Server::builder("rounds-test", "1.0.0")
        .state(Notes::seeded())
        .state(flows)
        .state_keys(keys())
        .state_ttl(ttl)
        .handlers(handlers![notes_delete, summarize_notes, connect])
        .build()
        .unwrap()
}

fn server() -> Server {
    server_with(Duration::from_secs(300))
}

fn caps(value: Value) -> ClientCapabilities {
    serde_json::from_value(value).unwrap()
}

fn client(server: &Server) -> TestClient {
    TestClient::new(server).as_principal(Principal::new("demo")).with_capabilities(caps(json!({"elicitation": {}})))
}

fn delete_args() -> Value {
    json!({"workspaceUri": "file:///workspace", "title": "tps report"})
}

async fn first_round(client: &TestClient) -> (Value, String) {
    let asked = client.call_tool_outcome("notes_delete", delete_args()).await.unwrap();
    let Outcome::InputRequired(asked) = asked else { panic!("the first call must ask") };
    let requests = serde_json::to_value(asked.input_requests.unwrap()).unwrap();
    (requests, asked.request_state.unwrap())
}

fn accept(note: &str) -> Value {
    json!({"choice": {"action": "accept", "content": {"note": note, "confirm": true}}})
}

fn text(outcome: Outcome<CallToolResult>) -> String {
    let Outcome::Complete(result) = outcome else { panic!("expected a complete result") };
    result.content[0].as_text().unwrap().to_owned()
}

#[tokio::test]
async fn first_call_asks_a_form_of_the_candidates() {
    let server = server();
    let (requests, state) = first_round(&client(&server)).await;
    assert_eq!(
        requests,
        json!({"choice": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Which note titled like \"tps report\" should I delete?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "note": {"type": "string", "description": "The note to delete.", "oneOf": [
                            {"const": "cover", "title": "TPS Report cover sheet"},
                            {"const": "draft", "title": "Old tps report draft"},
                            {"const": "q1", "title": "TPS report Q1"}
                        ]},
                        "confirm": {"type": "boolean", "description": "Delete it for good?"}
                    },
                    "required": ["note", "confirm"]
                }
            }
        }})
    );
    assert!(state.len() > 40 && !state.contains('='), "opaque base64url");
}

#[tokio::test]
async fn accepted_retry_deletes_once_and_a_replay_is_refused() {
    let server = server();
    let client = client(&server);
    let (_, state) = first_round(&client).await;
    let done = client.call_tool_resume("notes_delete", delete_args(), accept("draft"), &state).await.unwrap();
    assert_eq!(text(done), "Deleted draft.");
    let replay = client.call_tool_resume("notes_delete", delete_args(), accept("q1"), &state).await.unwrap_err();
    assert_eq!(replay.code, -32602);
    assert_eq!(replay.message, "Invalid or expired requestState");
    // Only one note is gone.
    let remaining = client.call_tool_outcome("notes_delete", delete_args()).await.unwrap();
    let asked = serde_json::to_value(remaining.input_required().unwrap()).unwrap();
    let offered = &asked["inputRequests"]["choice"]["params"]["requestedSchema"]["properties"]["note"]["oneOf"];
    assert_eq!(offered.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn decline_is_terminal_and_cancel_is_retryable() {
    let server = server();
    let client = client(&server);
    let (_, state) = first_round(&client).await;
    let declined = client
        .call_tool_resume("notes_delete", delete_args(), json!({"choice": {"action": "decline"}}), &state)
        .await
        .unwrap();
    assert_eq!(text(declined), "Declined; nothing deleted.");
    let after_decline = client.call_tool_resume("notes_delete", delete_args(), accept("q1"), &state).await.unwrap_err();
    assert_eq!(after_decline.code, -32602, "a declined state is used up");

    let (_, state) = first_round(&client).await;
    let cancelled = client
        .call_tool_resume("notes_delete", delete_args(), json!({"choice": {"action": "cancel"}}), &state)
        .await
        .unwrap();
    assert_eq!(text(cancelled), "Cancelled; nothing deleted.");
    let retried = client.call_tool_resume("notes_delete", delete_args(), accept("q1"), &state).await.unwrap();
    assert_eq!(text(retried), "Deleted q1.", "a cancelled state stays usable");
}

#[tokio::test]
async fn answers_are_checked_before_the_state_is_used() {
    let server = server();
    let client = client(&server);
    let (_, state) = first_round(&client).await;
    for (responses, field) in [
        (accept("roadmap"), "inputResponses.choice.note"),
        (json!({"choice": {"action": "accept", "content": {"note": "q1"}}}), "inputResponses.choice.confirm"),
        (json!({"choice": {"action": "accept"}}), "inputResponses.choice.note"),
        (
            json!({"choice": {"action": "accept", "content": {"note": "q1", "confirm": "yes"}}}),
            "inputResponses.choice.confirm",
        ),
        (json!({"choice": {"action": "maybe"}}), "inputResponses.choice"),
        (json!({"choice": 5}), "inputResponses.choice"),
    ] {
        let err = client.call_tool_resume("notes_delete", delete_args(), responses.clone(), &state).await.unwrap_err();
        assert_eq!(err.code, -32602, "{responses}");
        assert_eq!(err.data.unwrap()["field"], field, "{responses}");
    }
    // None of that used the state up.
    let done = client.call_tool_resume("notes_delete", delete_args(), accept("cover"), &state).await.unwrap();
    assert_eq!(text(done), "Deleted cover.");
}

#[tokio::test]
async fn a_state_cannot_be_moved_to_other_arguments_principals_or_tools() {
    let server = server();
    let client = client(&server);
    let (_, state) = first_round(&client).await;
    let other_title = json!({"workspaceUri": "file:///workspace", "title": "roadmap"});
    let err = client.call_tool_resume("notes_delete", other_title, accept("q1"), &state).await.unwrap_err();
    assert_eq!(err.code, -32602);
    let mallory = TestClient::new(&server)
        .as_principal(Principal::new("mallory"))
        .with_capabilities(caps(json!({"elicitation": {}})));
    let err = mallory.call_tool_resume("notes_delete", delete_args(), accept("q1"), &state).await.unwrap_err();
    assert_eq!(err.code, -32602);
    let err = client
        .call_tool_resume("summarize_notes", json!({"workspaceUri": "file:///workspace"}), json!({}), &state)
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    let mut tampered = state.clone().into_bytes();
    let last = tampered.len() - 5;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    let err = client
        .call_tool_resume("notes_delete", delete_args(), accept("q1"), std::str::from_utf8(&tampered).unwrap())
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    // Still intact for its rightful owner.
    assert_eq!(
        text(client.call_tool_resume("notes_delete", delete_args(), accept("q1"), &state).await.unwrap()),
        "Deleted q1."
    );
}

#[tokio::test]
async fn expired_states_are_refused() {
    // A lifetime of zero: a state is expired from the millisecond it was signed in, so the
    // retry finds it expired without waiting for time to pass.
    let server = server_with(Duration::ZERO);
    let client = client(&server);
    let (_, state) = first_round(&client).await;
    let err = client.call_tool_resume("notes_delete", delete_args(), accept("q1"), &state).await.unwrap_err();
    assert_eq!(err.code, -32602);
}

#[tokio::test]
async fn missing_answers_ask_again_and_malformed_ones_are_errors() {
    let server = server();
    let client = client(&server);
    let (requests, state) = first_round(&client).await;
    for responses in [json!({}), json!(null), json!({"unrelated": {"action": "accept"}})] {
        let again = client.call_tool_resume("notes_delete", delete_args(), responses.clone(), &state).await.unwrap();
        let again = again.input_required().unwrap_or_else(|| panic!("{responses}: must ask again"));
        assert_eq!(serde_json::to_value(again.input_requests.unwrap()).unwrap(), requests);
        assert_eq!(again.request_state.as_deref(), Some(state.as_str()));
    }
    for responses in [json!(5), json!("x"), json!([1])] {
        let err = client.call_tool_resume("notes_delete", delete_args(), responses.clone(), &state).await.unwrap_err();
        assert_eq!(err.code, -32602, "{responses}");
    }
    let err = client
        .request::<Value>(
            "tools/call",
            json!({"name": "notes_delete", "arguments": delete_args(), "inputResponses": accept("q1"), "requestState": 42}),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    // Extra keys beside the answers are ignored.
    let mut with_extra = accept("q1");
    with_extra["noise"] = json!({"whatever": true});
    assert_eq!(
        text(client.call_tool_resume("notes_delete", delete_args(), with_extra, &state).await.unwrap()),
        "Deleted q1."
    );
}

#[tokio::test]
async fn form_capability_is_required_exactly() {
    let server = server();
    for declared in [json!({}), json!({"elicitation": {"url": {}}}), json!({"sampling": {}})] {
        let client = TestClient::new(&server).with_capabilities(caps(declared.clone()));
        let err = client.call_tool_outcome("notes_delete", delete_args()).await.unwrap_err();
        assert_eq!(err.code, -32021, "{declared}");
        assert_eq!(err.data, Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}}})), "{declared}");
    }
    for declared in [
        json!({"elicitation": {}}),
        json!({"elicitation": {"form": {}}}),
        json!({"elicitation": {"form": {}, "url": {}}}),
    ] {
        let client = TestClient::new(&server).with_capabilities(caps(declared.clone()));
        assert!(
            client.call_tool_outcome("notes_delete", delete_args()).await.unwrap().input_required().is_some(),
            "{declared}"
        );
    }
}

fn model_says(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model", "stopReason": "endTurn"})
}

#[tokio::test]
async fn sampling_rounds_validate_the_model_and_finish() {
    let server = server();
    let sampler = TestClient::new(&server).with_capabilities(caps(json!({"sampling": {}})));
    let args = json!({"workspaceUri": "file:///workspace"});
    let result = sampler
        .call_tool_answering("summarize_notes", args.clone(), |key, request| {
            assert!(matches!(request, InputRequest::CreateMessage { .. }));
            match key {
                "picks" => model_says("```json\n[\"q1\", \"roadmap\"]\n```"),
                "summary" => model_says("Quarterly numbers and the roadmap."),
                other => panic!("unexpected key {other}"),
            }
        })
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"picks": ["q1", "roadmap"], "summary": "Quarterly numbers and the roadmap."}))
    );

    let first = sampler.call_tool_outcome("summarize_notes", args.clone()).await.unwrap().input_required().unwrap();
    let state = first.request_state.unwrap();
    let not_json = sampler
        .call_tool_resume("summarize_notes", args.clone(), json!({"picks": model_says("q1 and roadmap")}), &state)
        .await;
    assert_eq!(not_json.unwrap_err().data.unwrap()["field"], "inputResponses.picks");
    let unknown = sampler
        .call_tool_resume("summarize_notes", args.clone(), json!({"picks": model_says("[\"nope\"]")}), &state)
        .await;
    assert_eq!(unknown.unwrap_err().code, -32602);

    let no_sampling = TestClient::new(&server).with_capabilities(caps(json!({"elicitation": {}})));
    let err = no_sampling.call_tool_outcome("summarize_notes", args).await.unwrap_err();
    assert_eq!((err.code, err.data), (-32021, Some(json!({"requiredCapabilities": {"sampling": {}}}))));
}

#[tokio::test]
async fn url_mode_asks_until_the_out_of_band_step_is_done_then_asks_several_things() {
    let flows = Flows::default();
    let server = server_with_flows(Duration::from_secs(300), flows.clone());
    let everything = caps(json!({"elicitation": {"form": {}, "url": {}}, "roots": {}}));
    let client = TestClient::new(&server).with_capabilities(everything);
    let first = client.call_tool_outcome("connect", json!({})).await.unwrap().input_required().unwrap();
    let requests = serde_json::to_value(&first.input_requests).unwrap();
    assert_eq!(
        requests["opened"]["params"],
        json!({"mode": "url", "message": "Sign in to connect", "url": "https://example.com/connect/flow-1"})
    );
    let state = first.request_state.unwrap();
    let opened = json!({"opened": {"action": "accept"}});
    let again =
        client.call_tool_resume("connect", json!({}), opened.clone(), &state).await.unwrap().input_required().unwrap();
    assert_eq!(
        serde_json::to_value(&again.input_requests).unwrap()["opened"]["params"]["message"],
        "Finish signing in"
    );
    // A reusable round: the same state may be presented again.
    assert!(client.call_tool_resume("connect", json!({}), opened.clone(), &state).await.is_ok());

    flows.0.lock().unwrap().push("flow-1".into());
    let both = client.call_tool_resume("connect", json!({}), opened, &state).await.unwrap().input_required().unwrap();
    let keys: Vec<&String> = both.input_requests.as_ref().unwrap().keys().collect();
    assert_eq!(keys, ["survey", "workspace"]);
    let state = both.request_state.unwrap();
    let answers = json!({
        "survey": {"action": "accept", "content": {"name": "Ada", "score": 9, "mood": "happy"}},
        "workspace": {"roots": [{"uri": "file:///home/ada/project", "name": "Project"}]}
    });
    let done = client.call_tool_resume("connect", json!({}), answers, &state).await.unwrap();
    assert_eq!(text(done), "Accept(Survey { name: \"Ada\", score: 9, mood: Happy, email: None }) with 1 roots");

    let url_less = TestClient::new(&server).with_capabilities(caps(json!({"elicitation": {}})));
    let err = url_less.call_tool_outcome("connect", json!({})).await.unwrap_err();
    assert_eq!(err.data, Some(json!({"requiredCapabilities": {"elicitation": {"url": {}}}})));
}

#[test]
fn tools_with_rounds_need_keys() {
    let err = Server::builder("s", "1").state(Notes::seeded()).handlers(handlers![notes_delete]).build().unwrap_err();
    assert_eq!(err, BuildError::NoStateKeys("notes_delete".into()));
    let dev = Server::builder("s", "1")
        .state(Notes::seeded())
        .state_keys(KeyRing::development())
        .handlers(handlers![notes_delete])
        .build();
    assert!(dev.is_ok(), "a development key is a deliberate choice");
}
