//! Waiting for what sends no message: a file a tool leaves behind (the filesystem says when it
//! appears), and a deadline the test computed from a lifetime it configured.

use std::path::Path;
use std::sync::mpsc::channel;
use std::time::Instant;

use notify::{RecursiveMode, Watcher};

use crate::stdio::LINE_TIMEOUT;

/// Waits until `path` exists, woken by changes to its directory rather than polling (the
/// fixture's tools leave marker files to show what they saw). Fails after [`LINE_TIMEOUT`].
pub fn for_file(path: &Path) {
    let (changed, changes) = channel();
    let mut watcher = notify::recommended_watcher(changed).expect("a file watcher");
    let dir = path.parent().expect("a file in a directory");
    watcher.watch(dir, RecursiveMode::NonRecursive).expect("watch the directory");
    let deadline = Instant::now() + LINE_TIMEOUT;
    // Checked after the watch began, so a file made meanwhile is either seen here or announced.
    while !path.exists() {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(changes.recv_timeout(left).is_ok(), "{} never appeared", path.display());
    }
}

/// Sleeps until `deadline`: only for an expiry (a state's, a lease's), which nothing announces.
/// The caller computes the deadline as the latest moment the thing can expire, and says how.
pub fn until(deadline: Instant) {
    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
}
