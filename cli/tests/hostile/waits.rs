//! How long the command waits: for a silent server (`--idle-timeout`), for a whole answer
//! (`--timeout`), and for a sampling command (`--sampling-timeout`, one run at a time).

use std::time::Duration;

use crate::{Scratch, hostile, run, run_env};

/// Well before anything a person would notice as hanging, and far from the 30 s and more the
/// server would wait.
const SOON: Duration = Duration::from_secs(10);

#[test]
fn a_silent_server_is_given_up_on_after_the_idle_timeout() {
    let server = hostile();
    // `silent` sends its headers and then nothing; `no-headers` not even those.
    for scenario in ["silent", "no-headers"] {
        let ran = run(&["tools", "call", "hang", "--idle-timeout", "1", "--url", &server.url(scenario)]);
        assert_eq!(ran.code, 4, "{scenario}: {}", ran.said());
        assert!(ran.stderr.contains("mcp-rounds: tools/call: no answer within 1s"), "{scenario}: {}", ran.said());
        assert!(ran.stderr.contains("--idle-timeout"), "{scenario}: {}", ran.said());
        assert!(ran.took >= Duration::from_secs(1) && ran.took < SOON, "{scenario}: took {:?}", ran.took);
    }
}

#[test]
fn keep_alive_comments_hold_off_the_idle_timeout_but_not_the_request_timeout() {
    // `drip` sends an event-stream comment every 200 ms and never an answer. The comments count
    // as the server being alive: they reset the idle timer, so a 1 s idle timeout never fires,
    // and the call ends by its 2 s request timeout (a comment-only stream can hold a call open
    // for as long as no --timeout is given).
    let server = hostile();
    let url = server.url("drip");
    let ran = run(&["tools", "call", "hang", "--idle-timeout", "1", "--timeout", "2", "--url", &url]);
    assert_eq!(ran.code, 4, "{}", ran.said());
    assert!(ran.stderr.contains("mcp-rounds: tools/call: no answer within 2s"), "{}", ran.said());
    assert!(ran.took >= Duration::from_secs(2) && ran.took < SOON, "took {:?}", ran.took);
    assert!(server.record()["bytes_sent"]["drip"].as_u64() > Some(0), "the comments did come");
}

#[test]
fn sampling_commands_run_one_at_a_time() {
    let server = hostile();
    let scratch = Scratch::new("sampling");
    let dir = scratch.path().display().to_string();
    // Fails (exit 7) if another run holds the lock: four at once would fail three.
    let script = r#"mkdir "$DIR/lock" || exit 7; echo run >> "$DIR/runs"; sleep 0.2; rmdir "$DIR/lock"; echo reply"#;
    let url = server.url("sampling?count=4");
    let ran = run_env(&["tools", "call", "think", "--sampling-command", script, "--url", &url], &[], &[("DIR", &dir)]);
    assert_eq!(ran.code, 0, "{}", ran.said());
    assert!(ran.out().contains("got 4 answers"), "{}", ran.said());
    let runs = std::fs::read_to_string(scratch.path().join("runs")).expect("the runs were counted");
    assert_eq!(runs.lines().count(), 4, "one run a request");
}

#[test]
fn a_sampling_command_that_does_not_reply_in_time_fails_the_call() {
    let server = hostile();
    let url = server.url("sampling?count=1");
    let args = ["tools", "call", "think", "--sampling-timeout", "1", "--sampling-command", "sleep 60", "--url", &url];
    let ran = run(&args);
    assert_eq!(ran.code, 5, "{}", ran.said());
    assert!(
        ran.stderr.contains(
            "could not answer sampling request `s0`: --sampling-command gave no reply within 1 s (--sampling-timeout)"
        ),
        "{}",
        ran.said()
    );
    assert!(ran.took >= Duration::from_secs(1) && ran.took < SOON, "took {:?}", ran.took);
}

#[test]
fn a_sampling_command_past_its_time_is_stopped_whole() {
    // What the command runs is stopped, not only the shell that started it: a process left
    // behind keeps working, and keeps the command's stderr open for whoever reads it (`2>&1 |
    // tee`, `$(…)`), who then waits for it.
    let server = hostile();
    let scratch = Scratch::new("sampling-stop");
    let dir = scratch.path().display().to_string();
    let script = r#"sleep 60 & echo $! > "$DIR/sleep.pid"; wait"#;
    let url = server.url("sampling?count=1");
    let args = ["tools", "call", "think", "--sampling-timeout", "1", "--sampling-command", script, "--url", &url];
    let ran = run_env(&args, &[], &[("DIR", &dir)]);
    assert_eq!(ran.code, 5, "{}", ran.said());
    let pid = std::fs::read_to_string(scratch.path().join("sleep.pid")).expect("the script started its sleep");
    let pid = pid.trim();
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
    let ours = std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|line| line.split(|b| *b == 0).eq([&b"sleep"[..], b"60", b""]));
    let alive = ours && state.as_deref().is_some_and(|stat| !stat.contains(") Z "));
    if alive {
        // Whatever the verdict, the sleep this test's script started goes, by its id.
        let _ = std::process::Command::new("kill").arg(pid).status();
    }
    assert!(!alive, "the sampling command's sleep (pid {pid}) still runs after the command exited: {state:?}");
}
