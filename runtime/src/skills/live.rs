//! A skills directory served while it changes: the operating system reports every change below
//! it, a thread reads the directory again once a burst of changes settles, and when what is
//! served differs, the new catalog replaces the old one whole (a request sees one or the other,
//! never a mix) and listeners hear of it.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use notify::{RecursiveMode, Watcher as _};

use super::Catalog;
use crate::changes::Changes;

/// How long changes keep arriving before the directory is read again: an editor's save or a
/// `git checkout` is many events, and one read after them all serves their result.
const SETTLE: Duration = Duration::from_millis(50);

/// The skills of one directory, kept current.
#[derive(Debug)]
pub(crate) struct Live {
    root: PathBuf,
    current: RwLock<Arc<Catalog>>,
    /// Dropped with the server, which ends the thread that reloads.
    watcher: Mutex<Option<notify::RecommendedWatcher>>,
}

impl Live {
    /// Reads the skills in `root`; fails when `root` cannot be read. What is wrong with single
    /// skills is logged, and the others are served.
    pub(crate) fn open(root: &Path) -> std::io::Result<Arc<Live>> {
        let catalog = Catalog::load(root)?;
        report(&catalog);
        Ok(Arc::new(Live { root: root.to_owned(), current: RwLock::new(Arc::new(catalog)), watcher: Mutex::new(None) }))
    }

    /// What is served now.
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.current.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// Watches the directory from now on, announcing what changes through `changes`. Where the
    /// system cannot watch it, the skills read at the start are served and a warning says so.
    pub(crate) fn watch(self: &Arc<Self>, changes: Changes) {
        let (events, received) = std::sync::mpsc::channel();
        let watcher = notify::recommended_watcher(events).and_then(|mut watcher| {
            watcher.watch(&self.root, RecursiveMode::Recursive)?;
            Ok(watcher)
        });
        let watcher = match watcher {
            Ok(watcher) => watcher,
            Err(error) => {
                tracing::warn!(dir = %self.root.display(), %error, "skills are not reloaded when they change");
                return;
            }
        };
        *self.watcher.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(watcher);
        let live = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("mcp-rounds-skills".into())
            .spawn(move || reload_on_change(&live, &received, &changes));
        if let Err(error) = spawned {
            tracing::warn!(%error, "skills are not reloaded when they change");
        }
    }

    /// Reads the directory again and serves what it holds now, announcing any difference.
    pub(crate) fn reload(&self, changes: &Changes) {
        let catalog = match Catalog::load(&self.root) {
            Ok(catalog) => catalog,
            Err(error) => {
                // The directory itself is gone or unreadable: it serves no skill now.
                tracing::warn!(dir = %self.root.display(), %error, "the skills directory cannot be read");
                Catalog::default()
            }
        };
        let old = self.catalog();
        if old.same_as(&catalog) {
            return;
        }
        report(&catalog);
        let before = old.digests();
        let after = catalog.digests();
        let updated: Vec<String> = before
            .iter()
            .filter(|(uri, digest)| after.get(*uri) != Some(*digest))
            .map(|(uri, _)| uri.clone())
            .collect();
        *self.current.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::new(catalog);
        // The skills' entries changed (skills/list says so), and with them the listing.
        changes.resources_list_changed();
        for uri in updated {
            changes.resource_updated(&uri);
        }
    }
}

/// Reloads after each burst of changes, until the server (and with it the watcher, the sender
/// of `received`) is gone.
fn reload_on_change(live: &Weak<Live>, received: &Receiver<notify::Result<notify::Event>>, changes: &Changes) {
    while let Ok(event) = received.recv() {
        if !changes_content(&event) {
            continue;
        }
        loop {
            match received.recv_timeout(SETTLE) {
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        match live.upgrade() {
            Some(live) => live.reload(changes),
            None => return,
        }
    }
}

/// Whether `event` may change what is served: not a file merely opened or read (the reload's
/// own reads are such events, and must not set off another), and an error of the watch may
/// have hidden anything.
fn changes_content(event: &notify::Result<notify::Event>) -> bool {
    match event {
        Ok(event) => !matches!(
            event.kind,
            notify::EventKind::Access(
                notify::event::AccessKind::Open(_)
                    | notify::event::AccessKind::Read
                    | notify::event::AccessKind::Close(notify::event::AccessMode::Read)
            )
        ),
        Err(_) => true,
    }
}

/// Logs each skill left out, with why (a path and a reason: never a file's content).
fn report(catalog: &Catalog) {
    for problem in catalog.problems() {
        tracing::warn!(path = %problem.path, reason = %problem.reason, "skill not served");
    }
}
