//! `completion/complete` for prompt arguments and resource-template variables.

use mcp_rounds::completion::CompletionRequest;
use mcp_rounds::model::{CompleteResult, Completion};
use mcp_rounds::testing::TestClient;
use mcp_rounds::{Error, Server, handlers, prompt, resource};
use serde_json::{Value, json};

async fn languages(request: CompletionRequest) -> Vec<String> {
    request.matching(["Python", "Rust", "Ruby", "TypeScript"])
}

async fn frameworks(request: CompletionRequest) -> Result<Vec<String>, Error> {
    // The language already chosen narrows the frameworks.
    let all: &[&str] = match request.arguments.get("language").map(String::as_str) {
        Some("Rust") => &["axum", "actix", "rocket"],
        Some("Python") => &["django", "flask"],
        _ => return Err(Error::invalid_params("choose a language first")),
    };
    Ok(request.matching(all.iter().copied()))
}

async fn many(request: CompletionRequest) -> Vec<String> {
    (0..300).map(|i| format!("{}{i}", request.value)).collect()
}

/// Reviews code.
#[prompt]
fn code_review(
    #[arg(complete = languages)] language: String,
    #[arg(complete = frameworks)] framework: Option<String>,
    style: Option<String>,
) -> String {
    format!("Review {language} ({framework:?}, {style:?})")
}

/// A file of a project.
#[resource("projects://{project}/files/{path}", mime_type = "text/plain")]
fn project_file(#[arg(complete = many)] project: String, path: String) -> String {
    format!("{project}/{path}")
}

fn server() -> Server {
    Server::builder("completion", "1.0.0").handlers(handlers![code_review, project_file]).build().unwrap()
}

async fn complete(client: &TestClient, params: Value) -> Result<Completion, mcp_rounds::jsonrpc::ErrorObject> {
    client.request::<CompleteResult>("completion/complete", params).await.map(|r| r.completion)
}

fn prompt_ref() -> Value {
    json!({"type": "ref/prompt", "name": "code_review"})
}

#[tokio::test]
async fn prompt_arguments_complete_from_what_was_typed_and_what_was_chosen() {
    let server = server();
    assert_eq!(server.capabilities().completions, Some(Default::default()));
    let client = TestClient::new(&server);

    let found = complete(&client, json!({"ref": prompt_ref(), "argument": {"name": "language", "value": "ru"}})).await;
    assert_eq!(found.unwrap().values, ["Rust", "Ruby"]);

    let narrowed = complete(
        &client,
        json!({"ref": prompt_ref(), "argument": {"name": "framework", "value": "a"}, "context": {"arguments": {"language": "Rust"}}}),
    )
    .await;
    assert_eq!(narrowed.unwrap().values, ["axum", "actix"]);

    // The completer's own error reaches the client as it is.
    let err = complete(&client, json!({"ref": prompt_ref(), "argument": {"name": "framework", "value": ""}}))
        .await
        .unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32602, "choose a language first"));

    // An argument without a completer has no suggestions.
    let none = complete(&client, json!({"ref": prompt_ref(), "argument": {"name": "style", "value": "x"}})).await;
    let none = none.unwrap();
    assert_eq!((none.values.len(), none.total, none.has_more), (0, Some(0), Some(false)));
}

#[tokio::test]
async fn template_variables_complete_and_long_answers_are_capped() {
    let server = server();
    let client = TestClient::new(&server);
    let reference = json!({"type": "ref/resource", "uri": "projects://{project}/files/{path}"});
    let raw = client
        .request_raw("completion/complete", json!({"ref": reference, "argument": {"name": "project", "value": "p"}}))
        .await;
    assert_eq!(raw["result"]["resultType"], "complete");
    let completion = &raw["result"]["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!(completion["values"][0], "p0");
    assert_eq!((completion["total"].clone(), completion["hasMore"].clone()), (json!(300), json!(true)));

    let none = complete(&client, json!({"ref": reference, "argument": {"name": "path", "value": ""}})).await;
    assert!(none.unwrap().values.is_empty());
}

#[tokio::test]
async fn unknown_references_and_arguments_are_invalid_params() {
    let server = server();
    let client = TestClient::new(&server);
    let cases = [
        (
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}}),
            "Unknown prompt: nope",
        ),
        (json!({"ref": prompt_ref(), "argument": {"name": "colour", "value": ""}}), "Unknown argument `colour`"),
        (
            json!({"ref": {"type": "ref/resource", "uri": "projects://{other}"}, "argument": {"name": "other", "value": ""}}),
            "Resource not found",
        ),
        (
            json!({"ref": {"type": "ref/resource", "uri": "projects://{project}/files/{path}"}, "argument": {"name": "x", "value": ""}}),
            "Unknown argument `x`",
        ),
        (json!({"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "a", "value": ""}}), ""),
        (json!({"ref": prompt_ref()}), ""),
    ];
    for (params, message) in cases {
        let err = complete(&client, params.clone()).await.unwrap_err();
        assert_eq!(err.code, -32602, "{params}");
        if !message.is_empty() {
            assert_eq!(err.message, message, "{params}");
        }
    }
}

/// A prompt with nothing to complete.
#[prompt]
fn plain() -> String {
    "plain".into()
}

#[tokio::test]
async fn without_completers_the_capability_is_absent_and_the_method_unknown() {
    let server = Server::builder("plain", "1.0.0").handlers(handlers![plain]).build().unwrap();
    assert_eq!(server.capabilities().completions, None);
    let client = TestClient::new(&server);
    let err = complete(
        &client,
        json!({"ref": {"type": "ref/prompt", "name": "plain"}, "argument": {"name": "a", "value": ""}}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, -32601);
}
