//! The embedded SQLite replay store: one file shared by every process on the machine.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OptionalExtension, params};

use super::{PendingClaim, ReplayStore, StoreError, millis};
use crate::future::BoxFuture;

/// How long a claim waits for another process's claim to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Nonces in an SQLite file: shared by every process that opens the same file.
#[derive(Clone)]
pub struct SqliteReplayStore {
    path: PathBuf,
    idle: Arc<Mutex<Vec<Connection>>>,
}

impl std::fmt::Debug for SqliteReplayStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteReplayStore").field("path", &self.path).finish_non_exhaustive()
    }
}

pub(crate) fn error(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

/// Runs `op`, again while another process holds the lock it needs. Switching the journal
/// mode and creating the schema can fail with "database is locked" at once, without the
/// busy handler, when two processes open a new file together.
pub(crate) fn when_unlocked<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> Result<T, StoreError> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match op() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other.map_err(error),
        }
    }
}

pub(crate) fn connect(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).map_err(error)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(error)?;
    when_unlocked(|| conn.pragma_update(None, "journal_mode", "WAL"))?;
    when_unlocked(|| conn.pragma_update(None, "synchronous", "NORMAL"))?;
    Ok(conn)
}

pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(work).await.map_err(error)?
}

impl SqliteReplayStore {
    /// Opens (creating if needed) the store in the SQLite file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        let conn = connect(&path)?;
        when_unlocked(|| {
            conn.execute_batch(
                "CREATE TABLE IF NOT EXISTS mcp_rounds_nonces (
                     nonce BLOB PRIMARY KEY,
                     expires_at INTEGER NOT NULL
                 ) WITHOUT ROWID;
                 CREATE INDEX IF NOT EXISTS mcp_rounds_nonces_expiry ON mcp_rounds_nonces (expires_at);",
            )
        })?;
        Ok(SqliteReplayStore { path, idle: Arc::new(Mutex::new(vec![conn])) })
    }

    fn take(&self) -> Result<Connection, StoreError> {
        match self.idle.lock().expect("connection pool lock").pop() {
            Some(conn) => Ok(conn),
            None => connect(&self.path),
        }
    }
}

/// A claim in progress: an open write transaction holding the nonce's row.
pub struct SqliteClaim {
    conn: Option<Connection>,
    idle: Arc<Mutex<Vec<Connection>>>,
}

impl SqliteClaim {
    /// The connection whose open transaction holds the claim: statements run on it commit or
    /// roll back together with the claim.
    pub fn connection(&self) -> &Connection {
        self.conn.as_ref().expect("a pending claim has its connection")
    }
}

impl PendingClaim for SqliteClaim {
    fn commit(mut self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        let conn = self.conn.take().expect("a pending claim has its connection");
        let idle = self.idle.clone();
        Box::pin(async move {
            let conn = blocking(move || {
                conn.execute_batch("COMMIT").map_err(error)?;
                Ok(conn)
            })
            .await?;
            idle.lock().expect("connection pool lock").push(conn);
            Ok(())
        })
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}

impl Drop for SqliteClaim {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // Not committed: the nonce stays free.
            if conn.execute_batch("ROLLBACK").is_ok() {
                self.idle.lock().expect("connection pool lock").push(conn);
            }
        }
    }
}

impl ReplayStore for SqliteReplayStore {
    fn system(&self) -> Option<&'static str> {
        Some("sqlite")
    }

    fn is_claimed(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(async move {
            let conn = self.take()?;
            let idle = self.idle.clone();
            blocking(move || {
                let found = conn
                    .query_row("SELECT 1 FROM mcp_rounds_nonces WHERE nonce = ?1", params![&nonce[..]], |_| Ok(()))
                    .optional()
                    .map_err(error)?
                    .is_some();
                idle.lock().expect("connection pool lock").push(conn);
                Ok(found)
            })
            .await
        })
    }

    fn release(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let conn = self.take()?;
            let idle = self.idle.clone();
            blocking(move || {
                conn.execute("DELETE FROM mcp_rounds_nonces WHERE nonce = ?1", params![&nonce[..]]).map_err(error)?;
                idle.lock().expect("connection pool lock").push(conn);
                Ok(())
            })
            .await
        })
    }

    fn begin(
        &self,
        nonce: [u8; 16],
        expires_at: SystemTime,
    ) -> BoxFuture<'_, Result<Option<Box<dyn PendingClaim>>, StoreError>> {
        Box::pin(async move {
            let conn = self.take()?;
            let idle = self.idle.clone();
            blocking(move || {
                // IMMEDIATE takes the write lock now: claims across processes are serial.
                conn.execute_batch("BEGIN IMMEDIATE").map_err(error)?;
                let outcome = (|| {
                    let now = millis(SystemTime::now());
                    conn.execute("DELETE FROM mcp_rounds_nonces WHERE expires_at <= ?1", params![now])?;
                    conn.execute(
                        "INSERT OR IGNORE INTO mcp_rounds_nonces (nonce, expires_at) VALUES (?1, ?2)",
                        params![&nonce[..], millis(expires_at)],
                    )
                })();
                match outcome {
                    Ok(1) => Ok(Some(Box::new(SqliteClaim { conn: Some(conn), idle }) as Box<dyn PendingClaim>)),
                    Ok(_) => {
                        conn.execute_batch("ROLLBACK").map_err(error)?;
                        idle.lock().expect("connection pool lock").push(conn);
                        Ok(None)
                    }
                    Err(e) => {
                        let _ = conn.execute_batch("ROLLBACK");
                        Err(error(e))
                    }
                }
            })
            .await
        })
    }
}
