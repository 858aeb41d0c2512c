//! End to end with the reference Python client (PyPI `mcp` 2.3.0), over stdio and over
//! Streamable HTTP: discovery, listings, confirmed deletes (accept, decline, cancel), the
//! two-round summary through the client's model, resource reads, `review_note`, and a listen
//! stream that sees changes made through tools. The script (tests/python/notes_client.py)
//! only reports what the client saw; every judgement is made here, against the data directory.

mod clients;

use clients::{DataDir, seed};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::process::run_to_end;
use mcp_rounds_tests::python;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

/// What the client's model answers the summary round with.
const MODEL_SUMMARY: &str = "Two TPS notes: the Q1 numbers and an old draft (from the Python test model).";

/// The whole scenario takes about a second; this only bounds a hang.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(90);

/// Runs the script to its end (or kills it after [`SCRIPT_TIMEOUT`]) and parses its report.
fn run_script(transport_args: &[&str], envs: &[(&str, &str)]) -> Value {
    let mut command = Command::new(python::interpreter());
    command
        .arg(python::workspace_root().join("tests/python/notes_client.py"))
        .args(transport_args)
        .env("NOTES_MODEL_SUMMARY", MODEL_SUMMARY)
        .envs(envs.iter().copied());
    let (status, stdout, stderr) = run_to_end(command, SCRIPT_TIMEOUT, "the Python client");
    assert!(status.success(), "Python client failed ({status}): {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("client output is not JSON ({e}): {stdout}"))
}

fn text_of(result: &Value) -> &str {
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["resultType"], "complete", "{result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content: {result}"))
}

fn ids(values: &Value) -> Vec<&str> {
    values.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect()
}

fn offered(elicitation: &Value) -> Vec<(&str, &str)> {
    elicitation["schema"]["properties"]["note"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["const"].as_str().unwrap(), o["title"].as_str().unwrap()))
        .collect()
}

fn title(text: &str) -> &str {
    text.lines().find_map(|l| l.strip_prefix("# ")).unwrap()
}

/// Judges a report against the data directory. `seeded` is the workspace as it was before the
/// client ran.
fn check(seen: &Value, dir: &DataDir, seeded: &BTreeMap<String, String>) {
    let tps: Vec<&str> = seeded
        .iter()
        .filter(|(_, text)| title(text).to_lowercase().contains("tps report"))
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(tps, ["tps-report-2026-q1", "tps-report-cover-sheet", "tps-report-draft-old"], "the seed's TPS notes");
    let note_uri = |id: &str| format!("notes://workspace/{id}");

    // Discovery: the modern era, no initialize handshake.
    assert_eq!(seen["protocol_version"], "2026-07-28");
    assert_eq!(seen["legacy"], false);
    assert_eq!(seen["supported_versions"], json!(["2026-07-28"]));
    assert_eq!(seen["server_info"], json!({"name": "notes-server", "version": env!("CARGO_PKG_VERSION")}));
    let capabilities = &seen["capabilities"];
    assert_eq!(capabilities["resources"], json!({"subscribe": true, "listChanged": true}));
    assert!(capabilities["tools"].is_object() && capabilities["prompts"].is_object(), "{capabilities}");
    assert!(seen["instructions"].as_str().unwrap().contains("notes_delete"));

    // Listings.
    let tools: BTreeMap<&str, &Value> =
        seen["tools"].as_array().unwrap().iter().map(|t| (t["name"].as_str().unwrap(), t)).collect();
    assert_eq!(
        tools.keys().copied().collect::<Vec<_>>(),
        ["notes_create", "notes_delete", "notes_edit", "notes_export", "notes_list", "notes_read", "summarize_notes"]
    );
    assert_eq!(tools["notes_delete"]["inputSchema"]["required"], json!(["workspaceUri", "title"]));
    assert_eq!(tools["notes_delete"]["annotations"]["destructiveHint"], true);
    assert_eq!(tools["summarize_notes"]["inputSchema"]["required"], json!(["workspaceUri"]));
    assert_eq!(tools["summarize_notes"]["outputSchema"]["required"], json!(["picks", "summary"]));
    assert_eq!(tools["notes_create"]["outputSchema"]["required"], json!(["id", "title", "uri"]));

    let resources = &seen["resources"];
    assert_eq!(resources["cacheScope"], "private", "a per-principal listing is private");
    let (views, resources): (Vec<&Value>, Vec<&Value>) = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .partition(|r| r["uri"].as_str().unwrap().starts_with("ui://"));
    // The board, its declarations on its entry, as the Python SDK reads them.
    assert_eq!(views.len(), 1, "{views:?}");
    assert!(views[0]["uri"].as_str().unwrap().starts_with("ui://notes/board?v="), "{}", views[0]);
    assert_eq!(views[0]["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(views[0]["_meta"], json!({"ui": {"prefersBorder": true}}));
    let (skills, notes): (Vec<&Value>, Vec<&Value>) =
        resources.into_iter().partition(|r| r["uri"].as_str().unwrap().starts_with("skill://"));
    // The seed's skill, its SKILL.md named and described by its frontmatter.
    assert_eq!(skills.len(), 1, "{skills:?}");
    let skill_md = std::fs::read_to_string(dir.0.join("skills/tps-report-writing/SKILL.md")).unwrap();
    assert_eq!(skills[0]["uri"], "skill://tps-report-writing/SKILL.md");
    assert_eq!(skills[0]["name"], "tps-report-writing");
    assert_eq!(skills[0]["mimeType"], "text/markdown");
    assert_eq!(skills[0]["size"], skill_md.len());
    let description = skills[0]["description"].as_str().unwrap();
    assert!(skill_md.contains(&format!("\ndescription: {description}\n")), "{description:?}");
    let listed: Vec<(String, String, String)> = notes
        .into_iter()
        .map(|r| {
            assert_eq!(r["mimeType"], "text/markdown", "{r}");
            let field = |k: &str| r[k].as_str().unwrap().to_owned();
            (field("uri"), field("name"), field("title"))
        })
        .collect();
    let expected: Vec<(String, String, String)> =
        seeded.iter().map(|(id, text)| (note_uri(id), id.clone(), title(text).to_owned())).collect();
    assert_eq!(listed, expected, "every seeded note, by id, and not the symlink");
    assert_eq!(seen["templates"].as_array().unwrap().len(), 1);
    assert_eq!(seen["templates"][0]["uriTemplate"], "notes://{workspace}/{id}");
    assert_eq!(seen["templates"][0]["mimeType"], "text/markdown");
    assert_eq!(seen["prompts"].as_array().unwrap().len(), 1);
    assert_eq!(seen["prompts"][0]["name"], "review_note");
    let arguments = seen["prompts"][0]["arguments"].as_array().unwrap();
    assert_eq!(arguments.len(), 1, "{arguments:?}");
    assert_eq!((&arguments[0]["name"], &arguments[0]["required"]), (&json!("uri"), &json!(true)));

    // notes_delete, accepted: the form offered exactly the three matches; the one picked is
    // gone (into the trash), the others stay.
    let elicitations = seen["elicitations"].as_array().unwrap();
    assert_eq!(elicitations.len(), 3, "one form per delete call: {elicitations:?}");
    let accept = &elicitations[0];
    assert_eq!(accept["key"], "choice");
    assert_eq!(accept["action"], "accept");
    assert_eq!(offered(accept), tps.iter().map(|id| (*id, title(&seeded[*id]))).collect::<Vec<_>>());
    assert_eq!(accept["schema"]["properties"]["confirm"]["type"], "boolean");
    assert_eq!(accept["schema"]["required"], json!(["note", "confirm"]));
    let picked = accept["picked"].as_str().unwrap();
    assert_eq!(picked, tps[1], "the client picked the second candidate, not a default");
    assert_eq!(text_of(&seen["delete_accept"]), format!("Deleted {picked}."));
    assert!(!dir.workspace().join(format!("{picked}.md")).exists(), "{picked} was deleted");
    let trashed: Vec<PathBuf> =
        std::fs::read_dir(dir.workspace().join(".trash")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(trashed.len(), 1, "exactly one note was deleted: {trashed:?}");
    assert!(trashed[0].to_str().unwrap().ends_with(&format!("--{picked}.md")), "{trashed:?}");
    assert_eq!(std::fs::read_to_string(&trashed[0]).unwrap(), seeded[picked]);
    let remaining_tps: Vec<&str> = tps.iter().copied().filter(|id| *id != picked).collect();

    // Declined and cancelled: offered the two that remain, and nothing more deleted.
    for (elicitation, action, result, says) in [
        (&elicitations[1], "decline", &seen["delete_decline"], "Declined; nothing was deleted."),
        (&elicitations[2], "cancel", &seen["delete_cancel"], "Cancelled; nothing was deleted."),
    ] {
        assert_eq!(elicitation["action"], action);
        assert_eq!(offered(elicitation).iter().map(|(id, _)| *id).collect::<Vec<_>>(), remaining_tps, "{action}");
        assert!(text_of(result).starts_with(says), "{action}: {result}");
    }
    for id in &remaining_tps {
        assert_eq!(std::fs::read_to_string(dir.workspace().join(format!("{id}.md"))).unwrap(), seeded[*id]);
    }

    // summarize_notes: two sampling rounds through the client's own callback.
    let samplings = seen["samplings"].as_array().unwrap();
    assert_eq!(samplings.len(), 2, "{samplings:?}");
    let (pick, summarize) = (&samplings[0], &samplings[1]);
    assert_eq!(pick["key"], "picks");
    let after_delete: Vec<&str> = seeded.keys().map(String::as_str).filter(|id| *id != picked).collect();
    assert_eq!(ids(&pick["offered"]), after_delete, "the prompt lists every note left, as id: title");
    assert!(pick["prompt"].as_str().unwrap().contains("JSON array"));
    assert_eq!(pick["maxTokens"], 200);
    let picks = &after_delete[after_delete.len() - 2..];
    assert_eq!(serde_json::from_str::<Value>(pick["answer"].as_str().unwrap()).unwrap(), json!(picks));
    assert_eq!(summarize["key"], "summary");
    assert_eq!(summarize["maxTokens"], 600);
    let summary_prompt = summarize["prompt"].as_str().unwrap();
    for id in picks {
        assert!(summary_prompt.contains(&seeded[*id]), "the summary prompt carries {id}: {summary_prompt}");
    }
    for id in after_delete.iter().filter(|id| !picks.contains(id)) {
        assert!(!summary_prompt.contains(&seeded[*id]), "{id} was not picked: {summary_prompt}");
    }
    let summary = &seen["summary"];
    assert_eq!(summary["structuredContent"], json!({"picks": picks, "summary": MODEL_SUMMARY}));
    assert_eq!(serde_json::from_str::<Value>(text_of(summary)).unwrap(), summary["structuredContent"]);

    // Reads: a listed URI and one the client expanded from the template.
    let roadmap = note_uri("roadmap-meeting");
    let read = &seen["read_listed"];
    assert_eq!(
        read["contents"],
        json!([{"uri": roadmap, "mimeType": "text/markdown", "text": seeded["roadmap-meeting"]}])
    );
    assert_eq!(read["cacheScope"], "private");
    assert_eq!(seen["templated_uri"], note_uri("reading-list"));
    assert_eq!(
        seen["read_templated"]["contents"],
        json!([{"uri": note_uri("reading-list"), "mimeType": "text/markdown", "text": seeded["reading-list"]}])
    );
    assert_eq!(seen["read_missing"]["code"], -32602);
    assert_eq!(seen["read_missing"]["data"], json!({"uri": note_uri("no-such-note")}));

    // The skill's files, read through the client's resource API: the bytes on disk.
    assert_eq!(
        seen["read_skill"]["contents"],
        json!([{"uri": "skill://tps-report-writing/SKILL.md", "mimeType": "text/markdown", "text": skill_md}])
    );
    let reference = std::fs::read_to_string(dir.0.join("skills/tps-report-writing/references/cover-sheet.md")).unwrap();
    assert_eq!(
        seen["read_skill_reference"]["contents"],
        json!([{
            "uri": "skill://tps-report-writing/references/cover-sheet.md",
            "mimeType": "text/markdown",
            "text": reference,
        }])
    );

    // review_note embeds the note itself, then asks for the review.
    let messages = seen["review"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": {"type": "resource", "resource": {
            "uri": roadmap, "mimeType": "text/markdown", "text": seeded["roadmap-meeting"]}}})
    );
    assert_eq!(messages[1]["role"], "user");
    assert!(messages[1]["content"]["text"].as_str().unwrap().starts_with("Review the note above."));

    // The listen stream: acknowledged as asked, then the create and the edit made through tools
    // reached it, each frame stamped with this listen's id.
    let listen = &seen["listen"];
    let subscription = &listen["subscription_id"];
    assert!(subscription.is_string(), "{listen}");
    assert_eq!(listen["honored"], json!({"resourcesListChanged": true, "resourceSubscriptions": [roadmap]}));
    let created = &listen["created"]["structuredContent"];
    assert_eq!(*created, json!({"id": "listen-probe", "title": "Listen probe", "uri": note_uri("listen-probe")}));
    assert_eq!(listen["edited"]["structuredContent"]["uri"], roadmap);
    // The create's list change comes before the edit's update; repeats are allowed (events are
    // level triggers), anything else is not.
    let events = listen["events"].as_array().unwrap();
    let list_changed = json!({"type": "ResourcesListChanged"});
    let updated = json!({"type": "ResourceUpdated", "uri": roadmap});
    assert_eq!(events.first(), Some(&list_changed), "{events:?}");
    assert_eq!(events.last(), Some(&updated), "{events:?}");
    assert!(events.iter().all(|e| *e == list_changed || *e == updated), "{events:?}");
    let frames = seen["notifications"].as_array().unwrap();
    assert!(frames.len() >= 2, "{frames:?}");
    for frame in frames {
        assert_eq!(frame["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], *subscription, "{frame}");
    }
    let methods: Vec<&str> = frames.iter().map(|f| f["method"].as_str().unwrap()).collect();
    assert!(methods.contains(&"notifications/resources/list_changed"), "{methods:?}");
    assert!(
        frames.iter().any(|f| f["method"] == "notifications/resources/updated" && f["params"]["uri"] == roadmap),
        "{frames:?}"
    );
    for frame in frames.iter().filter(|f| f["method"] == "notifications/resources/updated") {
        assert_eq!(frame["params"]["uri"], roadmap, "only the subscribed note: {frame}");
    }

    // And the disk agrees with everything the client was told.
    let now = dir.notes();
    let mut expected: BTreeMap<String, String> = seeded.clone();
    expected.remove(picked);
    expected.insert("listen-probe".into(), "# Listen probe\n\nMade while listening.\n".into());
    expected.insert("roadmap-meeting".into(), "# Roadmap meeting\n\nEdited while listening.\n".into());
    assert_eq!(now, expected);
    assert_eq!(seen["read_after_edit"]["contents"][0]["text"], now["roadmap-meeting"]);
    assert!(std::fs::symlink_metadata(dir.workspace().join("private-link.md")).unwrap().file_type().is_symlink());
}

#[test]
fn python_sdk_client_over_stdio() {
    let dir = DataDir::new("python-client", "stdio");
    seed(&dir);
    let (workspace, _token) = dir.demo();
    let seeded = dir.notes();
    let seen = run_script(&[&workspace, "stdio", BIN, "--data", dir.arg(), "--stdio"], &[]);
    check(&seen, &dir, &seeded);
}

#[test]
fn python_sdk_client_over_http() {
    let dir = DataDir::new("python-client", "http");
    let server = HttpProcess::spawn(BIN, &["--data", dir.arg()]);
    let (workspace, token) = dir.demo();
    let seeded = dir.notes();
    let url = format!("http://{}/mcp", server.address);
    let seen = run_script(&[&workspace, "http", &url], &[("NOTES_TOKEN", &token)]);
    check(&seen, &dir, &seeded);
    drop(server);
}
