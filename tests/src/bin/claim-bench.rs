//! Claims per second of the replay stores side by side: the embedded SQLite file and
//! PostgreSQL, at 1, 4 and 16 concurrent clients. Each claim is what a confirmed single-use
//! round costs the store: begin (insert the nonce in a transaction) and commit.
//!
//! `claim-bench [--seconds N]`; run it through `scripts/claim-bench`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use mcp_rounds::replay::{PostgresReplayStore, ReplayStore, SqliteReplayStore};
use mcp_rounds_tests::postgres;

async fn claims_per_second(store: Arc<dyn ReplayStore>, clients: usize, seconds: f64) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (store, done) = (store.clone(), done.clone());
            tokio::spawn(async move {
                let expires = SystemTime::now() + Duration::from_secs(300);
                while Instant::now() < deadline {
                    let mut nonce = [0u8; 16];
                    getrandom::fill(&mut nonce).unwrap();
                    let claim = store.begin(nonce, expires).await.unwrap().expect("a fresh nonce is free");
                    claim.commit().await.unwrap();
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let started = Instant::now();
    for task in tasks {
        task.await.unwrap();
    }
    done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut seconds = 3.0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => seconds = args.next().and_then(|s| s.parse().ok()).expect("--seconds N"),
            other => panic!("unknown argument {other}; usage: claim-bench [--seconds N]"),
        }
    }
    let dir = std::env::temp_dir().join(format!("claim-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite: Arc<dyn ReplayStore> = Arc::new(SqliteReplayStore::open(dir.join("state.sqlite3")).unwrap());
    let url = postgres::fresh_database(&format!("claim_bench_{}", std::process::id()));
    let postgres: Arc<dyn ReplayStore> = Arc::new(PostgresReplayStore::connect_with(&url, 32).await.unwrap());

    println!("claims per second (begin + commit of a fresh nonce), {seconds} s per cell");
    println!("SQLite: WAL, synchronous=NORMAL. PostgreSQL: loopback; the tests' own cluster runs with fsync off");
    println!("unless MCP_ROUNDS_TEST_POSTGRES names another server.");
    println!("{:>8} {:>12} {:>12} {:>16}", "clients", "SQLite", "PostgreSQL", "PostgreSQL/SQLite");
    for clients in [1, 4, 16] {
        let s = claims_per_second(sqlite.clone(), clients, seconds).await;
        let p = claims_per_second(postgres.clone(), clients, seconds).await;
        println!("{clients:>8} {s:>12.0} {p:>12.0} {:>16.2}", p / s);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
