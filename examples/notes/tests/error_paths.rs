//! Every error path of the notes server's contract, as raw JSON-RPC over stdio (and over HTTP
//! where the path is about HTTP): scope refusals, state refusals, capability errors, model
//! answers, unknown and foreign note URIs, the symlink escape and unanswered notifications,
//! each with its exact code and data and a look at which note files are left.

mod common;

use std::time::{Duration, Instant};

use common::*;
use mcp_rounds_tests::http::{HttpProcess, HttpResponse, request as http_request};
use mcp_rounds_tests::stdio::StdioProcess;
use mcp_rounds_tests::{request, wait};
use serde_json::{Value, json};

fn read(id: i64, uri: &str) -> Value {
    request(json!(id), "resources/read", json!({"uri": uri}))
}

fn review(id: i64, uri: &str) -> Value {
    request(json!(id), "prompts/get", json!({"name": "review_note", "arguments": {"uri": uri}}))
}

fn summarize(id: i64, workspace: &str, query: Option<&str>) -> Value {
    let mut arguments = json!({"workspaceUri": workspace});
    if let Some(query) = query {
        arguments["query"] = json!(query);
    }
    tool(id, "summarize_notes", arguments, sampling())
}

/// Every scope-checked tool pointed at `workspace`, each with arguments that would otherwise
/// do something (the delete and summary also declare the capabilities they need).
fn every_tool_on(workspace: &str, first_id: i64) -> Vec<Value> {
    let ws = json!(workspace);
    vec![
        delete_call(first_id, workspace, "report"),
        tool(first_id + 1, "notes_list", json!({"workspaceUri": ws}), json!({})),
        tool(first_id + 2, "notes_read", json!({"workspaceUri": ws, "id": "salaries"}), json!({})),
        tool(first_id + 3, "notes_create", json!({"workspaceUri": ws, "title": "Planted", "body": "x"}), json!({})),
        tool(first_id + 4, "notes_edit", json!({"workspaceUri": ws, "id": "salaries", "body": "x"}), json!({})),
        summarize(first_id + 5, workspace, None),
    ]
}

fn listed_ids(response: &Value) -> Vec<String> {
    let notes = response["result"]["structuredContent"]["notes"].as_array().unwrap_or_else(|| panic!("{response}"));
    notes.iter().map(|n| n["id"].as_str().unwrap().to_owned()).collect()
}

/// The seeded notes a listing shows: every seeded file but the symlink.
fn real_notes() -> Vec<String> {
    SEEDED.iter().filter(|id| **id != "private-link").map(|id| (*id).to_owned()).collect()
}

#[test]
fn prefix_confusion_never_reaches_a_sibling_workspace() {
    let data = DataDir::seeded("err-prefix");
    let evil = data.path.join("workspace-evil");
    std::fs::create_dir(&evil).unwrap();
    std::fs::write(evil.join("tps-report-evil.md"), "# TPS report evil\n").unwrap();
    let ws = data.workspace_uri();
    let mut server = data.stdio();

    // A string-prefix check would take each of these for the granted workspace.
    let variants = [format!("{ws}-evil"), format!("{ws}-evil/"), format!("{ws}%2devil"), format!("{ws}2")];
    for (n, uri) in variants.iter().enumerate() {
        for message in every_tool_on(uri, 10 * n as i64) {
            assert_not_yours(&ask(&mut server, &message), uri);
        }
    }
    assert_no_resource(
        &ask(&mut server, &read(99, "notes://workspace-evil/tps-report-evil")),
        "notes://workspace-evil/tps-report-evil",
    );

    assert_eq!(md_stems(&evil), ["tps-report-evil"], "nothing planted, nothing removed");
    data.assert_intact();
}

#[test]
fn every_encoded_traversal_variant_is_refused() {
    let data = DataDir::seeded("err-traversal");
    let ws = data.workspace_uri();
    let path = ws.trim_start_matches("file://");
    let mut server = data.stdio();

    let variants = [
        format!("{ws}/../workspace-private"),
        format!("{ws}/./../workspace-private"),
        format!("{ws}/%2e%2e/workspace-private"),
        format!("{ws}/%2E%2E/workspace-private"),
        format!("{ws}/.%2e/workspace-private"),
        format!("{ws}/%2e./workspace-private"),
        format!("{ws}/..%2fworkspace-private"),
        format!("{ws}/%2e%2e%2fworkspace-private"),
        format!("{ws}/%2e%2e%2Fworkspace-private"),
        format!("{ws}%2f..%2fworkspace-private"),
        format!("{ws}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc"),
        format!("{ws}/%252e%252e/workspace-private"),
        format!("file://localhost{path}/%2e%2e/workspace-private"),
        format!("{ws}/sub"),
    ];
    for (n, uri) in variants.iter().enumerate() {
        for message in every_tool_on(uri, 10 * n as i64) {
            assert_not_yours(&ask(&mut server, &message), uri);
        }
    }

    // The dot segments are decoded and resolved, not merely rejected: these name the workspace.
    for (n, uri) in [format!("{ws}/%2e%2e/workspace"), format!("{ws}/sub/%2e%2e"), format!("{ws}/")].iter().enumerate()
    {
        let listed = ask(&mut server, &tool(200 + n as i64, "notes_list", json!({"workspaceUri": uri}), json!({})));
        assert_eq!(listed_ids(&listed), real_notes(), "{uri}");
    }

    // Traversal in a note id, whatever the encoding, names no note.
    let ids = [
        "../workspace-private/salaries",
        "../../workspace-private/salaries",
        "..%2fworkspace-private%2fsalaries",
        "%2e%2e%2fworkspace-private%2fsalaries",
        "..",
    ];
    for (n, id) in ids.iter().enumerate() {
        let n = 300 + 2 * n as i64;
        let read_it = tool(n, "notes_read", json!({"workspaceUri": ws, "id": id}), json!({}));
        assert_tool_error(&ask(&mut server, &read_it), "no such note");
        let edit_it = tool(n + 1, "notes_edit", json!({"workspaceUri": ws, "id": id, "body": "x"}), json!({}));
        assert_tool_error(&ask(&mut server, &edit_it), "no such note");
    }

    // And in a note URI, through a read and through the prompt.
    let uris = [
        "notes://workspace/..%2fworkspace-private%2fsalaries",
        "notes://workspace/%2e%2e%2fworkspace-private%2fsalaries",
        "notes://workspace/../workspace-private/salaries",
        "notes://workspace/%2e%2e",
        "notes://workspace%2f..%2fworkspace-private/salaries",
    ];
    for (n, uri) in uris.iter().enumerate() {
        assert_no_resource(&ask(&mut server, &read(400 + n as i64, uri)), uri);
        assert_no_resource(&ask(&mut server, &review(450 + n as i64, uri)), uri);
    }

    data.assert_intact();
}

#[test]
fn the_symlinked_private_note_is_unreachable_through_every_tool_resource_and_prompt() {
    let data = DataDir::seeded("err-symlink");
    // A workspace URI that is itself a link to the private directory.
    std::os::unix::fs::symlink("workspace-private", data.path.join("workspace-alias")).unwrap();
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let mut answers = Vec::new();
    let mut exchange = |server: &mut StdioProcess, message: Value| {
        let response = ask(server, &message);
        answers.push(response.clone());
        response
    };

    let listed = exchange(&mut server, tool(1, "notes_list", json!({"workspaceUri": ws}), json!({})));
    assert_eq!(listed_ids(&listed), real_notes(), "a link is not a note");
    let read_link = tool(2, "notes_read", json!({"workspaceUri": ws, "id": "private-link"}), json!({}));
    assert_tool_error(&exchange(&mut server, read_link), "no such note");
    let edit_link =
        tool(3, "notes_edit", json!({"workspaceUri": ws, "id": "private-link", "body": "overwritten"}), json!({}));
    assert_tool_error(&exchange(&mut server, edit_link), "no such note");
    let delete = exchange(&mut server, delete_call(4, &ws, "salaries"));
    assert_tool_error(&delete, &format!("No note in {ws} has a title containing \"salaries\"."));
    let summary = exchange(&mut server, summarize(5, &ws, Some("salaries")));
    assert_tool_error(&summary, "There are no notes to summarize.");

    // The model is never offered the link, and cannot pick it anyway.
    let first = summarize(6, &ws, None);
    let (requests, state) = input_required(&exchange(&mut server, first.clone()));
    let prompt = requests["picks"]["params"]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(!prompt.contains("private-link") && !prompt.contains("Salaries"), "{prompt}");
    let picked = exchange(&mut server, retry(&first, 7, model_says("picks", r#"["private-link"]"#), &state));
    assert_bad_field(&picked, "inputResponses.picks");

    let listed = exchange(&mut server, request(json!(8), "resources/list", json!({})));
    let mut uris: Vec<&str> =
        listed["result"]["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    let board = uris.pop().unwrap();
    assert!(board.starts_with("ui://notes/board?v="), "the board comes last: {board}");
    let mut expected: Vec<String> = real_notes().iter().map(|id| format!("notes://workspace/{id}")).collect();
    expected.push("skill://tps-report-writing/SKILL.md".into());
    assert_eq!(uris, expected, "the notes, the seed's skill and the board, nothing else");
    for (n, uri) in ["notes://workspace/private-link", "notes://workspace-private/salaries"].iter().enumerate() {
        assert_no_resource(&exchange(&mut server, read(10 + n as i64, uri)), uri);
        assert_no_resource(&exchange(&mut server, review(20 + n as i64, uri)), uri);
    }

    let alias = data.sibling_uri("workspace-alias");
    for message in every_tool_on(&alias, 30) {
        assert_not_yours(&exchange(&mut server, message), &alias);
    }

    // Creating over the link's name picks a fresh id instead of writing through the link.
    let create =
        tool(40, "notes_create", json!({"workspaceUri": ws, "title": "Private link", "body": "mine"}), json!({}));
    let created = exchange(&mut server, create);
    assert_eq!(created["result"]["structuredContent"]["id"], "private-link-2", "{created}");

    for answer in &answers {
        assert!(!answer.to_string().contains("Not for the demo principal"), "the private text leaked: {answer}");
    }
    let mut expected: Vec<&str> = SEEDED.to_vec();
    expected.insert(2, "private-link-2");
    assert_eq!(data.notes(), expected);
    assert_eq!(data.salaries(), SALARIES);
    assert!(std::fs::symlink_metadata(data.workspace().join("private-link.md")).unwrap().file_type().is_symlink());
}

#[test]
fn an_unauthorized_workspace_is_a_tool_error_never_an_elicitation() {
    let data = DataDir::seeded("err-unauthorized");
    let theirs = data.add_principal("other", "other-token-0123456789", "other-notes", &[]);
    let mut server = data.stdio();

    // An existing, real directory demo was never granted, and another principal's workspace.
    let private = data.sibling_uri("workspace-private");
    for (n, uri) in [&private, &theirs].into_iter().enumerate() {
        for message in every_tool_on(uri, 10 * n as i64) {
            assert_not_yours(&ask(&mut server, &message), uri);
        }
    }
    for (n, uri) in
        ["https://example.com/workspace", "file://evil.example/srv/notes", "workspace", ""].iter().enumerate()
    {
        let response = ask(&mut server, &delete_call(50 + n as i64, uri, "report"));
        assert_tool_error(&response, &format!("a workspace is named by a file:// URI of a directory; got {uri:?}"));
    }

    assert_eq!(md_stems(&data.path.join("workspace-private")), ["salaries"], "nothing planted");
    assert_eq!(md_stems(&data.path.join("other-notes")), ["their-plans"]);
    data.assert_intact();
}

#[test]
fn a_changed_title_or_workspace_cannot_reuse_the_state() {
    let data = DataDir::seeded("err-changed");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = delete_call(1, &ws, "tps report");
    let (requests, state) = input_required(&ask(&mut server, &first));
    assert_eq!(offered(&requests), TPS);

    let changed = [
        delete_call(0, &ws, "tps"),
        delete_call(0, &ws, "TPS report"),
        delete_call(0, &ws, "roadmap"),
        delete_call(0, &format!("{ws}/"), "tps report"),
    ];
    for (n, other) in changed.iter().enumerate() {
        let response = ask(&mut server, &retry(other, 10 + n as i64, accept("tps-report-cover-sheet"), &state));
        assert_state_refused(&response);
    }
    data.assert_intact();

    // The refusals spent nothing: the original request still completes.
    let done = ask(&mut server, &retry(&first, 20, accept("tps-report-cover-sheet"), &state));
    assert_done(&done, "Deleted tps-report-cover-sheet.");
    data.assert_notes_without(&["tps-report-cover-sheet"]);
}

fn flip(state: &str, at: usize) -> String {
    let mut bytes = state.as_bytes().to_vec();
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_tampered_state_is_refused_and_spends_nothing() {
    let data = DataDir::seeded("err-tampered");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = delete_call(1, &ws, "tps report");
    let (_, state) = input_required(&ask(&mut server, &first));
    let (_, summary_state) = input_required(&ask(&mut server, &summarize(2, &ws, None)));

    let len = state.len();
    // Away from the last character, whose low bits may be base64 padding.
    let tampered = [
        flip(&state, 0),
        flip(&state, 12),
        flip(&state, len / 2),
        flip(&state, len - 5),
        state[..len - 8].to_owned(),
        format!("{state}AAAA"),
        String::new(),
        "not a state at all!".to_owned(),
        summary_state,
    ];
    for (n, bad) in tampered.iter().enumerate() {
        let response = ask(&mut server, &retry(&first, 10 + n as i64, accept("tps-report-2026-q1"), bad));
        assert_state_refused(&response);
    }
    data.assert_intact();

    let done = ask(&mut server, &retry(&first, 30, accept("tps-report-2026-q1"), &state));
    assert_done(&done, "Deleted tps-report-2026-q1.");
    data.assert_notes_without(&["tps-report-2026-q1"]);
}

#[test]
fn a_state_minted_for_one_principal_is_refused_to_another() {
    let data = DataDir::seeded("err-principal");
    let ws = data.workspace_uri();
    // Both may use the workspace, so only the principal bound into the state tells them apart.
    data.add_principal("other", "other-token-0123456789", "other-notes", &[&ws]);
    let mut demo = data.stdio();
    data.replace_in_config("stdio_principal = \"demo\"", "stdio_principal = \"other\"");
    let mut other = data.stdio();

    let first = delete_call(1, &ws, "tps report");
    let (_, state) = input_required(&ask(&mut demo, &first));
    assert_state_refused(&ask(&mut other, &retry(&first, 2, accept("tps-report-2026-q1"), &state)));
    data.assert_intact();
    assert_done(
        &ask(&mut demo, &retry(&first, 3, accept("tps-report-2026-q1"), &state)),
        "Deleted tps-report-2026-q1.",
    );
    data.assert_notes_without(&["tps-report-2026-q1"]);
}

#[test]
fn a_candidate_outside_the_signed_set_is_refused_before_the_nonce_is_spent() {
    let data = DataDir::seeded("err-candidate");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = delete_call(1, &ws, "tps report");
    let (requests, state) = input_required(&ask(&mut server, &first));
    assert_eq!(offered(&requests), TPS);

    let outside = ["roadmap-meeting", "private-link", "../workspace-private/salaries", "no-such-note", ""];
    for (n, note) in outside.iter().enumerate() {
        let response = ask(&mut server, &retry(&first, 10 + n as i64, accept(note), &state));
        assert_bad_field(&response, "inputResponses.choice.note");
    }
    data.assert_intact();

    let done = ask(&mut server, &retry(&first, 20, accept("tps-report-draft-old"), &state));
    assert_done(&done, "Deleted tps-report-draft-old.");
    data.assert_notes_without(&["tps-report-draft-old"]);
}

#[test]
fn url_only_and_missing_form_capabilities_get_32021_with_the_exact_data() {
    let data = DataDir::seeded("err-form-cap");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let arguments = json!({"workspaceUri": ws, "title": "tps report"});

    let lacking = [
        json!({}),
        json!({"elicitation": {"url": {}}}),
        json!({"sampling": {}}),
        json!({"sampling": {}, "elicitation": {"url": {}}}),
    ];
    for (n, capabilities) in lacking.into_iter().enumerate() {
        let response = ask(&mut server, &tool(n as i64, "notes_delete", arguments.clone(), capabilities));
        assert_error(&response, -32021, json!({"requiredCapabilities": {"elicitation": {"form": {}}}}));
    }
    let enough = [
        json!({"elicitation": {}}),
        json!({"elicitation": {"form": {}}}),
        json!({"elicitation": {"form": {}, "url": {}}}),
    ];
    for (n, capabilities) in enough.into_iter().enumerate() {
        let response = ask(&mut server, &tool(10 + n as i64, "notes_delete", arguments.clone(), capabilities));
        assert_eq!(offered(&input_required(&response).0), TPS);
    }
    data.assert_intact();
}

#[test]
fn a_missing_sampling_capability_gets_32021_in_either_round() {
    let data = DataDir::seeded("err-sampling-cap");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let arguments = json!({"workspaceUri": ws});
    let required = json!({"requiredCapabilities": {"sampling": {}}});

    for (n, capabilities) in
        [json!({}), json!({"elicitation": {}}), json!({"elicitation": {"form": {}}})].into_iter().enumerate()
    {
        let response = ask(&mut server, &tool(n as i64, "summarize_notes", arguments.clone(), capabilities));
        assert_error(&response, -32021, required.clone());
    }

    // The second round asks the model again, so its retry needs the capability too.
    let first = summarize(10, &ws, None);
    let (_, state) = input_required(&ask(&mut server, &first));
    let mut without = retry(&first, 11, model_says("picks", r#"["roadmap-meeting"]"#), &state);
    without["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    assert_error(&ask(&mut server, &without), -32021, required);
    let with = retry(&first, 12, model_says("picks", r#"["roadmap-meeting"]"#), &state);
    let (requests, _) = input_required(&ask(&mut server, &with));
    assert_eq!(requests["summary"]["method"], "sampling/createMessage");
}

#[test]
fn invalid_model_answers_are_refused_and_the_round_can_be_answered_again() {
    let data = DataDir::seeded("err-model");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = summarize(1, &ws, None);
    let (_, state) = input_required(&ask(&mut server, &first));

    let bad_picks = [
        "nope",
        "[roadmap-meeting]",
        r#""roadmap-meeting""#,
        r#"{"picks": ["roadmap-meeting"]}"#,
        "[1, 2]",
        "[]",
        r#"["salaries"]"#,
        r#"["private-link"]"#,
        r#"["roadmap-meeting", "../workspace-private/salaries"]"#,
        r#"["offsite-ideas", "reading-list", "roadmap-meeting", "tps-report-2026-q1", "tps-report-cover-sheet", "tps-report-draft-old"]"#,
    ];
    for (n, text) in bad_picks.iter().enumerate() {
        let response = ask(&mut server, &retry(&first, 10 + n as i64, model_says("picks", text), &state));
        assert_bad_field(&response, "inputResponses.picks");
    }
    // Not a sampling result at all.
    let malformed = json!({"picks": {"role": "assistant", "model": "m"}});
    assert_bad_field(&ask(&mut server, &retry(&first, 30, malformed, &state)), "inputResponses.picks");

    let (requests, summary_state) =
        input_required(&ask(&mut server, &retry(&first, 31, model_says("picks", r#"["reading-list"]"#), &state)));
    assert!(requests.get("summary").is_some(), "{requests}");
    for (n, text) in ["", "   \n"].iter().enumerate() {
        let response = ask(&mut server, &retry(&first, 40 + n as i64, model_says("summary", text), &summary_state));
        assert_bad_field(&response, "inputResponses.summary");
    }
    let done = ask(&mut server, &retry(&first, 50, model_says("summary", "A list."), &summary_state));
    assert_eq!(done["result"]["structuredContent"], json!({"picks": ["reading-list"], "summary": "A list."}));
}

#[test]
fn the_sampling_flow_is_input_required_twice_then_complete() {
    let data = DataDir::seeded("err-sampling-flow");
    let ws = data.workspace_uri();
    let mut server = data.stdio();

    let first = summarize(1, &ws, None);
    let one = ask(&mut server, &first);
    let (requests, state) = input_required(&one);
    assert_eq!(requests.as_object().unwrap().keys().collect::<Vec<_>>(), ["picks"]);
    let picks = &requests["picks"];
    assert_eq!(picks["method"], "sampling/createMessage");
    assert!(picks["params"].get("includeContext").is_none_or(|c| c == "none"), "{picks}");
    let prompt = picks["params"]["messages"][0]["content"]["text"].as_str().unwrap();
    for id in real_notes() {
        assert!(prompt.contains(&format!("- {id}: ")), "the prompt lists {id}: {prompt}");
    }

    let two =
        ask(&mut server, &retry(&first, 2, model_says("picks", r#"["roadmap-meeting", "reading-list"]"#), &state));
    let (requests, state) = input_required(&two);
    assert_eq!(requests.as_object().unwrap().keys().collect::<Vec<_>>(), ["summary"]);
    let prompt = requests["summary"]["params"]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(prompt.contains("# Roadmap meeting") && prompt.contains("# Reading list"), "{prompt}");
    assert!(!prompt.contains("TPS"), "only the picked notes: {prompt}");

    let three = ask(&mut server, &retry(&first, 3, model_says("summary", "Plans and books."), &state));
    let result = &three["result"];
    assert_eq!(result["resultType"], "complete", "{three}");
    assert!(result.get("isError").is_none() && result.get("requestState").is_none(), "{three}");
    assert_eq!(
        result["structuredContent"],
        json!({"picks": ["roadmap-meeting", "reading-list"], "summary": "Plans and books."})
    );
    assert_eq!([&one["id"], &two["id"], &three["id"]], [1, 2, 3]);
}

#[test]
fn changed_summarize_arguments_between_rounds_fail_verification() {
    let data = DataDir::seeded("err-summarize-args");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = summarize(1, &ws, Some("report"));
    let (requests, state) = input_required(&ask(&mut server, &first));
    let prompt = requests["picks"]["params"]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(prompt.contains("- tps-report-2026-q1: ") && !prompt.contains("roadmap"), "{prompt}");

    let answer = model_says("picks", r#"["tps-report-2026-q1"]"#);
    let changed =
        [summarize(0, &ws, Some("roadmap")), summarize(0, &ws, None), summarize(0, &format!("{ws}/"), Some("report"))];
    for (n, other) in changed.iter().enumerate() {
        assert_state_refused(&ask(&mut server, &retry(other, 10 + n as i64, answer.clone(), &state)));
    }

    let (_, state) = input_required(&ask(&mut server, &retry(&first, 20, answer, &state)));
    let summary = model_says("summary", "Quarterly numbers.");
    assert_state_refused(&ask(&mut server, &retry(&summarize(0, &ws, Some("tps")), 21, summary.clone(), &state)));
    let done = ask(&mut server, &retry(&first, 22, summary, &state));
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"picks": ["tps-report-2026-q1"], "summary": "Quarterly numbers."})
    );
}

#[test]
fn decline_is_terminal_and_deletes_nothing() {
    let data = DataDir::seeded("err-decline");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = delete_call(1, &ws, "tps report");

    let (_, state) = input_required(&ask(&mut server, &first));
    assert_done(&ask(&mut server, &retry(&first, 2, decline(), &state)), "Declined; nothing was deleted.");
    data.assert_intact();
    for (n, answer) in [accept("tps-report-2026-q1"), decline(), cancel()].into_iter().enumerate() {
        assert_state_refused(&ask(&mut server, &retry(&first, 3 + n as i64, answer, &state)));
    }
    data.assert_intact();

    // An accepted form without the confirmation is a decision too.
    let (_, state) = input_required(&ask(&mut server, &first));
    let unconfirmed =
        json!({"choice": {"action": "accept", "content": {"note": "tps-report-2026-q1", "confirm": false}}});
    assert_done(&ask(&mut server, &retry(&first, 11, unconfirmed, &state)), "Not confirmed; nothing was deleted.");
    assert_state_refused(&ask(&mut server, &retry(&first, 12, accept("tps-report-2026-q1"), &state)));
    data.assert_intact();

    // An accept without content is no consent at all: refused, and the state stays usable.
    let (_, state) = input_required(&ask(&mut server, &first));
    let empty = json!({"choice": {"action": "accept"}});
    assert_bad_field(&ask(&mut server, &retry(&first, 21, empty, &state)), "inputResponses.choice.note");
    data.assert_intact();
    assert_done(&ask(&mut server, &retry(&first, 22, decline(), &state)), "Declined; nothing was deleted.");
    data.assert_intact();
}

#[test]
fn cancel_is_retryable_and_a_later_accept_deletes() {
    let data = DataDir::seeded("err-cancel");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = delete_call(1, &ws, "tps report");
    let (_, state) = input_required(&ask(&mut server, &first));

    let cancelled = "Cancelled; nothing was deleted. The confirmation can be asked for again.";
    assert_done(&ask(&mut server, &retry(&first, 2, cancel(), &state)), cancelled);
    data.assert_intact();
    assert_done(&ask(&mut server, &retry(&first, 3, cancel(), &state)), cancelled);
    data.assert_intact();

    assert_done(
        &ask(&mut server, &retry(&first, 4, accept("tps-report-draft-old"), &state)),
        "Deleted tps-report-draft-old.",
    );
    data.assert_notes_without(&["tps-report-draft-old"]);
    assert_state_refused(&ask(&mut server, &retry(&first, 5, accept("tps-report-cover-sheet"), &state)));
    data.assert_notes_without(&["tps-report-draft-old"]);
}

#[test]
fn a_replayed_accepted_state_is_refused_even_after_a_restart() {
    let data = DataDir::seeded("err-replay");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = delete_call(1, &ws, "tps report");
    let (_, state) = input_required(&ask(&mut server, &first));
    assert_done(
        &ask(&mut server, &retry(&first, 2, accept("tps-report-2026-q1"), &state)),
        "Deleted tps-report-2026-q1.",
    );
    data.assert_notes_without(&["tps-report-2026-q1"]);

    let replays = [accept("tps-report-2026-q1"), accept("tps-report-cover-sheet"), decline(), cancel()];
    for (n, answer) in replays.iter().enumerate() {
        assert_state_refused(&ask(&mut server, &retry(&first, 10 + n as i64, answer.clone(), &state)));
    }
    drop(server);
    // The replay store lives in the data directory, not in the process.
    let mut server = data.stdio();
    for (n, answer) in replays.iter().enumerate() {
        assert_state_refused(&ask(&mut server, &retry(&first, 20 + n as i64, answer.clone(), &state)));
    }
    data.assert_notes_without(&["tps-report-2026-q1"]);
}

#[test]
fn an_expired_state_is_refused() {
    let data = DataDir::seeded("err-expired");
    data.replace_in_config("ttl_seconds = 300", "ttl_seconds = 1");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let first = delete_call(1, &ws, "tps report");
    let (_, delete_state) = input_required(&ask(&mut server, &first));
    let summary = summarize(2, &ws, None);
    let (_, summary_state) = input_required(&ask(&mut server, &summary));
    // Both states were signed before this answer came, for the shortest lifetime the config
    // allows (1 s), so a second from now (and a millisecond for the clocks) they have expired.
    // Nothing announces an expiry: this waits for that moment.
    wait::until(Instant::now() + Duration::from_millis(1_001));

    assert_state_refused(&ask(&mut server, &retry(&first, 3, accept("tps-report-2026-q1"), &delete_state)));
    assert_state_refused(&ask(&mut server, &retry(&first, 4, cancel(), &delete_state)));
    let picks = model_says("picks", r#"["roadmap-meeting"]"#);
    assert_state_refused(&ask(&mut server, &retry(&summary, 5, picks, &summary_state)));
    data.assert_intact();
}

/// A data directory with a second principal, `other`, who owns workspace `other-notes`.
fn with_other(name: &str) -> DataDir {
    let data = DataDir::seeded(name);
    data.add_principal("other", "other-token-0123456789", "other-notes", &[]);
    data
}

/// Note URIs `demo` may not read: unknown, malformed, traversing, linked, or someone else's.
fn not_demos(data: &DataDir) -> Vec<String> {
    let mut uris: Vec<String> = [
        "notes://workspace/no-such-note",
        "notes://workspace/private-link",
        "notes://workspace-private/salaries",
        "notes://other-notes/their-plans",
        "notes://nowhere/roadmap-meeting",
        "notes://workspace/roadmap-meeting.md",
        "notes://workspace/",
        "notes://workspace/a/b",
        "notes://workspace/..%2fworkspace-private%2fsalaries",
        "notes:///roadmap-meeting",
        "file:///etc/passwd",
    ]
    .map(str::to_owned)
    .to_vec();
    uris.push(format!("{}/roadmap-meeting.md", data.workspace_uri()));
    uris
}

#[test]
fn unknown_and_foreign_note_uris_are_refused_with_the_uri() {
    let data = with_other("err-uris");
    let mut demo = data.stdio();
    for (n, uri) in not_demos(&data).iter().enumerate() {
        assert_no_resource(&ask(&mut demo, &read(n as i64, uri)), uri);
    }
    let own = ask(&mut demo, &read(50, "notes://workspace/roadmap-meeting"));
    assert_eq!(
        own["result"]["contents"][0]["text"],
        "# Roadmap meeting\n\n- ship the notes example\n- measure against the other SDKs\n"
    );
    assert_eq!((&own["result"]["cacheScope"], &own["result"]["ttlMs"]), (&json!("private"), &json!(0)));

    // The same holds the other way round: demo's notes are foreign to `other`.
    data.replace_in_config("stdio_principal = \"demo\"", "stdio_principal = \"other\"");
    let mut other = data.stdio();
    let uri = "notes://workspace/roadmap-meeting";
    assert_no_resource(&ask(&mut other, &read(1, uri)), uri);
    let theirs = ask(&mut other, &read(2, "notes://other-notes/their-plans"));
    assert_eq!(theirs["result"]["contents"][0]["text"], "# Their plans\n\nOnly for them.\n");
}

#[test]
fn review_note_outside_the_principals_workspaces_is_refused() {
    let data = with_other("err-review");
    let mut demo = data.stdio();
    for (n, uri) in not_demos(&data).iter().enumerate() {
        assert_no_resource(&ask(&mut demo, &review(n as i64, uri)), uri);
    }
    let missing = request(json!(50), "prompts/get", json!({"name": "review_note", "arguments": {}}));
    assert_bad_field(&ask(&mut demo, &missing), "arguments.uri");
    let own = ask(&mut demo, &review(51, "notes://workspace/roadmap-meeting"));
    assert_eq!(own["result"]["messages"][0]["content"]["resource"]["uri"], "notes://workspace/roadmap-meeting");
}

#[test]
fn notifications_get_no_response() {
    let data = DataDir::seeded("err-notify");
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    let mut cancel_it = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
    cancel_it["params"]["_meta"] = mcp_rounds_tests::meta(json!({}));
    let notifications = [
        cancel_it,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/no-such-thing", "params": {"x": 1}}),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}}),
    ];
    for notification in &notifications {
        server.send(notification);
    }
    // Were any of them answered, that answer would come before this one.
    let listed = ask(&mut server, &tool(1, "notes_list", json!({"workspaceUri": ws}), json!({})));
    assert_eq!(listed_ids(&listed), real_notes());
    // Nor after it: everything the server still writes comes before it exits at end of input.
    let (rest, status) = server.finish();
    assert_eq!(rest, Vec::<Value>::new());
    assert!(status.success());
}

fn post(address: &str, authorization: Option<&str>, message: &Value) -> HttpResponse {
    let method = message["method"].as_str().unwrap().to_owned();
    let mut headers = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", method.clone()),
    ];
    let name = match method.as_str() {
        "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
        "resources/read" => message["params"]["uri"].as_str(),
        _ => None,
    };
    if let Some(name) = name {
        headers.push(("Mcp-Name", name.to_owned()));
    }
    if let Some(authorization) = authorization {
        headers.push(("Authorization", authorization.to_owned()));
    }
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    http_request(address, "POST", &borrowed, message.to_string().as_bytes())
}

#[test]
fn http_without_a_valid_bearer_token_gets_401_and_nothing_runs() {
    let data = DataDir::seeded("err-http-401");
    let ws = data.workspace_uri();
    let token = data.token();
    let server = HttpProcess::spawn(BIN, &["--data", data.arg()]);
    let create = tool(1, "notes_create", json!({"workspaceUri": ws, "title": "Sneaky", "body": "x"}), json!({}));

    let wrong = [
        None,
        Some(String::new()),
        Some("Bearer".to_owned()),
        Some("Bearer wrong-token-0123456789".to_owned()),
        Some(format!("Bearer {token}x")),
        Some(format!("Bearer {}", &token[..token.len() - 1])),
        Some(format!("Basic {token}")),
        Some(token.clone()),
    ];
    for authorization in &wrong {
        let response = post(&server.address, authorization.as_deref(), &create);
        assert_eq!(response.status, 401, "{authorization:?}");
        assert!(response.body.is_empty(), "no MCP processing, so no JSON-RPC body: {authorization:?}");
        let challenge = response.header("www-authenticate").unwrap_or_else(|| panic!("{authorization:?}"));
        assert!(challenge.starts_with("Bearer"), "{challenge}");
    }
    // Not even parsed without a token: a broken body is still 401, not 400.
    let broken = http_request(&server.address, "POST", &[("Content-Type", "application/json")], b"{nope");
    assert_eq!((broken.status, broken.body.is_empty()), (401, true));
    assert_eq!(data.notes(), SEEDED, "nothing was created");

    let bearer = format!("Bearer {token}");
    let created = post(&server.address, Some(&bearer), &create);
    assert_eq!(created.status, 200);
    assert_eq!(created.json()["result"]["structuredContent"]["id"], "sneaky");
    assert!(data.notes().contains(&"sneaky".to_owned()));
}

#[test]
fn http_answers_the_contract_error_paths_with_their_statuses() {
    let data = DataDir::seeded("err-http-codes");
    let ws = data.workspace_uri();
    let bearer = format!("Bearer {}", data.token());
    let server = HttpProcess::spawn(BIN, &["--data", data.arg()]);
    let a = server.address.as_str();
    let auth = Some(bearer.as_str());

    let arguments = json!({"workspaceUri": ws, "title": "tps report"});
    let url_only = post(a, auth, &tool(1, "notes_delete", arguments.clone(), json!({"elicitation": {"url": {}}})));
    assert_eq!(url_only.status, 400);
    assert_error(&url_only.json(), -32021, json!({"requiredCapabilities": {"elicitation": {"form": {}}}}));
    let no_sampling = post(a, auth, &tool(2, "summarize_notes", json!({"workspaceUri": ws}), json!({})));
    assert_eq!(no_sampling.status, 400);
    assert_error(&no_sampling.json(), -32021, json!({"requiredCapabilities": {"sampling": {}}}));

    let evil = format!("{ws}/%2e%2e/workspace-private");
    let refused = post(a, auth, &delete_call(3, &evil, "salaries"));
    assert_eq!(refused.status, 200, "a tool error is a result");
    assert_not_yours(&refused.json(), &evil);

    let first = delete_call(4, &ws, "tps report");
    let asked = post(a, auth, &first);
    assert_eq!(asked.status, 200);
    let (_, state) = input_required(&asked.json());
    let tampered = post(a, auth, &retry(&first, 5, accept("tps-report-2026-q1"), &flip(&state, state.len() / 2)));
    assert_eq!(tampered.status, 400);
    assert_state_refused(&tampered.json());
    let outside = post(a, auth, &retry(&first, 6, accept("roadmap-meeting"), &state));
    assert_eq!(outside.status, 400);
    assert_bad_field(&outside.json(), "inputResponses.choice.note");
    data.assert_intact();

    let done = post(a, auth, &retry(&first, 7, accept("tps-report-2026-q1"), &state));
    assert_eq!(done.status, 200);
    assert_done(&done.json(), "Deleted tps-report-2026-q1.");
    let replayed = post(a, auth, &retry(&first, 8, accept("tps-report-2026-q1"), &state));
    assert_eq!(replayed.status, 400);
    assert_state_refused(&replayed.json());
    data.assert_notes_without(&["tps-report-2026-q1"]);

    let unknown = post(a, auth, &read(9, "notes://workspace-private/salaries"));
    assert_eq!(unknown.status, 400);
    assert_no_resource(&unknown.json(), "notes://workspace-private/salaries");

    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let response = post(a, auth, &notification);
    assert_eq!((response.status, response.body.is_empty()), (202, true));
}
