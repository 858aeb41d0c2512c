//! The reference Python client (PyPI `mcp`) drives a stdio server built with the framework.

use std::process::Command;

use mcp_rounds_tests::python;
use serde_json::{Value, json};

#[test]
fn python_sdk_client_discovers_lists_and_calls() {
    let python = python::interpreter();
    let script = python::workspace_root().join("tests/python/interop_client.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_fixture-server"))
        .output()
        .expect("run the Python client");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "Python client failed: {stderr}");
    let seen: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("client output is not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)));

    // Discovery put the client in the modern era, with no initialize handshake.
    assert_eq!(seen["protocol_version"], "2026-07-28");
    assert_eq!(seen["legacy"], false);
    assert_eq!(seen["server_info"], json!({"name": "fixture-server", "version": "0.1.0"}));
    assert_eq!(
        seen["capabilities"],
        json!({
            "logging": {},
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true}
        })
    );
    assert_eq!(seen["instructions"], "Tools for testing mcp-rounds.");

    let names: Vec<&str> = seen["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, mcp_rounds_tests::FIXTURE_TOOLS);
    assert_eq!(seen["tools"][0]["outputSchema"]["required"], json!(["sum"]));
    assert_eq!(seen["tools"][0]["inputSchema"]["properties"]["a"]["description"], "The first number.");
    assert_eq!(seen["tools_cache"], json!({"ttlMs": 300000, "cacheScope": "public"}));

    assert_eq!(seen["add"]["structuredContent"], json!({"sum": 42.5}));
    assert_eq!(seen["add"]["isError"], false);
    assert_eq!(seen["echo"]["content"][0]["text"], "héllo ✓");
    assert_eq!(seen["fail"]["isError"], true);
    assert_eq!(seen["unknown_tool"]["code"], -32602);

    let uris: Vec<&str> = seen["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["fixture://items/0", "fixture://items/1", "fixture://items/2", "fixture://readme"]);
    assert_eq!(seen["templates"][0]["uriTemplate"], "fixture://items/{id}");
    assert_eq!(seen["readme"]["contents"][0]["text"], "# Fixture\n\nA server for tests.");
    assert_eq!(seen["readme"]["ttlMs"], 60000);
    assert_eq!(seen["item"]["contents"][0]["text"], "cherry");
    assert_eq!(seen["missing_resource"], json!({"code": -32602, "data": {"uri": "fixture://items/99"}}));
    assert_eq!(seen["prompts"][0]["name"], "greet");
    assert_eq!(
        seen["prompts"][0]["arguments"][0],
        json!({"name": "name", "description": "Who to greet.", "required": true})
    );
    assert_eq!(seen["greeting"]["messages"][0]["content"]["text"], "Say hi to Ada.");
}

#[test]
fn python_sdk_client_answers_elicitation_and_sampling_rounds() {
    let dir = std::env::temp_dir().join(format!("mcp-rounds-py-rounds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (id, title) in [("q1", "TPS report Q1"), ("draft", "Old TPS report draft"), ("roadmap", "Roadmap")] {
        std::fs::write(dir.join(format!("{id}.md")), format!("# {title}\n")).unwrap();
    }
    let output = Command::new(python::interpreter())
        .arg(python::workspace_root().join("tests/python/interop_rounds.py"))
        .arg(env!("CARGO_BIN_EXE_fixture-server"))
        .args(["--notes", dir.to_str().unwrap()])
        .output()
        .expect("run the Python client");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "Python client failed: {stderr}");
    let seen: Value = serde_json::from_slice(&output.stdout).expect("client output is JSON");

    // The client saw our form (through its own elicitation callback) and answered it.
    let schema = &seen["elicitations"][0]["schema"];
    assert_eq!(schema["properties"]["note"]["oneOf"][0], json!({"const": "draft", "title": "Old TPS report draft"}));
    assert_eq!(seen["deleted"]["content"][0]["text"], "Deleted draft.");
    assert!(!dir.join("draft.md").exists());

    // Two sampling rounds, the model's JSON validated, then a complete result.
    assert_eq!(seen["samplings"].as_array().unwrap().len(), 2);
    assert_eq!(seen["summary"]["structuredContent"], json!({"picks": ["q1"], "summary": "Quarterly numbers."}));

    // A client that declares no elicitation gets -32021 with the exact capability.
    assert_eq!(
        seen["without_elicitation"],
        json!({"code": -32021, "data": {"requiredCapabilities": {"elicitation": {"form": {}}}}})
    );
    let _ = std::fs::remove_dir_all(&dir);
}
