//! `notes_export`, the notes server's task tool: a task for a client that supports tasks (kept
//! in the same SQLite file as the replay store, so it outlives the process), a direct answer
//! for one that does not, and the same workspace scope either way.

mod common;

use common::{DataDir, SALARIES, tool};
use mcp_rounds_tests::stdio::stream_of;
use mcp_rounds_tests::tasks::{TASKS, await_task, task_request};
use serde_json::{Value, json};

fn with_tasks() -> Value {
    json!({"extensions": {TASKS: {}}})
}

/// What an export of the seeded workspace must hold: every note in id order, from the disk.
fn expected_export(data: &DataDir) -> (usize, String) {
    let mut ids = common::md_stems(&data.workspace());
    ids.retain(|id| data.workspace().join(format!("{id}.md")).symlink_metadata().unwrap().is_file());
    let parts: Vec<String> = ids
        .iter()
        .map(|id| {
            let text = std::fs::read_to_string(data.workspace().join(format!("{id}.md"))).unwrap();
            format!("<!-- note: {id} -->\n{text}{}", if text.ends_with('\n') { "" } else { "\n" })
        })
        .collect();
    (ids.len(), parts.join("\n---\n\n"))
}

#[test]
fn an_export_is_a_task_for_clients_that_take_one_and_a_result_for_others() {
    let data = DataDir::seeded("export");
    let ws = data.workspace_uri();
    let (count, markdown) = expected_export(&data);
    assert_eq!(count, 6, "six regular notes; the symlink is not followed");
    let mut server = data.stdio();

    let discover = server.call(&mcp_rounds_tests::request(json!(1), "server/discover", json!({})));
    assert_eq!(discover["result"]["capabilities"]["extensions"][TASKS], json!({}));

    let direct = server.call(&tool(2, "notes_export", json!({"workspaceUri": ws}), json!({})));
    assert_eq!(direct["result"]["resultType"], "complete", "{direct}");
    assert_eq!(direct["result"]["structuredContent"], json!({"count": count, "markdown": markdown}));

    let created = server.call(&tool(3, "notes_export", json!({"workspaceUri": ws}), with_tasks()));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let done = await_task(&mut server, "export", &task, "completed", &|_| false);
    assert_eq!(done["result"]["structuredContent"], json!({"count": count, "markdown": markdown}));
    assert!(!markdown.contains(SALARIES), "the private note is outside the workspace");

    // The scope holds inside a task too: another principal's workspace is refused at once.
    let outside = tool(5, "notes_export", json!({"workspaceUri": data.sibling_uri("private")}), with_tasks());
    let outside = server.call_past(&outside, &|m| *stream_of(m) == "export");
    assert_eq!(outside["result"]["isError"], true, "{outside}");
    assert!(!outside.to_string().contains("Salaries"));

    // The task record lives in the data directory's database: a new process still answers.
    drop(server);
    let mut again = data.stdio();
    let later = again.call(&task_request(json!(6), "tasks/get", json!({"taskId": task})));
    assert_eq!(later["result"]["status"], "completed", "{later}");
    assert_eq!(later["result"]["result"]["structuredContent"]["count"], count);
}
