//! The seed's Agent Skill served through the skills extension, and `DIR/skills/` followed while
//! the server runs: a skill added, a file edited, a skill removed, each seen in `skills/list`
//! (with the digest of the bytes on disk) and heard by a listener, without a restart.

mod common;

use std::path::Path;

use common::*;
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const SKILL: &str = "skill://tps-report-writing/SKILL.md";
const REFERENCE: &str = "skill://tps-report-writing/references/cover-sheet.md";

/// A notification of the listen stream (which may come before any answer).
fn is_notification(message: &Value) -> bool {
    message["method"].as_str().is_some_and(|m| m.starts_with("notifications/"))
}

fn result(server: &mut StdioProcess, id: i64, method: &str, params: Value) -> Value {
    let answer = server.call_past(&request(json!(id), method, params), &is_notification);
    assert!(answer["error"].is_null(), "{method}: {answer}");
    answer["result"].clone()
}

/// The served skills, by URI.
fn skills(server: &mut StdioProcess, id: i64) -> Vec<Value> {
    let listed = result(server, id, "skills/list", json!({}));
    assert_eq!(listed["resultType"], "complete");
    assert!(listed["nextCursor"].is_null(), "one page: {listed}");
    listed["skills"].as_array().unwrap().clone()
}

fn uris(skills: &[Value]) -> Vec<&str> {
    skills.iter().map(|skill| skill["uri"].as_str().unwrap()).collect()
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().fold("sha256:".to_owned(), |text, byte| text + &format!("{byte:02x}"))
}

/// Every file a skill entry lists, as (URI, digest, size), against the bytes on disk.
fn assert_matches_disk(skill: &Value, skills_dir: &Path) {
    for file in skill["resources"].as_array().unwrap() {
        let uri = file["uri"].as_str().unwrap();
        let bytes = std::fs::read(skills_dir.join(uri.strip_prefix("skill://").unwrap())).unwrap();
        assert_eq!(file["digest"], digest(&bytes), "{uri}");
        assert_eq!(file["size"], bytes.len(), "{uri}");
    }
}

/// Writes `text` as an editor does: to a hidden file beside `path`, then renamed over it, so
/// that the server never reads half of it.
fn write_atomically(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let hidden = path.with_file_name(format!(".{}.tmp", path.file_name().unwrap().to_str().unwrap()));
    std::fs::write(&hidden, text).unwrap();
    std::fs::rename(&hidden, path).unwrap();
}

/// Reads until `wanted` arrives, passing over the stream's other notifications.
fn wait_for(server: &mut StdioProcess, wanted: &dyn Fn(&Value) -> bool) -> Value {
    let mut read = server.recv_until(&[wanted]);
    let found = read.pop().unwrap();
    assert!(read.iter().all(is_notification), "{read:?}");
    found
}

fn list_changed(message: &Value) -> bool {
    message["method"] == "notifications/resources/list_changed"
}

#[test]
fn the_seed_skill_is_served_with_its_files_folders_and_capability() {
    let data = DataDir::seeded("skills-seed");
    let skills_dir = data.path.join("skills");
    let mut server = data.stdio();

    let discovered = result(&mut server, 1, "server/discover", json!({}));
    assert_eq!(
        discovered["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(discovered["capabilities"]["resources"].is_object(), "{discovered}");

    let served = skills(&mut server, 2);
    assert_eq!(uris(&served), [SKILL]);
    assert_eq!(served[0]["frontmatter"]["name"], "tps-report-writing");
    assert_eq!(served[0]["frontmatter"]["metadata"], json!({"author": "notes-server", "version": "1.0"}));
    let files: Vec<&str> =
        served[0]["resources"].as_array().unwrap().iter().map(|f| f["uri"].as_str().unwrap()).collect();
    assert_eq!(files, [SKILL, REFERENCE], "SKILL.md first, then every other file");
    assert_matches_disk(&served[0], &skills_dir);

    let got = result(&mut server, 3, "skills/get", json!({"uri": SKILL}));
    assert_eq!(got["skill"], served[0]);
    let unknown = "skill://no-such-skill/SKILL.md";
    let refused = server.call(&request(json!(4), "skills/get", json!({"uri": unknown})));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(refused["error"]["data"], json!({"uri": unknown}));

    let root = result(&mut server, 5, "resources/directory/read", json!({"uri": "skill://tps-report-writing"}));
    assert_eq!(
        root["resources"],
        json!([
            {"uri": SKILL, "name": "SKILL.md", "mimeType": "text/markdown",
             "size": std::fs::metadata(skills_dir.join("tps-report-writing/SKILL.md")).unwrap().len()},
            {"uri": "skill://tps-report-writing/references", "name": "references", "mimeType": "inode/directory"},
        ])
    );
    assert!(root.get("ttlMs").is_none(), "a directory read is not cacheable: {root}");
    for not_a_directory in [SKILL, "skill://tps-report-writing/nothing-here", "skill://"] {
        let refused = server.call(&request(json!(6), "resources/directory/read", json!({"uri": not_a_directory})));
        assert_eq!(refused["error"]["code"], -32602, "{not_a_directory}: {refused}");
    }
    // A URI that leaves the skills directory is no skill's file.
    let escape = server.call(&request(
        json!(7),
        "resources/read",
        json!({"uri": "skill://tps-report-writing/../../config.toml"}),
    ));
    assert_eq!(escape["error"]["code"], -32602, "{escape}");
}

#[test]
fn a_skill_added_edited_and_removed_on_disk_is_served_as_it_is_now() {
    let data = DataDir::seeded("skills-live");
    let skills_dir = data.path.join("skills");
    let mut server = data.stdio();
    let filter = json!({"resourcesListChanged": true, "resourceSubscriptions": [REFERENCE]});
    server.send(&request(json!("watch"), "subscriptions/listen", json!({"notifications": filter})));
    assert_eq!(server.recv()["method"], "notifications/subscriptions/acknowledged");
    let seeded = skills(&mut server, 1);
    assert_eq!(uris(&seeded), [SKILL]);

    // Added, next to one that breaks the name rule (left out, the others still served).
    write_atomically(&skills_dir.join("Bad-Name/SKILL.md"), "---\nname: Bad-Name\ndescription: Broken.\n---\n");
    write_atomically(
        &skills_dir.join("meeting-notes/SKILL.md"),
        "---\nname: meeting-notes\ndescription: Take minutes of a meeting.\n---\n# Minutes\n",
    );
    wait_for(&mut server, &list_changed);
    let added = skills(&mut server, 2);
    assert_eq!(uris(&added), ["skill://meeting-notes/SKILL.md", SKILL]);
    assert_eq!(added[0]["frontmatter"], json!({"name": "meeting-notes", "description": "Take minutes of a meeting."}));
    assert_matches_disk(&added[0], &skills_dir);
    assert_eq!(added[1], seeded[0], "the seed's skill is unchanged");
    let listed = result(&mut server, 3, "resources/list", json!({}));
    let meeting = listed["resources"].as_array().unwrap().iter().find(|r| r["uri"] == "skill://meeting-notes/SKILL.md");
    assert_eq!(meeting.unwrap()["description"], "Take minutes of a meeting.");

    // Edited: the subscriber hears of the file, the digest is the new bytes', a read gives them.
    let edited = "# TPS report cover sheet\n\nNow with a barcode.\n";
    write_atomically(&skills_dir.join("tps-report-writing/references/cover-sheet.md"), edited);
    let updated = wait_for(&mut server, &|m: &Value| m["method"] == "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], REFERENCE);
    let after_edit = skills(&mut server, 4);
    let reference = after_edit[1]["resources"].as_array().unwrap().iter().find(|f| f["uri"] == REFERENCE).unwrap();
    assert_eq!(reference["digest"], digest(edited.as_bytes()));
    assert_ne!(after_edit[1], seeded[0]);
    let read = result(&mut server, 5, "resources/read", json!({"uri": REFERENCE}));
    assert_eq!(read["contents"][0]["text"], edited);

    // Removed.
    std::fs::remove_dir_all(skills_dir.join("meeting-notes")).unwrap();
    wait_for(&mut server, &list_changed);
    assert_eq!(uris(&skills(&mut server, 6)), [SKILL]);
    let gone = server.call_past(
        &request(json!(7), "resources/read", json!({"uri": "skill://meeting-notes/SKILL.md"})),
        &is_notification,
    );
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
}
