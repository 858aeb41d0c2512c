//! Tasks in PostgreSQL: one table shared by every instance on every machine, in the same
//! database (and, if you like, the same connection pool) as the replay store.
//!
//! A task is one row: its id, its version, when it expires, and the record as JSON text. A
//! change is a compare-and-swap on the version, so of two instances that read the same version
//! exactly one writes the next.

use deadpool_postgres::Pool;

use super::{StoreError, TaskRecord, TaskStore};
use crate::future::BoxFuture;
use crate::replay::PostgresReplayStore;
use crate::replay::postgres::{connection, delete_in_batches, error};

/// Tasks in PostgreSQL, for many server instances behind a load balancer.
///
/// ```no_run
/// use mcp_rounds::Server;
/// use mcp_rounds::replay::PostgresReplayStore;
/// use mcp_rounds::tasks::PostgresTaskStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let replay = PostgresReplayStore::connect("postgres://notes@db.internal/notes").await?;
/// // One pool for both.
/// let tasks = PostgresTaskStore::sharing(&replay);
/// let server = Server::builder("notes", "1.0.0").replay_store(replay).task_store(tasks);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PostgresTaskStore {
    pool: Pool,
}

impl std::fmt::Debug for PostgresTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL: it may hold a password.
        f.debug_struct("PostgresTaskStore").field("status", &self.pool.status()).finish_non_exhaustive()
    }
}

impl PostgresTaskStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`),
    /// creating or migrating its tables. Fails when the database cannot be reached. A server
    /// that also keeps its nonces there opens one pool with [`sharing`](Self::sharing).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        PostgresReplayStore::connect(url).await.map(|replay| Self::sharing(&replay))
    }

    /// The store on the connection pool (and database) of `replay`, whose connecting created
    /// the tasks table.
    pub fn sharing(replay: &PostgresReplayStore) -> Self {
        PostgresTaskStore { pool: replay.pool().clone() }
    }

    /// The connection pool, for the application's own queries on the same database.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }
}

/// The columns of a row: id, version, expiry, record.
fn row(task: &TaskRecord) -> Result<(String, i64, Option<i64>, String), StoreError> {
    let version = i64::try_from(task.version).map_err(error)?;
    let json = serde_json::to_string(task).map_err(error)?;
    Ok((task.id.clone(), version, task.expires_at_ms(), json))
}

impl TaskStore for PostgresTaskStore {
    fn create(&self, task: &TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let row = row(task);
        Box::pin(async move {
            let (id, version, expires_at, json) = row?;
            let conn = connection(&self.pool).await?;
            conn.execute(
                "INSERT INTO mcp_rounds_tasks (id, version, expires_at, record) VALUES ($1, $2, $3, $4)",
                &[&id, &version, &expires_at, &json],
            )
            .await
            .map(drop)
            .map_err(error)
        })
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, StoreError>> {
        let id = id.to_owned();
        Box::pin(async move {
            let conn = connection(&self.pool).await?;
            let row =
                conn.query_opt("SELECT record FROM mcp_rounds_tasks WHERE id = $1", &[&id]).await.map_err(error)?;
            row.map(|row| serde_json::from_str(row.get(0)).map_err(error)).transpose()
        })
    }

    fn replace(&self, task: &TaskRecord) -> BoxFuture<'_, Result<bool, StoreError>> {
        let row = row(task);
        Box::pin(async move {
            let (id, version, expires_at, json) = row?;
            let conn = connection(&self.pool).await?;
            let changed = conn
                .execute(
                    "UPDATE mcp_rounds_tasks SET version = $2, expires_at = $3, record = $4
                     WHERE id = $1 AND version = $2::BIGINT - 1",
                    &[&id, &version, &expires_at, &json],
                )
                .await
                .map_err(error)?;
            Ok(changed == 1)
        })
    }

    fn prune(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            let conn = connection(&self.pool).await?;
            // In batches that never wait on a task being changed (it is pruned next time).
            delete_in_batches(
                &conn,
                "DELETE FROM mcp_rounds_tasks WHERE id IN (
                     SELECT id FROM mcp_rounds_tasks WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
                now_ms,
            )
            .await
        })
    }
}
