//! Completions, prompts and resources against the conformance suite's server over HTTP: what
//! the suite's fixtures offer, printed for a person and as JSON.

mod common;

use common::{conformance_server, run, text};
use mcp_rounds_tests::http::HttpProcess;
use serde_json::{Value, json};

#[test]
fn completions_prompts_and_resources_print_for_people_and_scripts() {
    let server = HttpProcess::spawn(conformance_server().to_str().unwrap(), &[]);
    let url = format!("http://{}/mcp", server.address);
    let ok = |args: &[&str]| -> String {
        let mut args = args.to_vec();
        args.extend(["--url", &url]);
        let output = run(&args, &[]);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", text(&output.stderr));
        text(&output.stdout)
    };

    let values = ok(&["complete", "prompt", "test_prompt_with_arguments", "arg1", "test"]);
    assert_eq!(values, "test\ntestValue1\ntestValue2\ntested\n");
    let values = ok(&["complete", "prompt", "test_prompt_with_arguments", "arg2", "teste", "--context", "arg1=x"]);
    assert_eq!(values, "tested\n");

    let prompt = ok(&["prompts", "get", "test_prompt_with_arguments", "arg1=a", "arg2=b=c"]);
    assert!(prompt.contains("user:\nPrompt with arguments: arg1='a', arg2='b=c'"), "{prompt}");
    let missing = run(&["prompts", "get", "test_prompt_with_arguments", "arg1=a", "--url", &url], &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("prompt `test_prompt_with_arguments` needs argument `arg2`"));

    assert_eq!(ok(&["resources", "read", "test://static-text"]).lines().count(), 1);
    // Into a pipe, a resource is written byte for byte, as `cat` would (a terminal gets a summary).
    let binary = run(&["resources", "read", "test://static-binary", "--url", &url], &[]);
    assert_eq!(binary.status.code(), Some(0));
    assert!(
        binary.stdout.starts_with(b"\x89PNG\r\n\x1a\n"),
        "the image itself: {:?}",
        &binary.stdout[..16.min(binary.stdout.len())]
    );
    let read: Value = serde_json::from_str(&ok(&["--json", "resources", "read", "test://template/7/data"])).unwrap();
    assert_eq!(read["contents"][0]["uri"], "test://template/7/data");

    let templates: Value = serde_json::from_str(&ok(&["--json", "resources", "templates"])).unwrap();
    let listed: Vec<&Value> = templates["resourceTemplates"].as_array().unwrap().iter().collect();
    assert!(listed.iter().any(|t| t["uriTemplate"] == "test://template/{id}/data"), "{templates}");
    let discovered: Value = serde_json::from_str(&ok(&["--json", "discover"])).unwrap();
    assert_eq!(discovered["supportedVersions"], json!(["2026-07-28"]), "{discovered}");
    let legacy: Value = serde_json::from_str(&ok(&["--json", "discover", "--protocol", "2025-11-25"])).unwrap();
    assert_eq!(legacy["protocolVersion"], "2025-11-25", "{legacy}");
    server.stop();
}
