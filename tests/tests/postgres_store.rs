//! The PostgreSQL replay store against a real server: one claim per nonce however many
//! instances race for it, claims that roll back with the mutation they authorize, lost
//! connections that never claim twice or lose a claim, and pruning.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mcp_rounds::form::FormRequest;
use mcp_rounds::replay::{PostgresClaim, PostgresReplayStore, ReplayStore};
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{Claim, Elicitation, Round, Step};
use mcp_rounds::tasks::{PostgresTaskStore, TaskStore};
use mcp_rounds::testing::{TestClient, task_record, task_store_contract};
use mcp_rounds::{Form, Rounds, Server, ToolError, handlers, tool};
use mcp_rounds_tests::postgres;
use serde_json::json;
use tokio::sync::Barrier;

fn nonce() -> [u8; 16] {
    let mut nonce = [0u8; 16];
    getrandom::fill(&mut nonce).unwrap();
    nonce
}

fn soon() -> SystemTime {
    SystemTime::now() + Duration::from_secs(300)
}

async fn store() -> PostgresReplayStore {
    PostgresReplayStore::connect(&postgres::url()).await.expect("the test database is reachable")
}

#[tokio::test]
async fn a_nonce_is_claimed_once_across_instances_and_a_dropped_claim_frees_it() {
    let (a, b) = (store().await, store().await);
    let n = nonce();
    assert!(!a.is_claimed(n).await.unwrap());

    let pending = a.begin(n, soon()).await.unwrap().expect("free");
    drop(pending);
    assert!(!b.is_claimed(n).await.unwrap(), "a claim that was not committed leaves the nonce free");

    b.begin(n, soon()).await.unwrap().expect("still free").commit().await.unwrap();
    assert!(a.is_claimed(n).await.unwrap());
    assert!(a.begin(n, soon()).await.unwrap().is_none(), "another instance sees the claim");
}

#[tokio::test]
async fn a_released_claim_frees_its_nonce_for_every_instance_and_no_other() {
    let (a, b) = (store().await, store().await);
    let (n, other) = (nonce(), nonce());
    a.begin(n, soon()).await.unwrap().expect("free").commit().await.unwrap();
    a.begin(other, soon()).await.unwrap().expect("free").commit().await.unwrap();
    b.release(n).await.unwrap();
    assert!(!a.is_claimed(n).await.unwrap(), "released on one instance, free on another");
    assert!(a.is_claimed(other).await.unwrap());
    a.begin(n, soon()).await.unwrap().expect("free again").commit().await.unwrap();
    assert!(b.begin(n, soon()).await.unwrap().is_none(), "and then used up");
    b.release(nonce()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_instances_let_exactly_one_claim_through() {
    let instances = [store().await, store().await, store().await];
    for _ in 0..20 {
        let n = nonce();
        // All claim at the same moment: the others try while the winner holds its claim open, or
        // right after it committed; either way exactly one gets through.
        let start = Arc::new(Barrier::new(16));
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let store = instances[i % instances.len()].clone();
                let start = start.clone();
                tokio::spawn(async move {
                    start.wait().await;
                    match store.begin(n, soon()).await.unwrap() {
                        Some(claim) => {
                            claim.commit().await.unwrap();
                            1
                        }
                        None => 0,
                    }
                })
            })
            .collect();
        let mut wins = 0;
        for task in tasks {
            wins += task.await.unwrap();
        }
        assert_eq!(wins, 1);
    }
}

#[tokio::test]
async fn a_refused_connection_is_a_clear_error() {
    let err = PostgresReplayStore::connect("postgres://nobody@127.0.0.1:1/none").await.unwrap_err();
    assert!(err.to_string().contains("cannot reach PostgreSQL"), "{err}");
    let err = PostgresReplayStore::connect("not a url").await.unwrap_err();
    assert!(err.to_string().contains("invalid PostgreSQL URL"), "{err}");
}

/// Cuts every connection of the store named `name` (its URL's application_name).
async fn terminate_sessions(watcher: &PostgresReplayStore, name: &str) {
    let conn = watcher.pool().get().await.unwrap();
    conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", &[&name])
        .await
        .unwrap();
}

#[tokio::test]
async fn a_lost_connection_fails_that_claim_and_the_pool_reconnects() {
    let name = format!("lost-connection-{}", std::process::id());
    let watcher = store().await;
    let store = PostgresReplayStore::connect(&format!("{}?application_name={name}", postgres::url())).await.unwrap();
    let n = nonce();
    let pending = store.begin(n, soon()).await.unwrap().expect("free");
    // The database goes away under the claim (a failover, a restart, a network cut).
    terminate_sessions(&watcher, &name).await;
    let err = pending.commit().await.unwrap_err();
    assert!(err.to_string().contains("could not be committed"), "{err}");
    assert!(!watcher.is_claimed(n).await.unwrap(), "a claim that did not commit is not recorded");

    // The same store goes on with fresh connections, and the nonce can still be used once.
    terminate_sessions(&watcher, &name).await;
    let mut reconnected = None;
    for _ in 0..5 {
        // A connection that died idle in the pool fails once, and is replaced at once.
        if let Ok(claim) = store.begin(n, soon()).await {
            reconnected = claim;
            break;
        }
    }
    reconnected.expect("the nonce is free").commit().await.unwrap();
    assert!(store.begin(n, soon()).await.unwrap().is_none());
}

#[tokio::test]
async fn expired_nonces_are_pruned_and_live_ones_kept() {
    let store = store().await;
    let expired: Vec<[u8; 16]> = (0..50).map(|_| nonce()).collect();
    for n in &expired {
        let long_ago = SystemTime::now() - Duration::from_secs(3600);
        store.begin(*n, long_ago).await.unwrap().unwrap().commit().await.unwrap();
    }
    let live = nonce();
    store.begin(live, soon()).await.unwrap().unwrap().commit().await.unwrap();
    let removed = store.prune().await.unwrap();
    assert!(removed >= 50, "removed {removed}");
    for n in &expired {
        assert!(!store.is_claimed(*n).await.unwrap());
    }
    assert!(store.is_claimed(live).await.unwrap());
}

#[derive(Form)]
struct Confirm {
    /// Really?
    confirm: bool,
}

#[derive(Rounds)]
enum Transfer {
    Confirm {
        #[answer]
        confirm: Elicitation<Confirm>,
    },
}

/// Records a transfer in the claim's own transaction; `fail_after` fails the tool after the
/// write, which must undo it.
#[tool(destructive)]
async fn transfer(
    reference: String,
    fail_after: bool,
    round: Round<Transfer>,
    claim: Claim,
) -> Result<Step<Transfer, String>, ToolError> {
    match round {
        Round::Start => Ok(Transfer::ask_confirm(FormRequest::new("Transfer?")).into()),
        Round::Resumed(Transfer::Confirm { confirm }) => {
            if !matches!(confirm, Elicitation::Accept(Confirm { confirm: true })) {
                return Ok(Step::Done("not transferred".into()));
            }
            let mut claim = claim.lock().await;
            let pg = claim.get_mut::<PostgresClaim>().ok_or_else(|| ToolError::new("no claim held"))?;
            pg.client().execute("INSERT INTO transfers_test (reference) VALUES ($1)", &[&reference]).await?;
            if fail_after {
                return Err(ToolError::new("the bank said no"));
            }
            Ok(Step::Done(format!("transferred {reference}")))
        }
    }
}

#[tokio::test]
async fn a_mutation_in_the_claims_transaction_commits_or_rolls_back_with_it() {
    let store = store().await;
    store
        .pool()
        .get()
        .await
        .unwrap()
        .batch_execute("CREATE TABLE IF NOT EXISTS transfers_test (reference TEXT NOT NULL)")
        .await
        .unwrap();
    let keys = KeyRing::new([StateKey::new("k", &[5u8; 32]).unwrap()]).unwrap();
    let server = Server::builder("bank", "1")
        .state_keys(keys)
        .replay_store(store.clone())
        .handlers(handlers![transfer])
        .build()
        .unwrap();
    let client =
        TestClient::new(&server).with_capabilities(serde_json::from_value(json!({"elicitation": {}})).unwrap());
    let count = |reference: String| {
        let store = store.clone();
        async move {
            let conn = store.pool().get().await.unwrap();
            let row = conn.query_one("SELECT count(*) FROM transfers_test WHERE reference = $1", &[&reference]).await;
            row.unwrap().get::<_, i64>(0)
        }
    };
    let yes = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});

    // A tool failure after the write: neither the write nor the claim survive, so the same
    // confirmation can be used again.
    let reference = format!("t-{}", u128::from_le_bytes(nonce()));
    let args = json!({"reference": reference, "fail_after": true});
    let asked = client.call_tool_outcome("transfer", args.clone()).await.unwrap();
    let state = asked.input_required().unwrap().request_state.clone().unwrap();
    let failed = client.call_tool_resume("transfer", args.clone(), yes.clone(), &state).await.unwrap();
    assert!(matches!(failed, mcp_rounds::model::Outcome::Complete(ref r) if r.is_error()));
    assert_eq!(count(reference.clone()).await, 0, "the write rolled back with the claim");
    let again = client.call_tool_resume("transfer", args, yes.clone(), &state).await.unwrap();
    assert!(matches!(again, mcp_rounds::model::Outcome::Complete(ref r) if r.is_error()), "still usable");

    // Success: the write and the claim commit together; a replay is refused and writes nothing.
    let reference = format!("t-{}", u128::from_le_bytes(nonce()));
    let args = json!({"reference": reference, "fail_after": false});
    let asked = client.call_tool_outcome("transfer", args.clone()).await.unwrap();
    let state = asked.input_required().unwrap().request_state.clone().unwrap();
    let done = client.call_tool_resume("transfer", args.clone(), yes.clone(), &state).await.unwrap();
    assert!(matches!(done, mcp_rounds::model::Outcome::Complete(ref r) if !r.is_error()));
    assert_eq!(count(reference.clone()).await, 1);
    let replay = client.call_tool_resume("transfer", args, yes, &state).await.unwrap_err();
    assert_eq!(replay.code, -32602);
    assert_eq!(count(reference).await, 1);
}

mod fan_out {
    use mcp_rounds_tests::stdio::{StdioProcess, answer_to, event, stream_of};
    use mcp_rounds_tests::{postgres, request};
    use serde_json::{Value, json};

    fn fixture(url: &str) -> StdioProcess {
        let notes = std::env::temp_dir();
        StdioProcess::spawn(
            env!("CARGO_BIN_EXE_fixture-server"),
            &["--notes", notes.to_str().unwrap(), "--fan-out", url],
        )
    }

    /// Opens listen stream `id` for list changes of every kind.
    fn listen(server: &mut StdioProcess, id: &str) {
        let kinds = json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true});
        server.send(&request(json!(id), "subscriptions/listen", json!({"notifications": kinds})));
        server.recv_until(&[&event("notifications/subscriptions/acknowledged", json!(id))]);
    }

    fn announce(server: &mut StdioProcess, id: i64, kind: &str) {
        server.send(&request(json!(id), "tools/call", json!({"name": "announce", "arguments": {"kind": kind}})));
    }

    /// The events among `messages`, as (method, stream).
    fn events(messages: &[Value]) -> Vec<(String, Value)> {
        messages.iter().filter_map(|m| Some((m["method"].as_str()?.to_owned(), stream_of(m).clone()))).collect()
    }

    fn kind(method: &str, stream: &str) -> (String, Value) {
        (format!("notifications/{method}/list_changed"), json!(stream))
    }

    #[test]
    fn an_announcement_reaches_every_instance_once_and_a_lost_relay_resyncs_listeners() {
        let url = postgres::fresh_database(&format!("fan_out_{}", std::process::id()));
        let (mut a, mut b) = (fixture(&url), fixture(&url));
        listen(&mut a, "on-a");
        listen(&mut b, "on-b");

        // Announced on a, then a second change there. Both travel to b in the order a sent
        // them, so once the second is in, b has all it will get of the first.
        announce(&mut a, 1, "tools");
        let mut on_a = a.recv_until(&[&answer_to(json!(1))]);
        let answer = on_a.last().unwrap();
        assert_eq!(answer["result"]["content"][0]["text"], "announced tools", "{answer}");
        announce(&mut a, 2, "prompts");
        let on_b = b.recv_until(&[&event("notifications/prompts/list_changed", json!("on-b"))]);
        assert_eq!(events(&on_b), [kind("tools", "on-b"), kind("prompts", "on-b")], "once on the other instance");
        // Then a change on b, which reaches a after anything of a's own that came back to it.
        announce(&mut b, 3, "resources");
        on_a.extend(
            a.recv_until(&[&answer_to(json!(2)), &event("notifications/resources/list_changed", json!("on-a"))]),
        );
        assert_eq!(
            events(&on_a),
            [kind("tools", "on-a"), kind("prompts", "on-a"), kind("resources", "on-a")],
            "once where it was announced, never echoed back"
        );

        // The relays' connections are cut: events may have been missed, so listen streams end
        // with their final result (once their relay is back) and their clients listen again.
        let conn = std::process::Command::new("psql")
            .args([&url, "-qtAc", "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'mcp-rounds-changes'"])
            .output()
            .unwrap();
        assert!(conn.status.success());
        for (server, stream) in [(&mut a, "on-a"), (&mut b, "on-b")] {
            let ended = server.recv_until(&[&answer_to(json!(stream))]).pop().unwrap();
            assert_eq!(ended["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], stream);
        }

        // Both relays are connected again: the next change made on a reaches b.
        listen(&mut b, "again");
        announce(&mut a, 4, "tools");
        b.recv_until(&[&event("notifications/tools/list_changed", json!("again"))]);
    }
}

/// A task id no other test (or earlier run) uses.
fn task_id(what: &str) -> String {
    format!("{what}-{}", hex(&nonce()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn the_postgres_task_store_keeps_the_contract_and_every_instance_sees_the_same_tasks() {
    let url = postgres::fresh_database(&format!("tasks_contract_{}", std::process::id()));
    let store = PostgresTaskStore::connect(&url).await.unwrap();
    task_store_contract(&store).await;

    // Another instance, with its own pool, and one sharing the replay store's pool.
    let other = PostgresTaskStore::connect(&url).await.unwrap();
    let kept = other.get("t-forever").await.unwrap().expect("another instance sees the task");
    assert_eq!(kept.ttl_ms, None);
    let replay = PostgresReplayStore::connect(&url).await.unwrap();
    let shared = PostgresTaskStore::sharing(&replay);
    assert_eq!(shared.get("t-forever").await.unwrap(), Some(kept.clone()));
    let mut next = kept;
    next.version += 1;
    next.status_message = Some("changed elsewhere".into());
    assert!(shared.replace(&next).await.unwrap());
    assert_eq!(store.get("t-forever").await.unwrap(), Some(next));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_of_the_same_version_let_exactly_one_through() {
    let url = postgres::url();
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(PostgresTaskStore::connect(&url).await.unwrap());
    }
    let mut task = task_record(&task_id("race"));
    instances[0].create(&task).await.unwrap();
    for round in 0..20 {
        task.version += 1;
        let writers: Vec<_> = (0..16)
            .map(|i| {
                let store = instances[i % instances.len()].clone();
                let mut mine = task.clone();
                mine.status_message = Some(format!("writer {i} of round {round}"));
                tokio::spawn(async move { store.replace(&mine).await.unwrap().then_some(mine) })
            })
            .collect();
        let mut winners = Vec::new();
        for writer in writers {
            winners.extend(writer.await.unwrap());
        }
        assert_eq!(winners.len(), 1, "round {round}: exactly one writer of version {}", task.version);
        let stored = instances[round % instances.len()].get(&task.id).await.unwrap();
        assert_eq!(stored.as_ref(), Some(&winners[0]), "what is stored is the winner's");
        task = winners.pop().unwrap();
    }
}

#[tokio::test]
async fn expired_tasks_are_pruned_and_others_kept() {
    let url = postgres::fresh_database(&format!("tasks_prune_{}", std::process::id()));
    let store = PostgresTaskStore::connect(&url).await.unwrap();
    for i in 0..120 {
        let mut task = task_record(&format!("expired-{i}"));
        task.ttl_ms = Some(i);
        store.create(&task).await.unwrap();
    }
    let mut live = task_record("live");
    live.created_at_ms = 10_000;
    store.create(&live).await.unwrap();
    let mut forever = task_record("forever");
    forever.ttl_ms = None;
    store.create(&forever).await.unwrap();

    assert_eq!(store.prune(1_000 + 120).await.unwrap(), 120);
    assert_eq!(store.prune(1_000 + 120).await.unwrap(), 0);
    assert!(store.get("expired-0").await.unwrap().is_none());
    assert!(store.get("live").await.unwrap().is_some());
    assert!(store.get("forever").await.unwrap().is_some());
    assert_eq!(store.prune(70_001).await.unwrap(), 1, "then the live one expires too");
    assert!(store.get("forever").await.unwrap().is_some());
}

#[tokio::test]
async fn a_database_made_before_the_task_store_is_migrated_and_keeps_its_nonces() {
    let url = postgres::fresh_database(&format!("tasks_migration_{}", std::process::id()));
    let replay = PostgresReplayStore::connect(&url).await.unwrap();
    let n = nonce();
    replay.begin(n, soon()).await.unwrap().unwrap().commit().await.unwrap();
    // Back to the schema of a server that had only the replay store.
    replay
        .pool()
        .get()
        .await
        .unwrap()
        .batch_execute("DROP TABLE mcp_rounds_tasks; UPDATE mcp_rounds_schema SET version = 1")
        .await
        .unwrap();

    let tasks = PostgresTaskStore::connect(&url).await.unwrap();
    let task = task_record(&task_id("migrated"));
    tasks.create(&task).await.unwrap();
    assert_eq!(tasks.get(&task.id).await.unwrap(), Some(task));
    assert!(replay.is_claimed(n).await.unwrap(), "the nonces are untouched");
    let conn = replay.pool().get().await.unwrap();
    let version: i32 = conn.query_one("SELECT version FROM mcp_rounds_schema", &[]).await.unwrap().get(0);
    assert_eq!(version, 2);
    // Connecting again changes nothing.
    PostgresTaskStore::connect(&url).await.unwrap();
    assert_eq!(conn.query_one("SELECT count(*) FROM mcp_rounds_schema", &[]).await.unwrap().get::<_, i64>(0), 1);
}

#[tokio::test]
async fn a_task_store_that_cannot_connect_is_a_clear_error() {
    let err = PostgresTaskStore::connect("postgres://nobody@127.0.0.1:1/none").await.unwrap_err();
    assert!(err.to_string().contains("cannot reach PostgreSQL"), "{err}");
}
