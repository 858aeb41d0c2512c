//! The command in a real terminal, as a person uses it: the form of `notes_delete` answered
//! with the arrow keys over stdio and over HTTP, and a Python SDK server's form and sampling
//! answered by typing.

mod common;

use common::{NotesData, TPS_NOTES, Terminal, mcp_rounds, notes_server, python_server, quote};
use mcp_rounds_tests::http::HttpProcess;

fn line(words: &[String]) -> String {
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
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
    let mut words = vec![
        mcp_rounds().to_owned(),
        "tools".into(),
        "call".into(),
        "notes_delete".into(),
        format!("workspaceUri={}", data.workspace_uri()),
        "title=tps report".into(),
        "--".into(),
    ];
    words.extend(data.stdio_server());
    let terminal = Terminal::start("stdio", &line(&words), &[]);
    delete_the_second_candidate(&terminal, &data);
}

#[test]
fn a_form_answered_with_the_arrow_keys_over_http() {
    let data = NotesData::new("tmux-http");
    let server = HttpProcess::spawn(notes_server().to_str().unwrap(), &["--data", data.arg()]);
    let words = [
        mcp_rounds().to_owned(),
        "tools".into(),
        "call".into(),
        "notes_delete".into(),
        format!("workspaceUri={}", data.workspace_uri()),
        "title=tps report".into(),
        "--url".into(),
        format!("http://{}/mcp", server.address),
    ];
    // The token comes from the environment, as a person would keep it out of their history.
    let token = data.token();
    let terminal = Terminal::start("http", &line(&words), &[("MCP_BEARER_TOKEN", &token)]);
    delete_the_second_candidate(&terminal, &data);
    assert!(!terminal.screen().contains(&token), "the token is never shown");
    server.stop();
}

#[test]
fn a_python_sdk_servers_two_forms_answered_by_typing() {
    let mut words = vec![mcp_rounds().to_owned(), "tools".into(), "call".into(), "order_drink".into()];
    words.extend(["customer=Ada".into(), "--".into()]);
    words.extend(python_server());
    let terminal = Terminal::start("python-form", &line(&words), &[]);
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
    let screen = terminal.wait_for("Send this answer?");
    assert_eq!(screen.matches("Send this answer?").count(), 2, "{screen}");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("Ada ordered a coffee with 2 shots."), "{screen}");
}

#[test]
fn a_python_sdk_servers_sampling_answered_by_typing() {
    let mut words = vec![mcp_rounds().to_owned(), "tools".into(), "call".into(), "haiku".into()];
    words.extend(["topic=autumn".into(), "--".into()]);
    words.extend(python_server());
    let terminal = Terminal::start("python-sampling", &line(&words), &[]);
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
    let mut words = vec![mcp_rounds().to_owned(), "tools".into(), "call".into(), "notes_delete".into()];
    words.extend([format!("workspaceUri={}", data.workspace_uri()), "title=tps report".into(), "--".into()]);
    words.extend(data.stdio_server());
    let terminal = Terminal::start("interrupt", &line(&words), &[]);
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
    let mut words = vec![mcp_rounds().to_owned(), "tools".into(), "call".into(), "sign_in".into()];
    words.extend(["service=github".into(), "--".into()]);
    words.extend(python_server());
    let terminal = Terminal::start("python-url", &line(&words), &[]);
    let screen = terminal.wait_for("When you are done there");
    assert!(screen.contains("Sign in to github to continue."), "{screen}");
    assert!(screen.contains("https://auth.example.com/github/login"), "{screen}");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("Sign-in to github: accept."), "{screen}");
}
