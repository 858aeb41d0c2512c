//! Rounds outside tools: a prompt that asks before it renders, and answers a client sends up
//! front without any state.

use mcp_rounds::form::FormRequest;
use mcp_rounds::model::{ClientCapabilities, GetPromptResult, Outcome};
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{Elicitation, IdempotencyKey, Preanswered, Round, Step};
use mcp_rounds::testing::TestClient;
use mcp_rounds::{BuildError, Error, Form, Rounds, Server, handlers, prompt, tool};
use serde_json::{Value, json};

#[derive(Form)]
struct Context {
    /// What the briefing should focus on.
    context: String,
}

#[derive(Rounds)]
enum Briefing {
    Focus {
        audience: String,
        #[answer]
        context: Elicitation<Context>,
    },
}

/// A briefing for `audience`, focused on what the user says when asked.
#[prompt]
fn briefing(audience: String, round: Round<Briefing>) -> Result<Step<Briefing, String>, Error> {
    match round {
        Round::Start => Ok(Briefing::ask_focus(audience, FormRequest::new("What should the briefing cover?")).into()),
        Round::Resumed(Briefing::Focus { audience, context }) => Ok(Step::Done(match context {
            Elicitation::Accept(Context { context }) => format!("Brief {audience} on: {context}"),
            _ => format!("Brief {audience} on whatever matters most."),
        })),
    }
}

#[derive(Form)]
struct Name {
    /// Your name.
    name: String,
}

#[derive(Rounds)]
enum Greeting {
    AskName {
        #[answer]
        name: Elicitation<Name>,
    },
}

fn name_form() -> FormRequest<Name> {
    FormRequest::new("What is your name?")
}

/// Greets the user, asking their name unless the client already answered.
#[tool(read_only)]
fn greet(round: Round<Greeting>, mut early: Preanswered) -> Result<Step<Greeting, String>, Error> {
    let answer = match round {
        Round::Resumed(Greeting::AskName { name }) => name,
        Round::Start => match early.take("name", name_form())? {
            Some(answer) => answer,
            None => return Ok(Greeting::ask_ask_name(name_form()).into()),
        },
    };
    Ok(Step::Done(match answer {
        Elicitation::Accept(Name { name }) => format!("Hello, {name}!"),
        _ => "Hello, stranger!".to_owned(),
    }))
}

/// Reports the idempotency key of each call (asking once so that there is a state).
#[tool(read_only)]
fn keyed(round: Round<Greeting>, key: IdempotencyKey) -> Step<Greeting, String> {
    match round {
        Round::Start if key.get().is_none() => Greeting::ask_ask_name(name_form()).into(),
        Round::Start => Step::Done("a first call has no key".into()),
        Round::Resumed(_) => Step::Done(key.get().expect("a verified state has a key").to_owned()),
    }
}

fn server() -> Server {
    Server::builder("prompt-rounds", "1.0.0")
        .state_keys(KeyRing::new([StateKey::new("k", &[7u8; 32]).unwrap()]).unwrap())
        .handlers(handlers![briefing, greet, keyed])
        .build()
        .unwrap()
}

fn client(server: &Server) -> TestClient {
    let caps: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
    TestClient::new(server).with_capabilities(caps)
}

async fn get(client: &TestClient, params: Value) -> Result<Outcome<GetPromptResult>, mcp_rounds::jsonrpc::ErrorObject> {
    client.request("prompts/get", params).await
}

fn first_text(result: &GetPromptResult) -> String {
    serde_json::to_value(&result.messages[0].content).unwrap()["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_prompt_asks_then_renders_from_the_answer() {
    let server = server();
    let client = client(&server);
    let Outcome::InputRequired(asked) =
        get(&client, json!({"name": "briefing", "arguments": {"audience": "the board"}})).await.unwrap()
    else {
        panic!("the first get must ask")
    };
    let requests = serde_json::to_value(asked.input_requests.unwrap()).unwrap();
    assert_eq!(requests["context"]["method"], "elicitation/create");
    assert_eq!(requests["context"]["params"]["message"], "What should the briefing cover?");
    let state = asked.request_state.unwrap();

    let answer = json!({"context": {"action": "accept", "content": {"context": "Q3 numbers"}}});
    let done = get(
        &client,
        json!({"name": "briefing", "arguments": {"audience": "the board"}, "inputResponses": answer, "requestState": state}),
    )
    .await
    .unwrap();
    let Outcome::Complete(result) = done else { panic!("the retry must render") };
    assert_eq!(first_text(&result), "Brief the board on: Q3 numbers");

    // Prompts change nothing, so their rounds are not single use: the same retry renders again.
    let again = get(
        &client,
        json!({"name": "briefing", "arguments": {"audience": "the board"}, "inputResponses": answer, "requestState": state}),
    )
    .await
    .unwrap();
    assert!(matches!(again, Outcome::Complete(_)));

    // Missing answers ask the same questions again with the same state.
    let Outcome::InputRequired(reasked) = get(
        &client,
        json!({"name": "briefing", "arguments": {"audience": "the board"}, "inputResponses": {}, "requestState": state}),
    )
    .await
    .unwrap() else {
        panic!("a retry without answers must ask again")
    };
    assert_eq!(reasked.request_state.as_deref(), Some(state.as_str()));
}

#[tokio::test]
async fn a_prompt_state_is_bound_to_the_prompt_and_its_arguments() {
    let server = server();
    let client = client(&server);
    let Outcome::InputRequired(asked) =
        get(&client, json!({"name": "briefing", "arguments": {"audience": "the board"}})).await.unwrap()
    else {
        panic!("the first get must ask")
    };
    let state = asked.request_state.unwrap();
    let answer = json!({"context": {"action": "accept", "content": {"context": "x"}}});

    let other_args = get(
        &client,
        json!({"name": "briefing", "arguments": {"audience": "everyone"}, "inputResponses": answer, "requestState": state}),
    )
    .await
    .unwrap_err();
    assert_eq!(other_args.code, -32602);

    let tampered = get(
        &client,
        json!({"name": "briefing", "arguments": {"audience": "the board"}, "inputResponses": answer, "requestState": format!("{state}-TAMPERED")}),
    )
    .await
    .unwrap_err();
    assert_eq!(tampered.code, -32602);

    // The same state presented to a tool is refused: it names prompts/get.
    let on_tool = client
        .request::<Value>("tools/call", json!({"name": "greet", "arguments": {}, "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}, "requestState": state}))
        .await
        .unwrap_err();
    assert_eq!(on_tool.code, -32602);
}

#[tokio::test]
async fn a_prompt_never_embeds_what_the_client_did_not_declare() {
    let server = server();
    let bare = TestClient::new(&server);
    let err = get(&bare, json!({"name": "briefing", "arguments": {"audience": "x"}})).await.unwrap_err();
    assert_eq!(err.code, -32021);
    assert_eq!(err.data, Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}}})));
}

#[tokio::test]
async fn answers_sent_up_front_complete_the_first_call() {
    let server = server();
    let client = client(&server);
    let early = json!({
        "name": {"action": "accept", "content": {"name": "Alice"}},
        "unrelated": {"action": "accept", "content": {"x": 1}},
    });
    let done = client
        .request::<Outcome<mcp_rounds::model::CallToolResult>>(
            "tools/call",
            json!({"name": "greet", "arguments": {}, "inputResponses": early}),
        )
        .await
        .unwrap();
    let Outcome::Complete(result) = done else { panic!("answered up front, the call completes") };
    assert_eq!(result.content[0].as_text(), Some("Hello, Alice!"));

    // An answer under another key is no answer: the tool asks.
    let wrong_key = client
        .request::<Outcome<mcp_rounds::model::CallToolResult>>(
            "tools/call",
            json!({"name": "greet", "arguments": {}, "inputResponses": {"wrong_key": {"action": "accept", "content": {}}}}),
        )
        .await
        .unwrap();
    assert!(matches!(wrong_key, Outcome::InputRequired(_)));

    // Checked like any answer: not an elicitation result, or content outside the form, is -32602.
    for bad in [json!(12345), json!({"action": "accept", "content": {"name": 5}})] {
        let err = client
            .request::<Value>("tools/call", json!({"name": "greet", "arguments": {}, "inputResponses": {"name": bad}}))
            .await
            .unwrap_err();
        assert_eq!(err.code, -32602, "{bad}");
    }

    // A null inputResponses is no answers at all.
    let null = client
        .request::<Outcome<mcp_rounds::model::CallToolResult>>(
            "tools/call",
            json!({"name": "greet", "arguments": {}, "inputResponses": null}),
        )
        .await
        .unwrap();
    assert!(matches!(null, Outcome::InputRequired(_)));
}

#[test]
fn prompts_with_rounds_need_keys() {
    let err = Server::builder("s", "1").handlers(handlers![briefing]).build().unwrap_err();
    assert_eq!(err, BuildError::NoStateKeys("briefing".into()));
}

#[tokio::test]
async fn an_idempotency_key_names_one_state_every_time_it_is_presented() {
    let server = server();
    let client = client(&server);
    let answer = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    let mut keys = Vec::new();
    let mut states = Vec::new();
    for _ in 0..2 {
        let asked = client.call_tool_outcome("keyed", json!({})).await.unwrap();
        let state = asked.input_required().expect("asks first").request_state.clone().unwrap();
        for _ in 0..2 {
            let done = client.call_tool_resume("keyed", json!({}), answer.clone(), &state).await.unwrap();
            let Outcome::Complete(result) = done else { panic!("completes") };
            keys.push(result.content[0].as_text().unwrap().to_owned());
        }
        states.push(state);
    }
    assert_eq!(keys[0], keys[1], "the same state gives the same key");
    assert_eq!(keys[2], keys[3]);
    assert_ne!(keys[0], keys[2], "another state gives another key");
    assert!(keys.iter().all(|k| k.len() == 32 && k.chars().all(|c| c.is_ascii_hexdigit())), "{keys:?}");

    // A tampered state has no key, and the round refuses it.
    let err = client.call_tool_resume("keyed", json!({}), answer, &format!("{}x", states[0])).await.unwrap_err();
    assert_eq!(err.code, -32602);
}
