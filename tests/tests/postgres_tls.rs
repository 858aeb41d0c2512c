//! TLS to PostgreSQL, against a cluster of the test's own whose server certificate (for
//! `localhost` alone) is signed by a CA the test makes: the stores and the change relay connect
//! over TLS when they trust that CA and reach the server by that name, and are refused with
//! another CA or by another name; plain TCP is had only when asked for.

use mcp_rounds::changes::{Changes, PostgresFanOut, RelayKey, RelayKeys};
use mcp_rounds::replay::{PostgresReplayStore, PostgresSettings};
use mcp_rounds::tasks::PostgresTaskStore;
use mcp_rounds_tests::certs::Authority;
use mcp_rounds_tests::fleet::instance::free_port;
use mcp_rounds_tests::postgres::{Cluster, TLS_HOST};

/// Whether every connection of `application_name` to the cluster is encrypted, and how many
/// there are.
async fn encrypted(watcher: &PostgresReplayStore, application_name: &str) -> (bool, i64) {
    let conn = watcher.pool().get().await.unwrap();
    let row = conn
        .query_one(
            "SELECT coalesce(bool_and(s.ssl), false), count(*) FROM pg_stat_ssl s
             JOIN pg_stat_activity a USING (pid) WHERE a.application_name = $1",
            &[&application_name],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1))
}

async fn refusal(url: &str) -> String {
    let err = PostgresReplayStore::connect(url).await.expect_err("the connection must be refused");
    err.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_certificate_is_verified_by_its_chain_and_its_name() {
    let dir = std::env::temp_dir().join(format!("mcp-rounds-tls-postgres-{}", std::process::id()));
    let cluster = Cluster::create_with_tls(&dir, free_port());
    let ca = cluster.ca_file().expect("the cluster serves TLS").display().to_string();
    let port = cluster.port;
    let verified = |query: &str| format!("postgres://postgres@{TLS_HOST}:{port}/fleet?{query}");

    // The right CA and the certificate's name: connected, encrypted. `require` is as strict as
    // `verify-full`.
    let url = verified(&format!("sslmode=verify-full&sslrootcert={ca}&application_name=tls-replay"));
    let replay = PostgresReplayStore::connect(&url).await.expect("verified TLS connects");
    assert!(encrypted(&replay, "tls-replay").await.0, "the replay store's connection is encrypted");
    let url = verified(&format!("sslmode=require&sslrootcert={ca}&application_name=tls-tasks"));
    let tasks = PostgresTaskStore::connect(&url).await.expect("require is verified TLS too");
    // One connection opened, and kept in the pool.
    drop(tasks.pool().get().await.unwrap());
    assert_eq!(encrypted(&replay, "tls-tasks").await, (true, 1), "the task store's connection is encrypted");
    // Naming a CA asks for TLS, even on this machine; and the CA can be given in code too.
    let settings =
        PostgresSettings::from_url(&verified("application_name=tls-relay")).unwrap().with_ca_file(&ca).unwrap();
    assert!(settings.uses_tls());
    let keys = RelayKeys::new([RelayKey::new("r1", &[3; 32]).unwrap()]).unwrap();
    let _relay = PostgresFanOut::builder(Changes::default(), keys).start_with(&settings).await.expect("the relay");
    assert_eq!(encrypted(&replay, "tls-relay").await, (true, 1), "the relay's connection is encrypted");

    // Another CA: the chain leads nowhere trusted.
    let stranger = dir.join("stranger-ca.pem");
    Authority::new("a CA nobody here trusts").write_cert(&stranger);
    let err = refusal(&verified(&format!("sslmode=verify-full&sslrootcert={}", stranger.display()))).await;
    assert!(err.contains("cannot reach PostgreSQL") && err.contains("UnknownIssuer"), "{err}");
    // The system's roots do not know the test's CA either.
    let err = refusal(&verified("sslmode=verify-full")).await;
    assert!(err.contains("UnknownIssuer"), "{err}");
    let relay_err =
        PostgresFanOut::builder(Changes::default(), RelayKeys::new([RelayKey::new("r1", &[3; 32]).unwrap()]).unwrap())
            .start(&verified(&format!("sslrootcert={}", stranger.display())))
            .await
            .expect_err("the relay verifies too");
    assert!(relay_err.to_string().contains("UnknownIssuer"), "{relay_err}");

    // The right CA, the right server, the wrong name: the certificate is for localhost alone.
    let err =
        refusal(&format!("postgres://postgres@127.0.0.1:{port}/fleet?sslmode=verify-full&sslrootcert={ca}")).await;
    assert!(err.contains("not valid for name"), "{err}");
    let err = refusal(&format!(
        "postgres://postgres@db.elsewhere.test:{port}/fleet?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={ca}"
    ))
    .await;
    assert!(err.contains("not valid for name") && err.contains("db.elsewhere.test"), "{err}");

    // What could fall back to plain TCP without saying so is refused before connecting.
    let err = refusal(&verified("sslmode=prefer")).await;
    assert!(err.contains("sslmode=prefer falls back to plain TCP"), "{err}");
    // Plain TCP when asked for, and by default to this machine.
    let plain = PostgresReplayStore::connect(&verified("sslmode=disable&application_name=plain-asked")).await.unwrap();
    assert!(!encrypted(&plain, "plain-asked").await.0);
    let local = format!("postgres://postgres@127.0.0.1:{port}/fleet?application_name=plain-local");
    let local = PostgresReplayStore::connect(&local).await.unwrap();
    assert!(!encrypted(&local, "plain-local").await.0);

    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}
