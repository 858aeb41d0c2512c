//! The PostgreSQL replay store: one table shared by every instance on every machine.
//!
//! A claim is a row inserted in an open transaction: a second claim of the same nonce waits on
//! the row's unique index until the first commits (then it finds the nonce taken) or rolls back
//! (then it takes it). The transaction is the claim's, so a mutation in the same database can
//! run inside it (see [`Claim`](crate::rounds::Claim)) and commit or roll back with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};

use super::{PendingClaim, ReplayStore, StoreError, millis};
use crate::future::BoxFuture;

mod settings;
mod tls;

pub use settings::PostgresSettings;

/// Expired nonces are pruned this long after they expire, so that clocks of different
/// machines that disagree a little never let a state outlive its nonce.
const PRUNE_GRACE: Duration = Duration::from_secs(60);
/// Every this many claims, expired nonces are pruned in the background.
const PRUNE_EVERY: u64 = 1024;
/// At most this many expired nonces are removed per pruning statement.
const PRUNE_BATCH: i64 = 5_000;

/// Serializes schema changes between instances starting at the same time.
const MIGRATION_LOCK: i64 = 0x6d63_702d_726f_756e; // "mcp-roun"

/// The schema of every mcp-rounds table (the replay store's and the task store's), one
/// statement list per version; applied in order, once. Only ever append.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE mcp_rounds_nonces (
        nonce BYTEA PRIMARY KEY,
        expires_at BIGINT NOT NULL
    );
    CREATE INDEX mcp_rounds_nonces_expiry ON mcp_rounds_nonces (expires_at);",
    // The record is kept as the JSON text it was written as (not JSONB, which reorders keys).
    "CREATE TABLE mcp_rounds_tasks (
        id TEXT PRIMARY KEY,
        version BIGINT NOT NULL,
        expires_at BIGINT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX mcp_rounds_tasks_expiry ON mcp_rounds_tasks (expires_at);",
];

pub(crate) fn error(e: impl std::error::Error) -> StoreError {
    StoreError(describe(&e))
}

/// An error and what caused it, each said once: tokio-postgres and the pool keep the reason a
/// connection failed (a certificate refused, say) in the cause, not in their own message.
pub(crate) fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let said = inner.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = inner.source();
    }
    text
}

/// A pooled connection, or why there is none.
pub(crate) async fn connection(pool: &Pool) -> Result<Object, StoreError> {
    pool.get().await.map_err(|e| StoreError(format!("cannot reach PostgreSQL: {}", describe(&e))))
}

/// Runs `statement` (a `DELETE` of at most `$2` rows that expired before `$1`, skipping rows
/// locked by someone else) until a batch comes short. Returns how many rows were removed.
pub(crate) async fn delete_in_batches(conn: &Object, statement: &str, cutoff: i64) -> Result<u64, StoreError> {
    let mut removed = 0;
    loop {
        let batch = conn.execute(statement, &[&cutoff, &PRUNE_BATCH]).await.map_err(error)?;
        removed += batch;
        if batch < PRUNE_BATCH as u64 {
            return Ok(removed);
        }
    }
}

/// Nonces in PostgreSQL, for many server instances behind a load balancer. Its connections are
/// secured as its [`PostgresSettings`] say: verified TLS unless the URL says `sslmode=disable`
/// or the database is on this machine.
///
/// ```no_run
/// use mcp_rounds::Server;
/// use mcp_rounds::replay::PostgresReplayStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = PostgresReplayStore::connect("postgres://notes@db.internal/notes").await?;
/// let server = Server::builder("notes", "1.0.0").replay_store(store);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PostgresReplayStore {
    pool: Pool,
    claims: Arc<AtomicU64>,
}

impl std::fmt::Debug for PostgresReplayStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL: it may hold a password.
        f.debug_struct("PostgresReplayStore").field("status", &self.pool.status()).finish_non_exhaustive()
    }
}

impl PostgresReplayStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, TLS as
    /// [`PostgresSettings`] reads it), creating or migrating its tables. Fails when the database
    /// cannot be reached.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, 32).await
    }

    /// [`connect`](Self::connect) with at most `max_connections` connections; a claim holds
    /// one while its tool runs.
    pub async fn connect_with(url: &str, max_connections: usize) -> Result<Self, StoreError> {
        Self::connect_settings(&PostgresSettings::from_url(url)?, max_connections).await
    }

    /// [`connect_with`](Self::connect_with) settings read already (a CA file added, say).
    pub async fn connect_settings(settings: &PostgresSettings, max_connections: usize) -> Result<Self, StoreError> {
        let mut config = settings.config();
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        if config.get_application_name().is_none() {
            config.application_name("mcp-rounds");
        }
        let manager = Manager::from_config(
            config,
            settings.connector(),
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(max_connections.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(30)))
            .create_timeout(Some(Duration::from_secs(5)))
            .build()
            .map_err(error)?;
        let store = PostgresReplayStore { pool, claims: Arc::default() };
        store.migrate().await?;
        Ok(store)
    }

    /// The connection pool, for the application's own queries on the same database.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    async fn connection(&self) -> Result<Object, StoreError> {
        connection(&self.pool).await
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self.connection().await?;
        let tx = conn.transaction().await.map_err(error)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.map_err(error)?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS mcp_rounds_schema (version INTEGER NOT NULL)")
            .await
            .map_err(error)?;
        let applied: i32 = tx
            .query_opt("SELECT version FROM mcp_rounds_schema", &[])
            .await
            .map_err(error)?
            .map_or(0, |row| row.get(0));
        let applied = usize::try_from(applied).unwrap_or(0);
        if applied > MIGRATIONS.len() {
            return Err(StoreError(format!(
                "the database has mcp-rounds schema version {applied}, newer than this server knows ({})",
                MIGRATIONS.len()
            )));
        }
        for migration in &MIGRATIONS[applied..] {
            tx.batch_execute(migration).await.map_err(error)?;
        }
        tx.execute("DELETE FROM mcp_rounds_schema", &[]).await.map_err(error)?;
        tx.execute("INSERT INTO mcp_rounds_schema (version) VALUES ($1)", &[&(MIGRATIONS.len() as i32)])
            .await
            .map_err(error)?;
        tx.commit().await.map_err(error)
    }

    /// Removes nonces that expired (a minute ago or more), in batches that never wait on a
    /// claim in progress. Returns how many were removed.
    pub async fn prune(&self) -> Result<u64, StoreError> {
        let conn = self.connection().await?;
        let cutoff = millis(SystemTime::now() - PRUNE_GRACE);
        delete_in_batches(
            &conn,
            "DELETE FROM mcp_rounds_nonces WHERE nonce IN (
                 SELECT nonce FROM mcp_rounds_nonces WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
            cutoff,
        )
        .await
    }

    fn maybe_prune(&self) {
        if self.claims.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            let store = self.clone();
            tokio::spawn(async move {
                if let Err(e) = store.prune().await {
                    tracing::warn!(error = %e, "pruning expired nonces failed");
                }
            });
        }
    }
}

/// A claim in progress: an open transaction holding the nonce's row.
pub struct PostgresClaim {
    conn: Option<Object>,
}

impl PostgresClaim {
    /// The connection whose open transaction holds the claim: statements run on it commit or
    /// roll back together with the claim.
    pub fn client(&self) -> &tokio_postgres::Client {
        self.conn.as_ref().expect("a pending claim has its connection")
    }
}

impl PendingClaim for PostgresClaim {
    fn commit(mut self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        let conn = self.conn.take().expect("a pending claim has its connection");
        Box::pin(async move {
            match conn.batch_execute("COMMIT").await {
                Ok(()) => Ok(()),
                Err(e) => {
                    // Its state is unknown: never hand it to anyone else.
                    drop(Object::take(conn));
                    Err(StoreError(format!("the claim could not be committed: {e}")))
                }
            }
        })
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}

impl Drop for PostgresClaim {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // Not committed: closing the connection rolls the transaction back, and a
            // connection in the middle of a transaction must not go back to the pool.
            drop(Object::take(conn));
        }
    }
}

impl ReplayStore for PostgresReplayStore {
    fn system(&self) -> Option<&'static str> {
        Some("postgresql")
    }

    fn is_claimed(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(async move {
            let conn = self.connection().await?;
            let row = conn
                .query_opt("SELECT 1 FROM mcp_rounds_nonces WHERE nonce = $1", &[&&nonce[..]])
                .await
                .map_err(error)?;
            Ok(row.is_some())
        })
    }

    fn release(&self, nonce: [u8; 16]) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let conn = self.connection().await?;
            conn.execute("DELETE FROM mcp_rounds_nonces WHERE nonce = $1", &[&&nonce[..]]).await.map_err(error)?;
            Ok(())
        })
    }

    fn begin(
        &self,
        nonce: [u8; 16],
        expires_at: SystemTime,
    ) -> BoxFuture<'_, Result<Option<Box<dyn PendingClaim>>, StoreError>> {
        Box::pin(async move {
            self.maybe_prune();
            let conn = self.connection().await?;
            let claimed = async {
                conn.batch_execute("BEGIN").await?;
                conn.execute(
                    "INSERT INTO mcp_rounds_nonces (nonce, expires_at) VALUES ($1, $2) ON CONFLICT (nonce) DO NOTHING",
                    &[&&nonce[..], &millis(expires_at)],
                )
                .await
            }
            .await;
            match claimed {
                Ok(1) => Ok(Some(Box::new(PostgresClaim { conn: Some(conn) }) as Box<dyn PendingClaim>)),
                Ok(_) => match conn.batch_execute("ROLLBACK").await {
                    Ok(()) => Ok(None),
                    Err(e) => {
                        drop(Object::take(conn));
                        Err(error(e))
                    }
                },
                Err(e) => {
                    drop(Object::take(conn));
                    Err(StoreError(format!("the claim failed: {e}")))
                }
            }
        })
    }
}
