//! Running a helper program (a client script, a CLI) to its end, with a bound on how long.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

/// Runs `command` with no input until it exits, or kills it after `timeout` and panics naming
/// `what`. Returns its status, stdout and stderr; both are drained on threads of their own, so
/// an output bigger than a pipe buffer cannot stall it.
pub fn run_to_end(mut command: Command, timeout: Duration, what: &str) -> (ExitStatus, String, String) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).map(|_| text)
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let err = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let Some(status) = child.wait_timeout(timeout).expect("wait for the child") else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what} did not finish in {timeout:?}: {}", err.join().unwrap().unwrap_or_default());
    };
    (status, out.join().unwrap().unwrap_or_default(), err.join().unwrap().unwrap_or_default())
}
