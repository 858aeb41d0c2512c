//! Tasks in the embedded SQLite file: shared by every process on the machine that opens it
//! (the same file as the replay store, if you like; the tables are apart).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};

use super::{StoreError, TaskRecord, TaskStore};
use crate::future::BoxFuture;
use crate::replay::sqlite::{blocking, connect, error, when_unlocked};

/// Tasks in an SQLite file.
#[derive(Clone)]
pub struct SqliteTaskStore {
    path: PathBuf,
    idle: Arc<Mutex<Vec<Connection>>>,
}

impl std::fmt::Debug for SqliteTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteTaskStore").field("path", &self.path).finish_non_exhaustive()
    }
}

impl SqliteTaskStore {
    /// Opens (creating if needed) the store in the SQLite file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        let conn = connect(&path)?;
        when_unlocked(|| {
            conn.execute_batch(
                "CREATE TABLE IF NOT EXISTS mcp_rounds_tasks (
                     id TEXT PRIMARY KEY,
                     version INTEGER NOT NULL,
                     expires_at INTEGER,
                     record TEXT NOT NULL
                 ) WITHOUT ROWID;
                 CREATE INDEX IF NOT EXISTS mcp_rounds_tasks_expiry ON mcp_rounds_tasks (expires_at);",
            )
        })?;
        Ok(SqliteTaskStore { path, idle: Arc::new(Mutex::new(vec![conn])) })
    }

    /// Runs `work` on a pooled connection, off the async threads.
    async fn with<T: Send + 'static>(
        &self,
        work: impl Fn(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let conn = match self.idle.lock().expect("connection pool lock").pop() {
            Some(conn) => conn,
            None => connect(&self.path)?,
        };
        let idle = self.idle.clone();
        blocking(move || {
            let outcome = when_unlocked(|| work(&conn));
            idle.lock().expect("connection pool lock").push(conn);
            outcome
        })
        .await
    }
}

fn encode(task: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(task).map_err(error)
}

impl TaskStore for SqliteTaskStore {
    fn create(&self, task: &TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let row = encode(task).map(|json| (task.id.clone(), task.version as i64, task.expires_at_ms(), json));
        Box::pin(async move {
            let (id, version, expires_at, json) = row?;
            self.with(move |conn| {
                conn.execute(
                    "INSERT INTO mcp_rounds_tasks (id, version, expires_at, record) VALUES (?1, ?2, ?3, ?4)",
                    params![id, version, expires_at, json],
                )
            })
            .await
            .map(drop)
        })
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, StoreError>> {
        let id = id.to_owned();
        Box::pin(async move {
            let json: Option<String> = self
                .with(move |conn| {
                    conn.query_row("SELECT record FROM mcp_rounds_tasks WHERE id = ?1", params![id], |row| row.get(0))
                        .optional()
                })
                .await?;
            json.map(|json| serde_json::from_str(&json).map_err(error)).transpose()
        })
    }

    fn replace(&self, task: &TaskRecord) -> BoxFuture<'_, Result<bool, StoreError>> {
        let row = encode(task).map(|json| (task.id.clone(), task.version as i64, task.expires_at_ms(), json));
        Box::pin(async move {
            let (id, version, expires_at, json) = row?;
            let changed = self
                .with(move |conn| {
                    conn.execute(
                        "UPDATE mcp_rounds_tasks SET version = ?2, expires_at = ?3, record = ?4
                         WHERE id = ?1 AND version = ?2 - 1",
                        params![id, version, expires_at, json],
                    )
                })
                .await?;
            Ok(changed == 1)
        })
    }

    fn prune(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let deleted = self
                .with(move |conn| {
                    conn.execute(
                        "DELETE FROM mcp_rounds_tasks WHERE expires_at IS NOT NULL AND expires_at < ?1",
                        params![now_ms],
                    )
                })
                .await?;
            Ok(deleted as u64)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_sqlite_store_keeps_the_contract_and_survives_reopening() {
        let path = std::env::temp_dir().join(format!("mcp-rounds-tasks-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let store = SqliteTaskStore::open(&path).unwrap();
        super::super::tests::store_contract(&store).await;
        let reopened = SqliteTaskStore::open(&path).unwrap();
        assert!(reopened.get("t-forever").await.unwrap().is_some(), "what was stored is still there");
        let _ = std::fs::remove_file(&path);
    }
}
