//! A single-use state authorizes its effect at most once, whichever step of the replay store
//! fails: a -31503 answer means nothing began, a failed call gives its state back (or, when the
//! store cannot take it back, says the call must start over), and a tool that keys its effect on
//! the state or runs it in the claim's transaction can be retried after its commit failed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_rounds::form::FormRequest;
use mcp_rounds::future::BoxFuture;
use mcp_rounds::jsonrpc::ErrorObject;
use mcp_rounds::model::{CallToolResult, ClientCapabilities, GetPromptResult, Outcome};
use mcp_rounds::replay::{MemoryReplayStore, ReplayStore, StoreError};
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{Elicitation, IdempotencyKey, Round, Step};
use mcp_rounds::tasks::{MemoryTaskStore, TaskRecord, TaskScope, TaskStore};
use mcp_rounds::testing::TestClient;
use mcp_rounds::{Error, Form, Rounds, Server, State, ToolError, handlers, prompt, tool};
use serde_json::{Value, json};
use tokio::sync::Notify;

mod faulty;

use faulty::Faulty;

#[derive(Form)]
struct Confirm {
    /// Really?
    sure: bool,
}

#[derive(Rounds)]
enum Ask {
    Confirm {
        #[answer]
        answer: Elicitation<Confirm>,
    },
}

/// What the tools did, and how the test steers them.
#[derive(Clone, Default)]
struct Shared(Arc<World>);

impl std::ops::Deref for Shared {
    type Target = World;
    fn deref(&self) -> &World {
        &self.0
    }
}

#[derive(Default)]
struct World {
    effects: AtomicUsize,
    /// The tool fails before its effect.
    fail: AtomicBool,
    /// The tool waits for `go_on` (after saying `started`) before its effect.
    pause: AtomicBool,
    started: Notify,
    go_on: Notify,
    /// Every key `pay` was called with, and those it paid.
    keys_seen: Mutex<Vec<String>>,
    paid: Mutex<Vec<String>>,
}

fn confirm() -> Step<Ask, String> {
    Ask::ask_confirm(FormRequest::new("Sure?")).into()
}

/// Wipes everything once the user confirms: an effect nothing keys, the default.
#[tool(destructive)]
async fn wipe(round: Round<Ask>, State(world): State<Shared>) -> Result<Step<Ask, String>, ToolError> {
    match round {
        Round::Start => Ok(confirm()),
        Round::Resumed(Ask::Confirm { answer: Elicitation::Accept(Confirm { sure: true }) }) => {
            if world.pause.load(Ordering::SeqCst) {
                world.started.notify_one();
                world.go_on.notified().await;
            }
            if world.fail.load(Ordering::SeqCst) {
                return Err(ToolError::new("the disk is busy"));
            }
            world.effects.fetch_add(1, Ordering::SeqCst);
            Ok(Step::Done("wiped".into()))
        }
        Round::Resumed(_) => Ok(Step::Done("kept".into())),
    }
}

/// Pays once the user confirms, keyed on the state: a key paid already is not paid again.
#[tool(destructive)]
fn pay(round: Round<Ask>, key: IdempotencyKey, State(world): State<Shared>) -> Step<Ask, String> {
    match round {
        Round::Start => confirm(),
        Round::Resumed(_) => {
            let key = key.get().expect("a verified state has a key").to_owned();
            world.keys_seen.lock().unwrap().push(key.clone());
            let mut paid = world.paid.lock().unwrap();
            if paid.contains(&key) {
                return Step::Done("paid already".into());
            }
            paid.push(key);
            world.effects.fetch_add(1, Ordering::SeqCst);
            Step::Done("paid".into())
        }
    }
}

#[derive(Rounds)]
enum Publish {
    #[round(single_use)]
    Confirm {
        #[answer]
        answer: Elicitation<Confirm>,
    },
}

/// Publishes the minutes once the user confirms (a prompt whose rendering has an effect).
#[prompt]
fn minutes(round: Round<Publish>, State(world): State<Shared>) -> Result<Step<Publish, String>, Error> {
    match round {
        Round::Start => Ok(Publish::ask_confirm(FormRequest::new("Publish?")).into()),
        Round::Resumed(Publish::Confirm { answer: Elicitation::Accept(Confirm { sure: true }) }) => {
            world.effects.fetch_add(1, Ordering::SeqCst);
            Ok(Step::Done("published".into()))
        }
        Round::Resumed(_) => Ok(Step::Done("not published".into())),
    }
}

/// Purges the archive once the user confirms; the long part runs as a task if the client allows.
#[tool(destructive, task)]
async fn purge(round: Round<Ask>, scope: TaskScope, State(world): State<Shared>) -> Step<Ask, String> {
    match round {
        Round::Start => confirm(),
        Round::Resumed(_) => {
            world.effects.fetch_add(1, Ordering::SeqCst);
            scope.detach().await;
            Step::Done("purged".into())
        }
    }
}

/// A task store that cannot store a new task.
#[derive(Clone, Default)]
struct NoNewTasks(MemoryTaskStore);

impl TaskStore for NoNewTasks {
    fn create(&self, _task: &TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Err(StoreError("connection lost".into())) })
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, StoreError>> {
        self.0.get(id)
    }

    fn replace(&self, task: &TaskRecord) -> BoxFuture<'_, Result<bool, StoreError>> {
        self.0.replace(task)
    }

    fn prune(&self, now_ms: i64) -> BoxFuture<'_, Result<u64, StoreError>> {
        self.0.prune(now_ms)
    }
}

struct Setup {
    client: TestClient,
    store: Faulty<MemoryReplayStore>,
    world: Shared,
}

fn setup_with(capabilities: Value) -> Setup {
    let store = Faulty::new(MemoryReplayStore::default());
    let world = Shared::default();
    let server = Server::builder("at-most-once", "1.0.0")
        .state(world.clone())
        .state_keys(KeyRing::new([StateKey::new("k", &[7u8; 32]).unwrap()]).unwrap())
        .replay_store(store.clone())
        .task_store(NoNewTasks::default())
        .handlers(handlers![wipe, pay, minutes, purge])
        .build()
        .unwrap();
    let capabilities: ClientCapabilities = serde_json::from_value(capabilities).unwrap();
    Setup { client: TestClient::new(&server).with_capabilities(capabilities), store, world }
}

fn setup() -> Setup {
    setup_with(json!({"elicitation": {}}))
}

fn yes() -> Value {
    json!({"answer": {"action": "accept", "content": {"sure": true}}})
}

impl Setup {
    async fn state(&self, tool: &str) -> String {
        let asked = self.client.call_tool_outcome(tool, json!({})).await.unwrap();
        asked.input_required().expect("the first call asks").request_state.clone().unwrap()
    }

    async fn confirm(&self, tool: &str, state: &str) -> Result<Outcome<CallToolResult>, ErrorObject> {
        self.client.call_tool_resume(tool, json!({}), yes(), state).await
    }

    fn effects(&self) -> usize {
        self.world.effects.load(Ordering::SeqCst)
    }
}

fn text(outcome: &Outcome<CallToolResult>) -> Option<&str> {
    match outcome {
        Outcome::Complete(result) => result.content[0].as_text(),
        Outcome::InputRequired(_) => None,
    }
}

fn assert_unavailable(error: &ErrorObject) {
    assert_eq!(error.code, -31503, "{error:?}");
    assert_eq!(error.data, Some(json!({"retryAfterMs": 1000})));
}

fn assert_refused(error: &ErrorObject) {
    assert_eq!((error.code, error.message.as_str()), (-32602, "Invalid or expired requestState"), "{error:?}");
}

#[tokio::test]
async fn a_store_that_fails_at_begin_or_at_commit_is_31503_and_nothing_happened() {
    let s = setup();
    let state = s.state("wipe").await;
    s.store.at_begin.store(true, Ordering::SeqCst);
    assert_unavailable(&s.confirm("wipe", &state).await.unwrap_err());
    s.store.at_begin.store(false, Ordering::SeqCst);
    s.store.at_commit.store(true, Ordering::SeqCst);
    assert_unavailable(&s.confirm("wipe", &state).await.unwrap_err());
    assert_eq!(s.effects(), 0, "the claim is durable before the effect begins, so nothing began");

    s.store.at_commit.store(false, Ordering::SeqCst);
    assert_eq!(text(&s.confirm("wipe", &state).await.unwrap()), Some("wiped"), "the same state confirms");
    assert_refused(&s.confirm("wipe", &state).await.unwrap_err());
    assert_eq!(s.effects(), 1);
}

#[tokio::test]
async fn a_tool_that_fails_gives_its_state_back() {
    let s = setup();
    let state = s.state("wipe").await;
    s.world.fail.store(true, Ordering::SeqCst);
    let failed = s.confirm("wipe", &state).await.unwrap();
    assert!(matches!(failed, Outcome::Complete(ref r) if r.is_error()), "{failed:?}");
    assert_eq!(s.store.releases.load(Ordering::SeqCst), 1, "the claim committed before the tool ran is released");

    s.world.fail.store(false, Ordering::SeqCst);
    assert_eq!(text(&s.confirm("wipe", &state).await.unwrap()), Some("wiped"), "still usable");
    assert_refused(&s.confirm("wipe", &state).await.unwrap_err());
    assert_eq!(s.effects(), 1);
}

#[tokio::test]
async fn a_tool_that_fails_when_its_state_cannot_be_given_back_says_to_start_over() {
    let s = setup();
    let state = s.state("wipe").await;
    s.world.fail.store(true, Ordering::SeqCst);
    s.store.at_release.store(true, Ordering::SeqCst);
    let spent = s.confirm("wipe", &state).await.unwrap_err();
    assert_eq!(spent.code, -32602, "{spent:?}");
    assert_eq!(
        spent.message,
        "The call failed and its single-use requestState could not be given back: start the call again without \
         requestState"
    );
    assert_eq!(
        spent.data,
        Some(json!({"field": "requestState", "reason": "spent", "failure": "the disk is busy"})),
        "what the tool said is kept"
    );

    // The store is back and the tool would succeed: the state stays spent, as the answer said.
    s.store.at_release.store(false, Ordering::SeqCst);
    s.world.fail.store(false, Ordering::SeqCst);
    assert_refused(&s.confirm("wipe", &state).await.unwrap_err());
    assert_eq!(s.effects(), 0, "the effect never happened, and never happened twice");
    let fresh = s.state("wipe").await;
    assert_eq!(text(&s.confirm("wipe", &fresh).await.unwrap()), Some("wiped"), "starting over works");
    assert_eq!(s.effects(), 1);
}

#[tokio::test]
async fn a_keyed_tool_whose_commit_fails_is_retried_with_the_same_key_and_pays_once() {
    let s = setup();
    let state = s.state("pay").await;
    s.store.at_commit.store(true, Ordering::SeqCst);
    assert_unavailable(&s.confirm("pay", &state).await.unwrap_err());
    assert_eq!(s.effects(), 1, "the claim was held with the effect, which happened before the commit failed");

    s.store.at_commit.store(false, Ordering::SeqCst);
    assert_eq!(text(&s.confirm("pay", &state).await.unwrap()), Some("paid already"));
    let seen = s.world.keys_seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0], seen[1], "the retry sees the same key");
    assert_refused(&s.confirm("pay", &state).await.unwrap_err());
    assert_eq!(s.effects(), 1, "paid once");
}

#[tokio::test]
async fn a_second_use_while_the_tool_runs_is_refused_at_once() {
    let s = setup();
    let state = s.state("wipe").await;
    s.world.pause.store(true, Ordering::SeqCst);
    let first = async {
        let outcome = s.confirm("wipe", &state).await;
        assert_eq!(text(&outcome.unwrap()), Some("wiped"));
    };
    let second = async {
        s.world.started.notified().await;
        // Refused while the first runs: its claim is durable, not an open transaction to wait on.
        let refused = tokio::time::timeout(Duration::from_secs(10), s.confirm("wipe", &state)).await;
        s.world.go_on.notify_one();
        assert_refused(&refused.expect("answered while the first call runs").unwrap_err());
    };
    tokio::join!(first, second);
    assert_eq!(s.effects(), 1);
}

#[tokio::test]
async fn a_prompt_round_claims_before_it_renders() {
    let s = setup();
    let get = |state: Option<&str>| {
        let mut params = json!({"name": "minutes", "arguments": {}});
        if let Some(state) = state {
            params["requestState"] = state.into();
            params["inputResponses"] = yes();
        }
        s.client.request::<Outcome<GetPromptResult>>("prompts/get", params)
    };
    let asked = get(None).await.unwrap();
    let state = asked.input_required().unwrap().request_state.clone().unwrap();
    s.store.at_commit.store(true, Ordering::SeqCst);
    assert_unavailable(&get(Some(&state)).await.unwrap_err());
    assert_eq!(s.effects(), 0);
    s.store.at_commit.store(false, Ordering::SeqCst);
    assert!(matches!(get(Some(&state)).await.unwrap(), Outcome::Complete(_)));
    assert_refused(&get(Some(&state)).await.unwrap_err());
    assert_eq!(s.effects(), 1);
}

#[tokio::test]
async fn a_call_that_began_is_answered_when_its_task_cannot_be_stored() {
    let tasks = json!({"io.modelcontextprotocol/tasks": {}});
    let s = setup_with(json!({"elicitation": {}, "extensions": tasks}));
    let state = s.state("purge").await;
    // The effect happened before the call asked to become a task, which the store refuses: a
    // -31503 now would have the client repeat it.
    let done = s.confirm("purge", &state).await.unwrap();
    assert_eq!(text(&done), Some("purged"));
    assert_refused(&s.confirm("purge", &state).await.unwrap_err());
    assert_eq!(s.effects(), 1);
}

#[cfg(feature = "sqlite")]
mod in_the_claims_transaction {
    use std::time::SystemTime;

    use super::*;
    use mcp_rounds::replay::{SqliteClaim, SqliteReplayStore};
    use mcp_rounds::rounds::Claim;

    /// Records a transfer in the claim's own transaction.
    #[tool(destructive)]
    async fn transfer(reference: String, round: Round<Ask>, claim: Claim) -> Result<Step<Ask, String>, ToolError> {
        match round {
            Round::Start => Ok(confirm()),
            Round::Resumed(_) => {
                let mut claim = claim.lock().await;
                let sqlite = claim.get_mut::<SqliteClaim>().ok_or_else(|| ToolError::new("no claim held"))?;
                sqlite.connection().execute("INSERT INTO transfers (reference) VALUES (?1)", [&reference])?;
                Ok(Step::Done(format!("transferred {reference}")))
            }
        }
    }

    /// Runs `sql` in a claim of a nonce of its own, which is then rolled back or committed.
    async fn with_connection<T>(store: &SqliteReplayStore, commit: bool, sql: impl FnOnce(&SqliteClaim) -> T) -> T {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let mut nonce = [0xee; 16];
        nonce[0] = NEXT.fetch_add(1, Ordering::SeqCst) as u8;
        let expires = SystemTime::now() + Duration::from_secs(60);
        let mut claim = store.begin(nonce, expires).await.unwrap().expect("a fresh nonce");
        let value = sql(claim.as_any_mut().unwrap().downcast_mut::<SqliteClaim>().unwrap());
        if commit {
            claim.commit().await.unwrap();
        }
        value
    }

    #[tokio::test]
    async fn a_claim_held_with_the_write_whose_commit_fails_is_31503_and_wrote_nothing() {
        let dir = std::env::temp_dir().join(format!("mcp-rounds-at-most-once-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.sqlite3");
        let _ = std::fs::remove_file(&path);
        let sqlite = SqliteReplayStore::open(&path).unwrap();
        with_connection(&sqlite, true, |c| c.connection().execute_batch("CREATE TABLE transfers (reference TEXT)"))
            .await
            .unwrap();
        let count = || {
            with_connection(&sqlite, false, |c| {
                c.connection().query_row("SELECT count(*) FROM transfers", [], |row| row.get::<_, i64>(0)).unwrap()
            })
        };
        let store = Faulty::new(sqlite.clone());
        let server = Server::builder("bank", "1.0.0")
            .state_keys(KeyRing::new([StateKey::new("k", &[7u8; 32]).unwrap()]).unwrap())
            .replay_store(store.clone())
            .handlers(handlers![transfer])
            .build()
            .unwrap();
        let capabilities: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
        let client = TestClient::new(&server).with_capabilities(capabilities);
        let args = json!({"reference": "t-1"});
        let asked = client.call_tool_outcome("transfer", args.clone()).await.unwrap();
        let state = asked.input_required().unwrap().request_state.clone().unwrap();

        store.at_commit.store(true, Ordering::SeqCst);
        assert_unavailable(&client.call_tool_resume("transfer", args.clone(), yes(), &state).await.unwrap_err());
        assert_eq!(count().await, 0, "the write rolled back with the claim");

        store.at_commit.store(false, Ordering::SeqCst);
        let done = client.call_tool_resume("transfer", args.clone(), yes(), &state).await.unwrap();
        assert_eq!(text(&done), Some("transferred t-1"));
        assert_eq!(count().await, 1);
        assert_refused(&client.call_tool_resume("transfer", args, yes(), &state).await.unwrap_err());
        assert_eq!(count().await, 1, "written once");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
