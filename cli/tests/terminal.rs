//! The command in a real terminal, as a person uses it: the form of `notes_delete` answered
//! with the arrow keys over stdio and over HTTP, and a Python SDK server's form and sampling
//! answered by typing.

mod common;

use common::{
    NotesData, TPS_NOTES, Terminal, conformance_server, fixture_server, mcp_rounds, notes_over_stdio, notes_server,
    python_server, quote,
};
use mcp_rounds_tests::http::HttpProcess;

/// `mcp-rounds ARGS… [-- SERVER…]` as a shell line.
fn command(args: &[&str], server: &[String]) -> String {
    let mut words = vec![quote(mcp_rounds())];
    words.extend(args.iter().map(|a| quote(a)));
    if !server.is_empty() {
        words.push("--".into());
        words.extend(server.iter().map(|w| quote(w)));
    }
    words.join(" ")
}

/// Picks the second of the three TPS notes with the arrow keys, confirms, and accepts.
fn delete_the_second_candidate(terminal: &Terminal, data: &NotesData) {
    let screen = terminal.wait_for("Old tps report draft");
    assert!(screen.contains("3 notes match \"tps report\". Which one should be deleted?"), "{screen}");
    assert!(screen.contains("TPS report Q1 2026") && screen.contains("TPS Report cover sheet"), "{screen}");
    terminal.keys(&["Down", "Enter"]);
    terminal.wait_for("Delete it for good?");
    terminal.keys(&["y"]);
    terminal.wait_for("Send this answer?");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("✔ Note (The note to delete.) · TPS Report cover sheet"), "{screen}");
    assert!(screen.contains("Deleted tps-report-cover-sheet."), "{screen}");
    let left: Vec<String> = data.notes().into_iter().filter(|n| n.starts_with("tps-")).collect();
    assert_eq!(left, [TPS_NOTES[0], TPS_NOTES[2]], "exactly the chosen note is gone");
}

#[test]
fn a_form_answered_with_the_arrow_keys_over_stdio() {
    let data = NotesData::new("tmux-stdio");
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let line = command(&["tools", "call", "notes_delete", &uri, "title=tps report"], &notes_over_stdio(&data));
    let terminal = Terminal::start("stdio", &line, &[]);
    delete_the_second_candidate(&terminal, &data);
}

#[test]
fn a_form_answered_with_the_arrow_keys_over_http() {
    let data = NotesData::new("tmux-http");
    let server = HttpProcess::spawn(notes_server().to_str().unwrap(), &["--data", data.arg()]);
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let url = format!("http://{}/mcp", server.address);
    let line = command(&["tools", "call", "notes_delete", &uri, "title=tps report", "--url", &url], &[]);
    // The token comes from the environment, as a person would keep it out of their history.
    let token = data.token();
    let terminal = Terminal::start("http", &line, &[("MCP_BEARER_TOKEN", &token)]);
    delete_the_second_candidate(&terminal, &data);
    assert!(!terminal.screen().contains(&token), "the token is never shown");
    server.stop();
}

#[test]
fn a_python_sdk_servers_two_forms_answered_by_typing() {
    let line = command(&["tools", "call", "order_drink", "customer=Ada"], &python_server());
    let terminal = Terminal::start("python-form", &line, &[]);
    terminal.wait_for("What would you like to drink, Ada?");
    terminal.type_text("coffee");
    terminal.keys(&["Enter"]);
    terminal.wait_for("Send this answer?");
    terminal.keys(&["Enter"]);
    terminal.wait_for("How many shots of espresso in your coffee?");
    // Not a whole number: asked again, with the reason.
    terminal.type_text("two");
    terminal.keys(&["Enter"]);
    terminal.wait_for("this is not a value of the field's type");
    terminal.keys(&["C-u"]);
    terminal.type_text("2");
    terminal.keys(&["Enter"]);
    // The first form's confirmation is still on the screen: wait for the second one.
    terminal.wait_for_times("Send this answer?", 2);
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("Ada ordered a coffee with 2 shots."), "{screen}");
}

#[test]
fn a_python_sdk_servers_sampling_answered_by_typing() {
    let line = command(&["tools", "call", "haiku", "topic=autumn"], &python_server());
    let terminal = Terminal::start("python-sampling", &line, &[]);
    let screen = terminal.wait_for("Reply as the model");
    assert!(screen.contains("system: You are a poet."), "{screen}");
    assert!(screen.contains("user: Write a haiku about autumn."), "{screen}");
    terminal.type_text("Leaves fall, the code compiles");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("typed-by-a-person wrote: Leaves fall, the code compiles"), "{screen}");
}

#[test]
fn ctrl_c_at_a_prompt_abandons_the_call_and_shows_the_cursor_again() {
    let data = NotesData::new("tmux-interrupt");
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let line = command(&["tools", "call", "notes_delete", &uri, "title=tps report"], &notes_over_stdio(&data));
    let terminal = Terminal::start("interrupt", &line, &[]);
    terminal.wait_for("Old tps report draft");
    terminal.keys(&["Down", "C-c"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 130, "{screen}");
    assert!(screen.contains("mcp-rounds: interrupted"), "{screen}");
    assert!(terminal.cursor_shown(), "the cursor the select hid is shown again");
    let tps: Vec<String> = data.notes().into_iter().filter(|n| n.starts_with("tps-")).collect();
    assert_eq!(tps, TPS_NOTES, "nothing deleted");
}

#[test]
fn a_url_is_shown_never_opened_and_the_person_says_when_they_are_done() {
    let line = command(&["tools", "call", "sign_in", "service=github"], &python_server());
    let terminal = Terminal::start("python-url", &line, &[]);
    let screen = terminal.wait_for("When you are done there");
    assert!(screen.contains("Sign in to github to continue."), "{screen}");
    assert!(screen.contains("https://auth.example.com/github/login"), "{screen}");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("Sign-in to github: accept."), "{screen}");
}

#[test]
fn every_kind_of_choice_and_every_default_in_a_terminal() {
    let server = HttpProcess::spawn(conformance_server().to_str().unwrap(), &[]);
    let call = |tool: &str| command(&["tools", "call", tool, "--url", &format!("http://{}/mcp", server.address)], &[]);

    // A select, a titled select, two multi-selects and the legacy enumNames shape.
    let terminal = Terminal::start("enums", &call("test_elicitation_sep1330_enums"), &[]);
    terminal.wait_for("? untitledSingle");
    terminal.keys(&["Down", "Enter"]);
    terminal.wait_for("? titledSingle");
    terminal.keys(&["Down", "Down", "Enter"]);
    terminal.wait_for("? untitledMulti (space to choose, enter to confirm)");
    terminal.keys(&["Space", "Down", "Space", "Enter"]);
    terminal.wait_for("? titledMulti");
    terminal.keys(&["Enter"]);
    let screen = terminal.wait_for("Option Three");
    assert!(screen.contains("? legacyEnum"), "the enumNames are what the person reads: {screen}");
    terminal.keys(&["Down", "Enter"]);
    terminal.wait_for("Send this answer?");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    let expected = r#"content={"untitledSingle":"option2","titledSingle":"value3","untitledMulti":["option1","option2"],"titledMulti":[],"legacyEnum":"opt2"}"#;
    assert!(screen.replace('\n', "").contains(expected), "{screen}");

    // Every field prefilled with its default: Enter accepts each.
    let terminal = Terminal::start("defaults", &call("test_elicitation_sep1034_defaults"), &[]);
    for (prompt, default) in
        [("? name", "John Doe"), ("? age", "30"), ("? score", "95.5"), ("? status", "active"), ("? verified", "yes")]
    {
        let screen = terminal.wait_for(prompt);
        assert!(screen.contains(default), "{prompt} shows {default}: {screen}");
        terminal.keys(&["Enter"]);
    }
    terminal.wait_for("Send this answer?");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    let expected = r#"content={"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}"#;
    assert!(screen.replace('\n', "").contains(expected), "{screen}");
    server.stop();
}

#[test]
fn colours_in_a_terminal_and_none_under_no_color() {
    let data = NotesData::new("tmux-colour");
    let line = command(&["tools", "list"], &notes_over_stdio(&data));
    let coloured = Terminal::start("colour", &line, &[]);
    coloured.finish();
    assert!(coloured.screen_with_attributes().contains("\u{1b}["), "tool names are bold in a terminal");
    let plain = Terminal::start("no-colour", &line, &[("NO_COLOR", "1")]);
    let (code, screen) = plain.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("notes_delete"), "{screen}");
    assert!(!plain.screen_with_attributes().contains("\u{1b}["), "{:?}", plain.screen_with_attributes());
}

#[test]
fn a_call_the_server_makes_a_task_shows_its_state() {
    let data = NotesData::new("tmux-task");
    let uri = format!("workspaceUri={}", data.workspace_uri());
    let line = command(&["tools", "call", "notes_export", &uri], &notes_over_stdio(&data));
    let terminal = Terminal::start("task", &line, &[]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    let state = screen.lines().find(|l| l.starts_with("task ")).unwrap_or_else(|| panic!("a task line: {screen}"));
    assert!(state.ends_with(" completed"), "{state}");
    assert!(screen.contains("\"count\": 6,"), "the structured result, pretty: {screen}");
}

#[test]
fn progress_moves_a_bar_that_is_gone_when_the_result_comes() {
    let server = [fixture_server().display().to_string()];
    let terminal = Terminal::start("progress", &command(&["tools", "call", "progress", "steps=400"], &server), &[]);
    // The server takes at least 2 s (5 ms a step): the bar is on the screen meanwhile.
    let screen = terminal.wait_for("/400 step ");
    assert!(screen.lines().any(|l| l.contains("/400 step ")), "{screen}");
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("done in 400 steps"), "{screen}");
    assert!(!screen.contains("/400"), "the bar is cleared before the result: {screen}");
}
