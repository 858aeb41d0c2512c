//! `[model] provider = "builtin"`: summarize_notes runs on the server's own model, with no
//! sampling round and no sampling capability needed.

use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

#[test]
fn the_builtin_model_summarizes_in_one_call() {
    let dir = std::env::temp_dir().join(format!("notes-model-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.to_str().unwrap().to_owned();
    let mut seeding = StdioProcess::spawn(BIN, &["--data", &data, "--stdio"]);
    seeding.call(&request(json!(0), "server/discover", json!({})));
    drop(seeding);
    let config = std::fs::read_to_string(dir.join("config.toml")).unwrap();
    std::fs::write(dir.join("config.toml"), config.replace("provider = \"sampling\"", "provider = \"builtin\""))
        .unwrap();

    let mut server = StdioProcess::spawn(BIN, &["--data", &data, "--stdio"]);
    let workspace = format!("file://{}/workspace", std::fs::canonicalize(&dir).unwrap().display());
    // No capabilities at all: the client's model is never asked.
    let answer = server.call(&request(
        json!(1),
        "tools/call",
        json!({"name": "summarize_notes", "arguments": {"workspaceUri": workspace, "query": "tps"}}),
    ));
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete", "{answer}");
    assert_eq!(
        result["structuredContent"]["picks"],
        json!(["tps-report-2026-q1", "tps-report-cover-sheet", "tps-report-draft-old"])
    );
    let summary = result["structuredContent"]["summary"].as_str().unwrap();
    assert!(summary.starts_with("3 notes:\n- TPS report Q1 2026: Numbers for the first quarter."), "{summary}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
