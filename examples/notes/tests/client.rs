//! The notes server driven by the mcp-rounds client over stdio and Streamable HTTP, in both
//! protocol eras, with every round kind its tools ask answered by one handler: the form of
//! `notes_delete` (which note, and a confirmation) and the two sampling rounds of
//! `summarize_notes`.

use mcp_rounds::client::{ChildProcess, Client, Lifecycle, StreamableHttp};
use mcp_rounds_tests::client::{Asked, Scripted, bounded, builder, expected_protocol, text};
use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::notes::NotesData;
use serde_json::{Value, json};

const DELETE_FORM: &str = "3 notes match \"tps report\". Which one should be deleted?";

fn notes_forms(message: &str) -> Value {
    match message {
        DELETE_FORM => json!({"note": "tps-report-draft-old", "confirm": true}),
        _ => Value::Null,
    }
}

const PICK_PROMPT: &str = "These are the notes of a workspace, as id: title.\n\
    - tps-report-2026-q1: TPS report Q1 2026\n\
    - tps-report-cover-sheet: TPS Report cover sheet\n\n\
    Which of them (at most 5) best represent the workspace? Answer with a JSON array of their ids and nothing else.";

const SUMMARY_PROMPT: &str = "Summarize these notes in a short paragraph.\n\n\
    ## TPS report Q1 2026\n\
    # TPS report Q1 2026\n\nNumbers for the first quarter. Remember the new cover sheet.\n";

const SUMMARY: &str = "The first quarter's numbers, with the new cover sheet.";

fn notes_model(prompt: &str) -> String {
    match prompt {
        PICK_PROMPT => r#"["tps-report-2026-q1"]"#.to_owned(),
        SUMMARY_PROMPT => format!("  {SUMMARY}\n"),
        other => format!("(no reply scripted for {other:?})"),
    }
}

/// Deletes a note through its form, then summarizes through two sampling rounds, and checks
/// the results and what the handler saw.
async fn drive_notes_server(client: &Client, handler: &Scripted, data: &NotesData, lifecycle: Lifecycle) {
    assert_eq!(client.protocol(), &expected_protocol(lifecycle));
    assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("notes-server"));
    let workspace = data.workspace_uri();

    let deleted = client
        .call_tool("notes_delete", json!({"workspaceUri": workspace, "title": "tps report"}))
        .await
        .expect("notes_delete");
    assert_eq!(text(&deleted), "Deleted tps-report-draft-old.");
    assert!(!data.notes().contains(&"tps-report-draft-old".to_owned()), "the note is gone: {:?}", data.notes());

    let summary = client
        .call_tool("summarize_notes", json!({"workspaceUri": workspace, "query": "tps"}))
        .await
        .expect("summarize_notes");
    assert_eq!(summary.structured_content, Some(json!({"picks": ["tps-report-2026-q1"], "summary": SUMMARY})));

    let seen = handler.seen();
    assert_eq!(seen.len(), 3, "one form and two samplings: {seen:#?}");
    let Asked::Form { message, schema } = &seen[0] else { panic!("a form first: {seen:#?}") };
    assert_eq!(message, DELETE_FORM);
    let offered: Vec<&str> = schema["properties"]["note"]["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("a choice of notes: {schema}"))
        .iter()
        .map(|o| o["const"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["tps-report-2026-q1", "tps-report-cover-sheet", "tps-report-draft-old"]);
    assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
    assert_eq!(
        seen[1..],
        [
            Asked::Sampling {
                system: Some("You pick notes. Answer only with a JSON array of note ids.".into()),
                prompt: PICK_PROMPT.into(),
                max_tokens: 200,
            },
            Asked::Sampling { system: None, prompt: SUMMARY_PROMPT.into(), max_tokens: 600 },
        ]
    );
}

async fn notes_stdio(name: &str, lifecycle: Lifecycle) {
    let binary = env!("CARGO_BIN_EXE_notes-server");
    let data = NotesData::new(name);
    let handler = Scripted::new(notes_forms, notes_model);
    bounded("the notes server over stdio", async {
        let child = ChildProcess::new(binary).args(["--data", data.arg(), "--stdio"]);
        let client = builder(&handler, lifecycle).connect(child).await.expect("connect");
        drive_notes_server(&client, &handler, &data, lifecycle).await;
        client.close().await;
    })
    .await;
}

async fn notes_http(name: &str, lifecycle: Lifecycle) {
    let binary = env!("CARGO_BIN_EXE_notes-server");
    let data = NotesData::new(name);
    let server = HttpProcess::spawn(binary, &["--data", data.arg()]);
    let handler = Scripted::new(notes_forms, notes_model);
    let http = StreamableHttp::new(format!("http://{}/mcp", server.address)).bearer(data.token());
    bounded("the notes server over HTTP", async {
        let client = builder(&handler, lifecycle).connect(http).await.expect("connect");
        drive_notes_server(&client, &handler, &data, lifecycle).await;
        client.close().await;
    })
    .await;
    server.stop();
}

#[tokio::test]
async fn notes_server_over_stdio_auto() {
    notes_stdio("stdio-auto", Lifecycle::Auto).await;
}

#[tokio::test]
async fn notes_server_over_stdio_legacy() {
    notes_stdio("stdio-legacy", Lifecycle::Legacy).await;
}

#[tokio::test]
async fn notes_server_over_http_auto() {
    notes_http("http-auto", Lifecycle::Auto).await;
}

#[tokio::test]
async fn notes_server_over_http_legacy() {
    notes_http("http-legacy", Lifecycle::Legacy).await;
}
