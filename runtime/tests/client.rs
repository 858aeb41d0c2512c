//! The client against a server in the same process, in both eras: the protocol it settles on,
//! typed results, rounds answered by its handler (form defaults filled in, answers checked
//! before they go out), a 2025-11-25 session whose elicitation is a live request, typed errors,
//! and a call driven round by round.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_rounds::client::{Asking, Client, ClientError, ClientHandler, Lifecycle, Protocol, ServerHello};
use mcp_rounds::form::FormRequest;
use mcp_rounds::model::{
    CallToolRequestParams, ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitAction,
    ElicitRequestParams, ElicitResult, ElicitationCapability, InputResponse, Outcome, SamplingCapability,
};
use mcp_rounds::request_state::KeyRing;
use mcp_rounds::rounds::{Elicitation, Round, Sampled, SamplingRequest, Step};
use mcp_rounds::transport::in_process::InProcess;
use mcp_rounds::{Error, Form, Rounds, Server, ToolError, handlers, tool};
use serde_json::{Map, json};

#[derive(Form)]
struct Who {
    /// Your name.
    name: String,
    /// How to greet.
    #[form(default = "Hello")]
    greeting: String,
}

#[derive(Rounds)]
enum Greeting {
    Name {
        #[answer]
        who: Elicitation<Who>,
    },
    Check {
        name: String,
        #[answer]
        verdict: Sampled<String>,
    },
}

/// Greets the user by the name they give, after the model agrees it is a name.
#[tool]
fn greet(round: Round<Greeting>) -> Step<Greeting, String> {
    match round {
        Round::Start => Greeting::ask_name(FormRequest::new("What is your name?")).into(),
        Round::Resumed(Greeting::Name { who: Elicitation::Accept(Who { name, greeting }) }) => {
            let question = format!("Is {name:?} a name? Say yes or no.");
            Greeting::ask_check(format!("{greeting}, {name}!"), SamplingRequest::new(question, 10)).into()
        }
        Round::Resumed(Greeting::Name { .. }) => Step::Done("Hello, stranger!".into()),
        Round::Resumed(Greeting::Check { name, verdict }) => Step::Done(format!("{name} ({})", verdict.value)),
    }
}

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Always fails.
#[tool]
fn broken() -> Result<String, ToolError> {
    Err(ToolError::new("it is broken"))
}

fn server() -> Server {
    Server::builder("greeter", "1.0.0")
        .state_keys(KeyRing::development())
        .handlers(handlers![greet, add, broken])
        .build()
        .expect("a valid server")
}

/// Answers forms with `name` (leaving the greeting to its default) and sampling with "yes";
/// counts what it was asked.
struct Person {
    name: &'static str,
    asked: AtomicUsize,
    forms: Mutex<Vec<String>>,
    /// The key and round of each request, in order.
    keys: Mutex<Vec<(String, usize)>>,
}

impl Person {
    fn named(name: &'static str) -> Self {
        Person { name, asked: AtomicUsize::new(0), forms: Mutex::default(), keys: Mutex::default() }
    }
}

impl ClientHandler for &'static Person {
    async fn elicit(&self, request: ElicitRequestParams, asking: &Asking) -> Result<ElicitResult, Error> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        self.keys.lock().unwrap().push((asking.key.clone(), asking.round));
        let ElicitRequestParams::Form(form) = request else { return Err(Error::invalid_params("forms only")) };
        self.forms.lock().unwrap().push(form.message);
        let mut content = Map::new();
        if !self.name.is_empty() {
            content.insert("name".into(), json!(self.name));
        }
        Ok(ElicitResult::accept(Some(content)))
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        asking: &Asking,
    ) -> Result<CreateMessageResult, Error> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        self.keys.lock().unwrap().push((asking.key.clone(), asking.round));
        let _ = request;
        Ok(CreateMessageResult::text_reply("test-model", "yes"))
    }
}

fn capabilities() -> ClientCapabilities {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(ElicitationCapability::form());
    capabilities.sampling = Some(SamplingCapability::default());
    capabilities
}

async fn connect(lifecycle: Lifecycle, person: &'static Person) -> Client {
    Client::builder()
        .name("client-test", "1.0.0")
        .capabilities(capabilities())
        .handler(person)
        .lifecycle(lifecycle)
        .connect(InProcess::new(&server()))
        .await
        .expect("connects")
}

fn leak(person: Person) -> &'static Person {
    Box::leak(Box::new(person))
}

#[tokio::test]
async fn auto_settles_on_2026_07_28_with_a_modern_server() {
    let client = connect(Lifecycle::Auto, leak(Person::named("Ada"))).await;
    assert_eq!(client.protocol(), &Protocol::Modern("2026-07-28".into()));
    let ServerHello::Discovered(discovered) = client.hello() else { panic!("a modern server is discovered") };
    assert!(discovered.supported_versions.contains(&"2026-07-28".to_owned()));
    assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("greeter"));
    let tools: Vec<String> = client.list_all_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["add", "broken", "greet"]);
    let sum = client.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(sum.content[0].as_text(), Some("42"));
}

#[tokio::test]
async fn rounds_are_answered_by_the_handler_in_both_eras() {
    for lifecycle in [Lifecycle::Discover, Lifecycle::Legacy] {
        let person = leak(Person::named("Ada"));
        let client = connect(lifecycle, person).await;
        assert_eq!(client.protocol().is_legacy(), lifecycle == Lifecycle::Legacy);
        let result = client.call_tool("greet", json!({})).await.unwrap();
        // The form's default greeting was filled in by the client; the model said yes.
        assert_eq!(result.content[0].as_text(), Some("Hello, Ada! (yes)"), "{lifecycle:?}");
        assert_eq!(person.asked.load(Ordering::SeqCst), 2, "{lifecycle:?}");
        assert_eq!(*person.forms.lock().unwrap(), ["What is your name?"]);
        // The key each answer goes under: the server's in a round; a session's, by method.
        let expected: [(&str, usize); 2] = match lifecycle {
            Lifecycle::Legacy => [("elicitation/create#1", 1), ("sampling/createMessage#1", 1)],
            _ => [("who", 1), ("verdict", 2)],
        };
        let keys = person.keys.lock().unwrap().clone();
        assert_eq!(keys, expected.map(|(k, r)| (k.to_owned(), r)), "{lifecycle:?}");
    }
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_form_is_not_sent() {
    // No name: the required field is missing, and the client says so instead of sending it.
    let client = connect(Lifecycle::Discover, leak(Person::named(""))).await;
    match client.call_tool("greet", json!({})).await {
        Err(ClientError::InvalidAnswer { violation, .. }) => assert_eq!(violation.field, "name"),
        other => panic!("expected InvalidAnswer, got {other:?}"),
    }
}

#[tokio::test]
async fn a_client_without_answers_says_which_request_it_cannot_answer() {
    let client = Client::builder().capabilities(capabilities()).connect(InProcess::new(&server())).await.unwrap();
    match client.call_tool("greet", json!({})).await {
        Err(ClientError::Unanswered { method, .. }) => assert_eq!(method, "elicitation/create"),
        other => panic!("expected Unanswered, got {other:?}"),
    }
}

#[tokio::test]
async fn failures_are_typed() {
    let client = connect(Lifecycle::Auto, leak(Person::named("Ada"))).await;
    let error = client.call_tool("broken", json!({})).await.unwrap_err();
    assert!(error.is_tool_error(), "{error}");
    assert!(error.to_string().contains("it is broken"), "{error}");
    let error = client.call_tool("missing", json!({})).await.unwrap_err();
    assert_eq!(error.code(), Some(-32602), "{error}");
    let error = client.call_tool("add", json!([1, 2])).await.unwrap_err();
    assert!(matches!(error, ClientError::InvalidTool { .. }), "{error}");
    // A capability the request does not declare: the server's -32021, as a protocol error.
    let bare = Client::builder().connect(InProcess::new(&server())).await.unwrap();
    let error = bare.call_tool("greet", json!({})).await.unwrap_err();
    assert_eq!(error.code(), Some(-32021), "{error}");
}

#[tokio::test]
async fn a_call_can_be_driven_round_by_round() {
    let client = connect(Lifecycle::Discover, leak(Person::named("Ada"))).await;
    let mut call = client.round_by_round(CallToolRequestParams::new("greet", Map::new()));
    let Outcome::InputRequired(first) = call.send().await.unwrap() else { panic!("asks for a name") };
    let state = first.request_state.clone().expect("the server keeps its state with the client");
    let (key, _) = first.input_requests.as_ref().unwrap().first().unwrap();
    let mut answer = Map::new();
    answer.insert("name".into(), json!("Grace"));
    answer.insert("greeting".into(), json!("Hi"));
    call.answer(&first, [(key.clone(), InputResponse::Elicit(ElicitResult::accept(Some(answer))))].into());
    assert_eq!(call.params().request_state.as_deref(), Some(state.as_str()), "echoed byte for byte");
    let Outcome::InputRequired(second) = call.send().await.unwrap() else { panic!("asks the model") };
    let (key, _) = second.input_requests.as_ref().unwrap().first().unwrap();
    let reply = CreateMessageResult::text_reply("m", "yes");
    call.answer(&second, [(key.clone(), InputResponse::CreateMessage(Box::new(reply)))].into());
    // This round's answers replace the last round's.
    assert_eq!(call.params().input_responses.as_ref().map(|r| r.len()), Some(1));
    let Outcome::Complete(done) = call.send().await.unwrap() else { panic!("completes") };
    assert_eq!(done.content[0].as_text(), Some("Hi, Grace! (yes)"));
    let _ = ElicitAction::Accept;
}

#[tokio::test]
async fn lists_walk_every_page() {
    let server = Server::builder("paged", "1.0.0")
        .state_keys(KeyRing::development())
        .page_size(1)
        .handlers(handlers![greet, add, broken])
        .build()
        .unwrap();
    let client = Client::builder().connect(InProcess::new(&server)).await.unwrap();
    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 1);
    assert!(first.next_cursor.is_some());
    let all: Vec<String> = client.list_all_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(all, ["add", "broken", "greet"]);
}
