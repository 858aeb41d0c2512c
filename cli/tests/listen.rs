//! `mcp-rounds listen`: each change printed as it arrives, one JSON object a line, until the
//! person interrupts it.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{NotesData, SCREEN_TIMEOUT, mcp_rounds, notes_over_stdio};
use serde_json::{Value, json};

#[test]
fn listen_prints_each_change_as_it_comes_until_interrupted() {
    let data = NotesData::new("listen");
    let mut child = Command::new(mcp_rounds())
        .args(["--json", "listen", "notes://workspace/reading-list", "--resources-list-changed", "--"])
        .args(notes_over_stdio(&data))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, received) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let next = || -> Value {
        let line = received.recv_timeout(SCREEN_TIMEOUT).expect("a line from listen");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    };
    let acknowledged = next();
    assert_eq!(acknowledged["notice"], "acknowledged", "{acknowledged}");
    assert_eq!(acknowledged["filter"]["resourceSubscriptions"], json!(["notes://workspace/reading-list"]));

    // A change to the note subscribed to, then a new note: each arrives, in order.
    let workspace = data.path.join("workspace");
    std::fs::write(workspace.join("reading-list.md"), "# Reading list\n\nNothing yet.\n").unwrap();
    assert_eq!(next(), json!({"notice": "resourceUpdated", "uri": "notes://workspace/reading-list"}));
    std::fs::write(workspace.join("brand-new.md"), "# Brand new\n").unwrap();
    // One write can be several filesystem events, each announced: the same update may repeat.
    let updated = json!({"notice": "resourceUpdated", "uri": "notes://workspace/reading-list"});
    let mut change = next();
    while change == updated {
        change = next();
    }
    assert_eq!(change, json!({"notice": "resourcesListChanged"}));

    let interrupted = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(interrupted.success());
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || done.send(child.wait()));
    let status = finished.recv_timeout(Duration::from_secs(30)).expect("listen ends on Ctrl-C").unwrap();
    assert_eq!(status.code(), Some(0), "an interrupt is how listen ends");
}
