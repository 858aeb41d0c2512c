//! `--sampling-command`: a program that plays the model. It gets the sampling request as JSON
//! on its stdin; what it prints is the reply.

use std::process::Stdio;

use mcp_rounds::model::{CreateMessageRequestParams, CreateMessageResult};
use tokio::io::AsyncWriteExt;

/// Runs `command` through the shell with `request` on its stdin; its stdout (without the
/// final newline) is the model's text.
pub async fn run(command: &str, request: &CreateMessageRequestParams) -> Result<CreateMessageResult, String> {
    let input = serde_json::to_vec(request).map_err(|e| e.to_string())?;
    let mut child = tokio::process::Command::new("sh")
        .args(["-c", command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run --sampling-command: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input is free to: a closed pipe is not an error.
        let _ = stdin.write_all(&input).await;
    }
    let output = child.wait_with_output().await.map_err(|e| format!("--sampling-command failed: {e}"))?;
    if !output.status.success() {
        return Err(format!("--sampling-command exited with {}", output.status));
    }
    let text =
        String::from_utf8(output.stdout).map_err(|_| "--sampling-command printed something that is not UTF-8")?;
    let text = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(&text);
    let model = command.split_whitespace().next().unwrap_or("sampling-command");
    Ok(CreateMessageResult::text_reply(model, text))
}
