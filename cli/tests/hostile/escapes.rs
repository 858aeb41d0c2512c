//! Every string the server sends, shown and never obeyed, on a pipe (where a terminal may
//! read it later: `less -R`, `cat`); `--json` exact and harmless; the contents of a resource
//! byte for byte when they go to a file or a pipe.

use mcp_rounds_tests::hostile::{ALL, dangerous, stdio_command};
use serde_json::{Value, json};

use crate::{Ran, common, hostile, run, run_env, shown};

/// `ALL` as `--json` writes it: JSON, with what a terminal obeys escaped (`\u001b`, `\u009b`).
fn escaped() -> String {
    let json = serde_json::to_string(ALL).expect("a string is JSON");
    json.replace('\u{9b}', r"\u009b").replace('\u{202e}', r"\u202e")
}

/// A command line, its exit code, and what its stdout and its stderr show.
type Shows<'a> = (Vec<&'a str>, i32, Vec<String>, Vec<String>);

/// A command line, and places in its JSON output (pointers) with what they hold.
type Holds<'a> = (&'a [&'a str], Vec<(&'a str, String)>);

/// Nothing on either stream that a terminal would act on.
fn assert_harmless(ran: &Ran, what: &str) {
    assert_eq!(dangerous(&ran.out()), Vec::<&str>::new(), "{what}: stdout:\n{}", ran.said());
    assert_eq!(dangerous(&ran.stderr), Vec::<&str>::new(), "{what}: stderr:\n{}", ran.said());
}

#[test]
fn every_string_of_the_server_is_shown_with_its_controls_visible() {
    let server = hostile();
    let url = server.url("escapes");
    let s = shown(ALL);
    // Each command, its exit code, and what stdout and stderr show where the server's strings
    // were: the readable markers of `ALL` with a stand-in for each control.
    let cases: Vec<Shows> = vec![
        (
            vec!["tools", "list"],
            0,
            vec![
                format!("show — show {s}\n  Tool show: {s}\n  arguments: text?: string\n"),
                // A name and a title: one line each, whatever they hold.
                format!("evil{s} — evil{s} {s}\n  Tool evil{s}: {s}\n"),
            ],
            vec![],
        ),
        (
            vec!["tools", "call", "show"],
            0,
            vec![format!("show: {s}\nsecond block: {s}\n{{\n  \"text\": {}\n}}\n", escaped())],
            vec![],
        ),
        // The server's error, quoted in the command's own message.
        (
            vec!["tools", "call", "fails"],
            3,
            vec![],
            vec![format!("mcp-rounds: the server refused tools/call: failed: {s} (error -32603)")],
        ),
        (vec!["tools", "call", "logs"], 0, vec![format!("{s}\n")], vec![]),
        (
            vec!["resources", "list"],
            0,
            vec![format!("text://x  {s} (text/plain)\n  {s}\n"), format!("evil://{s}  {s}\n")],
            vec![],
        ),
        (vec!["resources", "templates"], 0, vec![format!("text://{{id}}  {s}\n  {s}\n")], vec![]),
        (vec!["prompts", "list"], 0, vec![format!("greet — {s}\n  {s}\n  arguments: who?\n")], vec![]),
        (vec!["prompts", "get", "greet"], 0, vec![format!("{s}\nuser:\n{s}\n")], vec![]),
        (vec!["complete", "prompt", "greet", "who", "x"], 0, vec![format!("{s}\nplain\nsecond {s}\n")], vec![]),
        (vec!["discover"], 0, vec![format!("escapes {s} 0.1.0 — {s}\n"), format!("instructions:\n  {s}\n")], vec![]),
    ];
    for (args, code, out, err) in cases {
        let mut line = args.clone();
        line.extend(["--url", &url]);
        let ran = run(&line);
        assert_eq!(ran.code, code, "{args:?}: {}", ran.said());
        assert_harmless(&ran, &format!("{args:?}"));
        for wanted in out {
            assert!(ran.out().contains(&wanted), "{args:?}: stdout lacks {wanted:?}:\n{}", ran.said());
        }
        for wanted in err {
            assert!(ran.stderr.contains(&wanted), "{args:?}: stderr lacks {wanted:?}:\n{}", ran.said());
        }
    }
}

#[test]
fn a_servers_error_log_is_shown_with_its_controls_visible() {
    // The log notification comes before the call's answer, on the same stream: an error is
    // always shown ("warnings and worse always"), and with the stand-ins.
    let server = hostile();
    let ran = run(&["tools", "call", "logs", "--url", &server.url("escapes")]);
    assert_eq!(ran.code, 0, "{}", ran.said());
    assert_harmless(&ran, "logs");
    let s = shown(ALL);
    let wanted = format!("server error {s}: {s}\n");
    assert!(ran.stderr.contains(&wanted), "stderr lacks the error log {wanted:?}:\n{}", ran.said());
}

#[test]
fn verbose_traffic_and_a_child_servers_log_are_shown_with_their_controls_visible() {
    let server = hostile();
    let ran = run(&["tools", "call", "show", "--verbose", "--url", &server.url("escapes")]);
    assert_eq!(ran.code, 0, "{}", ran.said());
    assert_harmless(&ran, "--verbose");
    // JSON on the wire escapes C0 controls itself; the C1 control and the override come raw.
    let received = ran.stderr.lines().find(|l| l.starts_with("← ") && l.contains("second block"));
    let received = received.unwrap_or_else(|| panic!("no answer in the traffic:\n{}", ran.said()));
    assert!(received.contains(r"5:c1=⟨U+009B⟩31mred 6:bidi=⟨U+202E⟩gnp.exe"), "{received}");

    // Over stdio the server writes `ALL` to its stderr, the command shows it line by line.
    let program = common::hostile_server();
    let (program, args) = stdio_command(program.to_str().expect("UTF-8"), "escapes");
    let child: Vec<String> = std::iter::once(program).chain(args).collect();
    let s = shown(ALL);
    for (command, wanted) in [
        (vec!["tools", "call", "show"], format!("show: {s}\nsecond block: {s}\n")),
        (vec!["tools", "list"], format!("show — show {s}\n")),
    ] {
        let ran = run_env(&command, &child, &[]);
        assert_eq!(ran.code, 0, "{command:?}: {}", ran.said());
        assert_harmless(&ran, &format!("{command:?} over stdio"));
        assert!(ran.out().contains(&wanted), "{command:?}: {}", ran.said());
        for line in [
            format!("server: hostile-server starting: {s}\n"),
            format!("server: {s}\n"),
            format!("server: request server/discover {s}\n"),
        ] {
            assert!(ran.stderr.contains(&line), "{command:?}: stderr lacks {line:?}:\n{}", ran.said());
        }
    }
}

#[test]
fn json_is_exact_and_harmless() {
    let server = hostile();
    let url = server.url("escapes");
    // Each command with the places in its JSON where the server's strings are, and what they hold.
    let cases: [Holds; 7] = [
        (&["tools", "list"], vec![("/tools/0/title", format!("show {ALL}")), ("/tools/6/name", format!("evil{ALL}"))]),
        (
            &["tools", "call", "show"],
            vec![("/content/0/text", format!("show: {ALL}")), ("/structuredContent/text", ALL.to_owned())],
        ),
        (
            &["resources", "list"],
            vec![("/resources/0/name", ALL.to_owned()), ("/resources/1/uri", format!("evil://{ALL}"))],
        ),
        (&["resources", "read", "text://x"], vec![("/contents/0/text", ALL.to_owned())]),
        (
            &["prompts", "get", "greet"],
            vec![("/description", ALL.to_owned()), ("/messages/0/content/text", ALL.to_owned())],
        ),
        (&["complete", "prompt", "greet", "who", "x"], vec![("/completion/values/0", ALL.to_owned())]),
        (&["discover"], vec![("/instructions", ALL.to_owned())]),
    ];
    for (args, places) in cases {
        let mut line = args.to_vec();
        line.extend(["--json", "--url", &url]);
        let ran = run(&line);
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.said());
        assert_harmless(&ran, &format!("{args:?} --json"));
        assert!(ran.out().contains(r"\u001b]52;c;aGFja2Vk\u0007"), "{args:?}: {}", ran.said());
        assert!(ran.out().contains(r"\u009b31mred") && ran.out().contains(r"\u202egnp.exe"), "{}", ran.said());
        let parsed = ran.json();
        for (pointer, wanted) in places {
            assert_eq!(parsed.pointer(pointer), Some(&json!(wanted)), "{args:?} {pointer}: {parsed:#}");
        }
    }
}

#[test]
fn a_resource_read_into_a_pipe_is_its_contents_byte_for_byte() {
    let server = hostile();
    let url = server.url("escapes");
    let text = run(&["resources", "read", "text://x", "--url", &url]);
    assert_eq!(text.code, 0, "{}", text.said());
    assert_eq!(text.stdout, ALL.as_bytes(), "exactly the text, nothing added: {:?}", text.out());
    // The text contents first, then the blob decoded: raw bytes, not UTF-8, escapes as sent.
    let blob = run(&["resources", "read", "blob://x", "--url", &url]);
    assert_eq!(blob.code, 0, "{}", blob.said());
    let sent = [ALL.as_bytes(), b"\x1b]52;c;aGFja2Vk\x07 \x1b[2J\x00\xff\xfe ".as_slice(), ALL.as_bytes()].concat();
    assert_eq!(blob.stdout, sent, "{:?}", blob.out());
    assert_eq!(blob.stderr, "", "nothing said besides the contents");
    let value: Value = run(&["resources", "read", "blob://x", "--json", "--url", &url]).json();
    assert_eq!(value["contents"][1]["mimeType"], "application/octet-stream", "{value:#}");
}
