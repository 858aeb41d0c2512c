//! Who announces a change: with `[changes] watch_files = false` each tool announces what it
//! changed, once (a create changes the list, an edit updates the note, a delete does both), and
//! a file changed by someone else goes unannounced; watching the files (the default) announces
//! that file too.

mod common;

use common::*;
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};

const LIST: &str = "notifications/resources/list_changed";
const UPDATED: &str = "notifications/resources/updated";

/// Listens on `server` for the list and every note named in `ids`.
fn listen(server: &mut StdioProcess, ids: &[&str]) {
    let uris: Vec<String> = ids.iter().map(|id| format!("notes://workspace/{id}")).collect();
    let filter = json!({"resourcesListChanged": true, "resourceSubscriptions": uris});
    server.send(&request(json!("watch"), "subscriptions/listen", json!({"notifications": filter})));
    assert_eq!(server.recv()["method"], "notifications/subscriptions/acknowledged");
}

/// Sends `message` and reads until its answer and `until` have come: the notifications read,
/// as (method, note id).
fn changes(server: &mut StdioProcess, message: &Value, until: &dyn Fn(&Value) -> bool) -> Vec<(String, String)> {
    server.send(message);
    let id = message["id"].clone();
    let read = server.recv_until(&[&|m: &Value| m["id"] == id, until]);
    read.iter()
        .filter(|m| m.get("method").is_some())
        .map(|m| {
            let uri = m["params"]["uri"].as_str().unwrap_or_default();
            (m["method"].as_str().unwrap().to_owned(), uri.rsplit('/').next().unwrap_or_default().to_owned())
        })
        .collect()
}

fn is(method: &str, id: &'static str) -> impl Fn(&Value) -> bool {
    let method = method.to_owned();
    move |m: &Value| {
        m["method"] == method.as_str()
            && (method == LIST || m["params"]["uri"].as_str().is_some_and(|u| u.ends_with(&format!("/{id}"))))
    }
}

/// Runs create, an outside write, edit and delete on one process listening to itself; what it
/// heard after each.
fn run(data: &DataDir) -> Vec<Vec<(String, String)>> {
    let ws = data.workspace_uri();
    let mut server = data.stdio();
    listen(&mut server, &["fresh", "reading-list", "offsite-ideas"]);
    let create = tool(1, "notes_create", json!({"workspaceUri": ws, "title": "Fresh", "body": "Hi."}), json!({}));
    let created = changes(&mut server, &create, &is(LIST, ""));
    // Someone else writes a note's file; then an edit through the server, whose announcement
    // comes after anything the outside write caused.
    let outside = data.workspace().join("offsite-ideas.md");
    std::fs::write(&outside, "# Ideas for the offsite\n\nChanged in an editor.\n").unwrap();
    let edit = tool(2, "notes_edit", json!({"workspaceUri": ws, "id": "reading-list", "body": "- more"}), json!({}));
    let edited = changes(&mut server, &edit, &is(UPDATED, "reading-list"));
    let first = delete_call(3, &ws, "Fresh");
    // A watcher may still report the edit's file events (more than one per write) meanwhile.
    let asked = server.call_past(&first, &|m: &Value| m.get("method").is_some());
    let (_, state) = input_required(&asked);
    let confirm = retry(&first, 4, accept("fresh"), &state);
    let deleted = changes(&mut server, &confirm, &is(UPDATED, "fresh"));
    vec![created, edited, deleted]
}

#[test]
fn a_server_that_does_not_watch_files_announces_each_change_of_its_tools_once_and_nothing_else() {
    let data = DataDir::seeded("announce-own");
    data.replace_in_config("watch_files = true", "watch_files = false");
    let heard = run(&data);
    let pair = |method: &str, id: &str| (method.to_owned(), id.to_owned());
    assert_eq!(heard[0], [pair(LIST, "")], "a create changes the list, once");
    assert_eq!(
        heard[1],
        [pair(UPDATED, "reading-list")],
        "an edit updates its note, once; the outside write is unheard"
    );
    let mut deleted = heard[2].clone();
    deleted.sort();
    assert_eq!(deleted, [pair(LIST, ""), pair(UPDATED, "fresh")], "a delete changes the list and updates its note");
}

#[test]
fn a_server_that_watches_files_also_announces_a_change_made_outside_it() {
    let data = DataDir::seeded("announce-files");
    assert!(data.config().contains("watch_files = true"), "watching is the default the seed writes");
    let heard = run(&data);
    assert!(
        heard[1].iter().any(|(method, id)| method == UPDATED && id == "offsite-ideas"),
        "the file written outside the server was announced: {:?}",
        heard[1]
    );
}
