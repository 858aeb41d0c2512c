//! The command in a real terminal (tmux) that obeys OSC 52: the server's strings do not clear
//! the screen, write the clipboard or set the title; a URL to open is shown only when it is
//! https (or http on this machine), with its site, and never opened.

use std::process::Command;

use mcp_rounds_tests::hostile::ALL;

use crate::common::{Terminal, mcp_rounds, quote, text};
use crate::{Scratch, elsewhere, hostile, shown};

/// Printed before the command: still on the screen (or in its scrollback) if nothing cleared it.
const MARKER: &str = "marker-printed-before-the-command";

/// A shell line for `mcp-rounds ARGS…`.
fn command(args: &[&str]) -> String {
    std::iter::once(mcp_rounds()).chain(args.iter().copied()).map(quote).collect::<Vec<_>>().join(" ")
}

/// What tmux says of the terminal: its paste buffers and the pane's title.
struct Seen {
    buffers: String,
    title: String,
}

/// Runs `line` in a terminal whose tmux makes a paste buffer of any OSC 52 (`set-clipboard
/// on`), after printing [`MARKER`]; the title the pane had before is kept in `scratch`.
fn start(name: &str, line: &str, scratch: &Scratch) -> Terminal {
    let before = scratch.path().join("title-before");
    let setup = format!(
        "tmux set-option -s set-clipboard on && tmux display-message -p '#{{pane_title}}' > {} && echo {MARKER} && {line}",
        quote(&before.display().to_string())
    );
    Terminal::start(name, &setup, &[])
}

/// Reads tmux once the command has ended (the screen shows its exit code, so tmux has read all
/// it wrote). The socket is the one `Terminal::start` names for `name`.
fn seen(name: &str) -> Seen {
    let socket = format!("mcp-rounds-cli-{name}-{}", std::process::id());
    let tmux = |args: &[&str]| {
        let output = Command::new("tmux").args(["-L", &socket]).args(args).output().expect("run tmux");
        text(&output.stdout).trim_end().to_owned()
    };
    Seen { buffers: tmux(&["list-buffers"]), title: tmux(&["display-message", "-p", "#{pane_title}"]) }
}

fn title_before(scratch: &Scratch) -> String {
    std::fs::read_to_string(scratch.path().join("title-before")).expect("the title before").trim_end().to_owned()
}

#[test]
fn a_terminal_shows_the_servers_strings_and_obeys_none() {
    let server = hostile();
    let url = server.url("escapes");
    let scratch = Scratch::new("terminal");
    let line = [
        command(&["tools", "list", "--url", &url]),
        command(&["tools", "call", "show", "--url", &url]),
        command(&["resources", "read", "text://x", "--url", &url]),
    ]
    .join(" && ");
    let terminal = start("hostile-escapes", &line, &scratch);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    let seen = seen("hostile-escapes");
    assert!(screen.contains(MARKER), "nothing cleared the screen or its scrollback:\n{screen}");
    assert_eq!(seen.buffers, "", "OSC 52 reached no clipboard");
    let before = title_before(&scratch);
    assert_eq!(seen.title, before, "the title is as it was");
    assert_ne!(seen.title, "pwned");
    let s = shown(ALL);
    for wanted in [format!("show — show {s}"), format!("show: {s}"), format!("second block: {s}")] {
        assert!(screen.contains(&wanted), "{wanted:?} on the screen:\n{screen}");
    }
    // The resource read on a terminal: shown too (into a pipe it would be the bytes).
    assert_eq!(screen.lines().filter(|l| *l == s).count(), 1, "{screen}");
}

#[test]
fn the_terminal_checks_see_a_raw_print() {
    // The same checks, with the strings printed raw: they must fail, or the test above proves
    // nothing.
    let scratch = Scratch::new("raw");
    let terminal = start("hostile-raw", &format!("printf '%s\\n' {}", quote(ALL)), &scratch);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    let seen = seen("hostile-raw");
    assert!(!screen.contains(MARKER), "the raw clear wiped the marker:\n{screen}");
    assert!(seen.buffers.contains("hacked"), "the raw OSC 52 made a paste buffer: {:?}", seen.buffers);
    assert_eq!(seen.title, "pwned", "the raw OSC 0 set the title");
}

#[test]
fn a_url_to_open_is_shown_only_when_safe_and_never_opened() {
    let server = hostile();

    // Plain http on another machine: declined, never shown.
    let declined = server.url("url-elicit?url=http://intranet.example/login");
    let terminal =
        Terminal::start("hostile-url-declined", &command(&["tools", "call", "login", "--url", &declined]), &[]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 5, "{screen}");
    assert!(
        screen.contains(
            "declined URL request `open` (\"Sign in to continue.\"): its URL is neither https nor http on this machine"
        ),
        "{screen}"
    );
    assert!(!screen.contains("intranet.example") && !screen.contains("When you are done there"), "{screen}");

    // https: shown with its site, the person says when they are done.
    let https = server.url("url-elicit?url=https://example.com/login");
    let terminal = Terminal::start("hostile-url-https", &command(&["tools", "call", "login", "--url", &https]), &[]);
    let screen = terminal.wait_for("When you are done there");
    assert!(screen.contains("site: example.com") && screen.contains("https://example.com/login"), "{screen}");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains(r#"opened: {"open":{"action":"accept"}}"#), "{screen}");

    // http on this machine, at the other origin: shown, and nothing went there.
    let page = format!("{}/page-nobody-opens", server.elsewhere_origin());
    let local = server.url(&format!("url-elicit?url={page}"));
    let terminal = Terminal::start("hostile-url-local", &command(&["tools", "call", "login", "--url", &local]), &[]);
    let screen = terminal.wait_for("When you are done there");
    assert!(screen.contains("site: 127.0.0.1") && screen.contains(&page), "{screen}");
    terminal.keys(&["Enter"]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(elsewhere(&server.record()), &Vec::<serde_json::Value>::new(), "the command opened nothing");
}

#[test]
fn a_round_of_too_many_questions_asks_none_of_them() {
    let server = hostile();
    let url = server.url("many-inputs?count=65");
    let terminal = Terminal::start("hostile-many", &command(&["tools", "call", "many", "--url", &url]), &[]);
    let (code, screen) = terminal.finish();
    assert_eq!(code, 3, "{screen}");
    assert!(screen.contains("65 input requests in one round, over the limit of 64"), "{screen}");
    assert!(!screen.contains("Question"), "no question was asked:\n{screen}");
    assert!(!screen.contains("got 65 answers"), "{screen}");
}
