//! `--sampling-command`: a program that plays the model. It gets the sampling request as JSON
//! on its stdin; what it prints is the reply. A server decides how often it asks, so each
//! reply has a time limit and a size limit, and one runs at a time; a command stopped is
//! stopped whole, the programs it started included (its own process group).

use std::process::Stdio;
use std::time::Duration;

use mcp_rounds::model::{CreateMessageRequestParams, CreateMessageResult};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The largest reply read from the command.
const MAX_REPLY: u64 = 4 * 1024 * 1024;

/// Runs `command` through the shell with `request` on its stdin; its stdout (without the
/// final newline) is the model's text. Killed, and an error, after `timeout`.
pub async fn run(
    command: &str,
    request: &CreateMessageRequestParams,
    timeout: Duration,
) -> Result<CreateMessageResult, String> {
    let input = serde_json::to_vec(request).map_err(|e| e.to_string())?;
    let mut child = tokio::process::Command::new("sh")
        .args(["-c", command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run --sampling-command: {e}"))?;
    let mut group = Group(child.id());
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("--sampling-command has no stdin or stdout".to_owned());
    };
    let exchange = async {
        // A command that does not read its input is free to: a closed pipe is not an error.
        let _ = stdin.write_all(&input).await;
        drop(stdin);
        let mut reply = Vec::new();
        stdout.take(MAX_REPLY + 1).read_to_end(&mut reply).await.map_err(|e| format!("--sampling-command: {e}"))?;
        if reply.len() as u64 > MAX_REPLY {
            return Err(format!("--sampling-command printed more than {} MiB", MAX_REPLY >> 20));
        }
        let status = child.wait().await.map_err(|e| format!("--sampling-command failed: {e}"))?;
        // Reaped: its id may now be anyone's, so the group is no longer ours to kill.
        group.0 = None;
        Ok((status, reply))
    };
    // On a timeout the exchange is dropped, and with it the child, which is killed.
    let (status, reply) = tokio::time::timeout(timeout, exchange).await.map_err(|_| {
        format!("--sampling-command gave no reply within {} s (--sampling-timeout)", timeout.as_secs_f64())
    })??;
    if !status.success() {
        return Err(format!("--sampling-command exited with {status}"));
    }
    let text = String::from_utf8(reply).map_err(|_| "--sampling-command printed something that is not UTF-8")?;
    let text = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(&text);
    let model = command.split_whitespace().next().unwrap_or("sampling-command");
    Ok(CreateMessageResult::text_reply(model, text))
}

/// The command's process group, killed when the run ends before the command did (a timeout, a
/// reply too long, the call abandoned): nothing it started outlives it. Its leader is not
/// reaped until then, so the id still names this group.
struct Group(Option<u32>);

impl Drop for Group {
    fn drop(&mut self) {
        let group = self.0.and_then(|id| i32::try_from(id).ok()).and_then(rustix::process::Pid::from_raw);
        if let Some(group) = group {
            // Already gone when the command ended by itself with nothing left behind.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
    }
}
