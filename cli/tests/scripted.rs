//! The command without a terminal, as CI runs it: answers from a file, a decline for what has
//! no answer (exit 5, nothing deleted), JSON that parses, and one exit code per kind of failure.

mod common;

use common::{NotesData, TPS_NOTES, notes_over_stdio, notes_server, python_server, run, text};
use mcp_rounds_tests::http::HttpProcess;
use serde_json::{Value, json};

fn answers(data: &NotesData, name: &str, answers: Value) -> String {
    let path = data.beside(name);
    std::fs::write(&path, answers.to_string()).unwrap();
    path.display().to_string()
}

fn delete_args(uri: &str) -> Vec<&str> {
    vec!["tools", "call", "notes_delete", uri, "title=tps report"]
}

#[test]
fn answers_from_a_file_complete_the_delete_and_json_is_the_result() {
    let data = NotesData::new("answers");
    let file = answers(
        &data,
        "a.json",
        json!({"choice": {"action": "accept", "content": {"note": "tps-report-draft-old", "confirm": true}}}),
    );
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let mut args = vec!["--json"];
    args.extend(delete_args(&uri));
    args.extend(["--answers", &file]);
    let output = run(&args, &notes_over_stdio(&data));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).expect("--json prints JSON");
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["content"], json!([{"type": "text", "text": "Deleted tps-report-draft-old."}]));
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "notes-server");
    assert!(result.get("isError").is_none());
    assert_eq!(data.notes().iter().filter(|n| n.starts_with("tps-")).count(), 2);
    assert!(!data.notes().contains(&"tps-report-draft-old".to_owned()));
}

#[test]
fn a_missing_answer_declines_names_the_request_and_exits_5() {
    let data = NotesData::new("unanswered");
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let output = run(&delete_args(&uri), &notes_over_stdio(&data));
    assert_eq!(output.status.code(), Some(5), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(r#"declined form `choice` ("3 notes match \"tps report\". Which one should be deleted?")"#),
        "{stderr}"
    );
    assert!(stderr.contains("no terminal to ask"), "{stderr}");
    assert_eq!(text(&output.stdout), "Declined; nothing was deleted.\n");
    for note in TPS_NOTES {
        assert!(data.notes().contains(&note.to_owned()), "{note} is still there");
    }
}

#[test]
fn a_2025_11_25_servers_request_is_keyed_by_method_and_count() {
    let data = NotesData::new("legacy-key");
    let file = answers(
        &data,
        "a.json",
        json!({"elicitation/create#1": {"action": "accept", "content": {"note": "tps-report-2026-q1", "confirm": true}}}),
    );
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let mut args = delete_args(&uri);
    args.extend(["--protocol", "2025-11-25", "--answers", &file]);
    let output = run(&args, &notes_over_stdio(&data));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "Deleted tps-report-2026-q1.\n");
}

#[test]
fn a_wrong_answer_in_the_file_is_a_usage_error_naming_its_key() {
    let data = NotesData::new("bad-answer");
    let file = answers(&data, "a.json", json!({"choice": {"action": "maybe"}}));
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let mut args = delete_args(&uri);
    args.extend(["--answers", &file]);
    let output = run(&args, &notes_over_stdio(&data));
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("the answer under `choice` is not an elicitation result"));
    assert_eq!(data.notes().iter().filter(|n| n.starts_with("tps-")).count(), 3);
}

#[test]
fn each_kind_of_failure_has_its_exit_code_and_names_what_is_wrong() {
    let data = NotesData::new("failures");
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let server = notes_over_stdio(&data);
    let cases: [(&[&str], i32, &str); 5] = [
        (&["tools", "call", "notes_list", &uri, "query=x", "bogus=1"], 2, "tool `notes_list` has no argument `bogus`"),
        (&["tools", "call", "notes_delete", &uri], 2, "tool `notes_delete` needs argument `title` (string)"),
        (&["tools", "call", "no_such_tool"], 2, "the server has no tool `no_such_tool` (it has: notes_create,"),
        (&["tools", "call", "notes_delete", &uri, "title=no such note"], 1, "No note in file://"),
        (&["prompts", "get", "nope"], 2, "the server has no prompt `nope`"),
    ];
    for (args, code, message) in cases {
        let output = run(args, &server);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    let output = run(&["tools", "list"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("which server? give --url URL"), "{}", text(&output.stderr));
    let output = run(&["tools", "list", "--protocol", "2024"], &[]);
    assert_eq!(output.status.code(), Some(2), "clap's usage code");
    let output = run(&["tools", "list", "--url", "http://127.0.0.1:9/mcp"], &[]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("cannot reach the server"), "{}", text(&output.stderr));
}

#[test]
fn over_http_without_a_token_the_exit_code_says_authorization_is_needed() {
    let data = NotesData::new("http-auth");
    let server = HttpProcess::spawn(notes_server().to_str().unwrap(), &["--data", data.arg()]);
    let url = format!("http://{}/mcp", server.address);
    let output = run(&["tools", "list", "--url", &url], &[]);
    assert_eq!(output.status.code(), Some(6), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("--bearer"), "{}", text(&output.stderr));
    let token = data.token();
    // A tool with a view names it: the notes board, under its content hash.
    let output = run(&["tools", "list", "--url", &url, "--bearer", &token], &[]);
    let listed = text(&output.stdout);
    let after_list = listed.split_once("notes_list").map(|(_, rest)| rest).unwrap_or_default();
    let mut paragraph = after_list.lines().skip(1).take_while(|l| l.starts_with("  "));
    let view = paragraph.find(|l| l.trim_start().starts_with("view:")).unwrap_or_default();
    assert!(view.contains("ui://notes/board?v="), "{listed}");
    let output = run(&["--json", "tools", "list", "--url", &url, "--bearer", &token], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(7), "every tool: {listed}");
    server.stop();
}

#[test]
fn sampling_without_a_terminal_stops_or_is_answered_by_the_sampling_command() {
    let output = run(&["tools", "call", "haiku", "topic=rust"], &python_server());
    assert_eq!(output.status.code(), Some(5), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("could not answer sampling request"), "{stderr}");
    // The command reads the request on its stdin and answers with what it prints.
    let command =
        r#"python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["messages"][0]["content"]["text"].upper())'"#;
    let output = run(&["tools", "call", "haiku", "topic=rust", "--sampling-command", command], &python_server());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "python3 wrote: WRITE A HAIKU ABOUT RUST.\n");
}

#[test]
fn verbose_shows_each_rounds_messages() {
    let data = NotesData::new("verbose");
    let file = answers(&data, "a.json", json!({"choice": {"action": "decline"}}));
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let mut args = delete_args(&uri);
    args.extend(["--answers", &file, "--verbose"]);
    let output = run(&args, &notes_over_stdio(&data));
    assert_eq!(output.status.code(), Some(5), "a declined form exits 5: {}", text(&output.stderr));
    let stderr = text(&output.stderr);
    let calls: Vec<&str> = stderr.lines().filter(|l| l.starts_with("→ ") && l.contains("\"tools/call\"")).collect();
    assert_eq!(calls.len(), 2, "two rounds: {stderr}");
    assert!(calls[1].contains(r#""inputResponses":{"choice":{"action":"decline"}}"#), "{}", calls[1]);
    assert!(stderr.lines().any(|l| l.starts_with("← ") && l.contains("\"input_required\"")), "{stderr}");
    assert!(stderr.contains("form `choice`") && stderr.contains("was declined"), "{stderr}");
}

#[test]
fn roots_are_given_from_the_command_line() {
    let roots = ["--root", "/tmp/my notes", "--root", "file:///srv"];
    let output = run(&[&["tools", "call", "roots"][..], &roots].concat(), &python_server());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "file:///tmp/my%20notes\nfile:///srv\n");
    let output = run(&["tools", "call", "roots", "--root", "https://example.com/repo"], &python_server());
    assert_eq!(output.status.code(), Some(2), "refused before anything is sent");
    assert!(text(&output.stderr).contains("a root is a directory or a file:// URI"), "{}", text(&output.stderr));
    let output = run(&["tools", "call", "roots"], &python_server());
    assert_eq!(output.status.code(), Some(5), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("could not answer roots request"), "{}", text(&output.stderr));
}

#[test]
fn help_lists_the_exit_codes_and_never_a_token() {
    let output = std::process::Command::new(common::mcp_rounds())
        .arg("--help")
        .env("MCP_BEARER_TOKEN", "s3cret-in-the-environment")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let help = text(&output.stdout);
    for line in ["0  success", "5  input declined", "6  authorization needed", "[env: MCP_BEARER_TOKEN]"] {
        assert!(help.contains(line), "{line:?} in:\n{help}");
    }
    assert!(!help.contains("s3cret"), "{help}");
}
