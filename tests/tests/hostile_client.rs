//! The client against servers that misbehave on purpose (the `hostile-server` fixture): an
//! answer too large to read, a task that never stops asking, more input requests than anyone
//! should answer, a flood of a 2025-11-25 server's own requests, silence in the middle of an
//! answer, a line too long on stdio. Each is refused where the client reads it, with a typed
//! error, and nothing more is read or answered. (Where the client goes, and what it sends
//! there, is in `hostile_login.rs`.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_rounds::client::{Asking, ChildProcess, Client, ClientError, ClientHandler, Limit, StreamableHttp};
use mcp_rounds::model::{
    ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationCapability, TASKS_EXTENSION,
};
use mcp_rounds_tests::hostile::Hostile;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_hostile-server");

/// Answers every form with `true` for each boolean and `"x"` for anything else, counting the
/// requests it answered, how many at once at most, and taking `pause` over each.
#[derive(Clone, Default)]
struct Filler {
    answered: Arc<AtomicUsize>,
    at_once: Arc<AtomicUsize>,
    most_at_once: Arc<AtomicUsize>,
    pause: Duration,
}

impl ClientHandler for Filler {
    async fn elicit(&self, request: ElicitRequestParams, _: &Asking) -> Result<ElicitResult, mcp_rounds::Error> {
        let now = self.at_once.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_at_once.fetch_max(now, Ordering::SeqCst);
        // A person takes a while to answer; the server's flood does not wait for them.
        tokio::time::sleep(self.pause).await;
        self.at_once.fetch_sub(1, Ordering::SeqCst);
        self.answered.fetch_add(1, Ordering::SeqCst);
        let ElicitRequestParams::Form(form) = request else { return Ok(ElicitResult::decline()) };
        let content = form
            .requested_schema
            .properties
            .iter()
            .map(|(name, field)| {
                let value =
                    if serde_json::to_value(field).unwrap()["type"] == "boolean" { json!(true) } else { json!("x") };
                (name.clone(), value)
            })
            .collect();
        Ok(ElicitResult::accept(Some(content)))
    }
}

fn capabilities() -> ClientCapabilities {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(ElicitationCapability::form());
    capabilities.extensions = Some([(TASKS_EXTENSION.to_owned(), Default::default())].into_iter().collect());
    capabilities
}

/// The fixture's counter `name` (a top-level number of its record).
fn counter(server: &Hostile, name: &str) -> u64 {
    server.record()[name].as_u64().unwrap_or_else(|| panic!("no counter {name}"))
}

/// Waits until `ready` says yes, reading the fixture's record every few milliseconds (the
/// fixture announces nothing) while the client's tasks go on; fails after 30 s.
async fn eventually(what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < deadline, "{what}: not within 30 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_the_size_limit_is_refused_and_read_no_further() {
    let server = Hostile::start(BIN);
    let limit = 1 << 20;
    let body = 64 << 20;
    for (scenario, counted) in [
        (format!("big-json?bytes={body}"), "big-json"),
        (format!("big-json?bytes={body}&length=declared"), "big-json"),
        (format!("big-sse-line?bytes={body}"), "big-sse-line"),
        (format!("big-sse-event?bytes={body}"), "big-sse-event"),
    ] {
        let before = server.record()["bytes_sent"][counted].as_u64().unwrap_or_default();
        let http = StreamableHttp::new(server.url(&scenario));
        let client = Client::builder().max_message_size(limit).connect(http).await.expect("connects");
        let error = client.call_tool("big", json!({})).await.expect_err("an answer over the limit");
        let ClientError::OverLimit { limit: Limit::MessageSize(said), .. } = &error else {
            panic!("{scenario}: a limit error, not {error:?}")
        };
        assert_eq!(*said, limit, "{scenario}");
        assert!(error.to_string().contains("larger than the limit of 1 MiB"), "{scenario}: {error}");
        client.close().await;
        // What the server managed to hand to the connection before the client hung up: the
        // limit and the buffers on the way, not the 64 MiB it meant to send.
        let sent = server.record()["bytes_sent"][counted].as_u64().unwrap_or_default() - before;
        assert!(sent < 16 << 20, "{scenario}: the client read on: {sent} bytes sent");
    }
}

#[tokio::test]
async fn a_line_over_the_limit_on_stdio_ends_the_connection() {
    let child = ChildProcess::new(BIN).args(["--stdio", "big-json?bytes=4194304"]).quiet();
    let client = Client::builder().max_message_size(1 << 20).connect(child).await.expect("connects");
    let error = client.call_tool("big", json!({})).await.expect_err("a line over the limit");
    assert!(matches!(error, ClientError::OverLimit { limit: Limit::MessageSize(_), .. }), "{error:?}");
}

#[tokio::test]
async fn a_task_that_keeps_asking_is_stopped_at_the_round_limit_and_cancelled() {
    let server = Hostile::start(BIN);
    let filler = Filler::default();
    let client = Client::builder()
        .capabilities(capabilities())
        .handler(filler.clone())
        .max_rounds(3)
        .connect(StreamableHttp::new(server.url("endless-task")))
        .await
        .expect("connects");
    let error = client.call_tool("forever", json!({})).await.expect_err("stopped");
    assert!(matches!(error, ClientError::TooManyRounds { limit: 3, .. }), "{error:?}");
    assert_eq!(counter(&server, "task_updates"), 3, "three rounds answered, no fourth");
    assert_eq!(filler.answered.load(Ordering::SeqCst), 3);
    eventually("the abandoned task is cancelled", || counter(&server, "task_cancels") >= 1).await;
}

#[tokio::test]
async fn the_round_limit_holds_for_plain_rounds() {
    let server = Hostile::start(BIN);
    let client = Client::builder()
        .capabilities(capabilities())
        .handler(Filler::default())
        .max_rounds(4)
        .connect(StreamableHttp::new(server.url("endless-rounds")))
        .await
        .expect("connects");
    let error = client.call_tool("again", json!({})).await.expect_err("stopped");
    assert!(matches!(error, ClientError::TooManyRounds { limit: 4, .. }), "{error:?}");
    assert_eq!(counter(&server, "rounds"), 5, "the first call and four answered rounds");
}

#[tokio::test]
async fn a_round_asking_too_much_is_refused_before_anything_is_answered() {
    let server = Hostile::start(BIN);
    let filler = Filler::default();
    let client = Client::builder()
        .capabilities(capabilities())
        .handler(filler.clone())
        .max_input_requests(16)
        .connect(StreamableHttp::new(server.url("many-inputs?count=1000")))
        .await
        .expect("connects");
    let error = client.call_tool("many", json!({})).await.expect_err("too many");
    let ClientError::OverLimit { limit: Limit::InputRequests { asked, limit }, .. } = error else {
        panic!("an input-request limit, not {error:?}")
    };
    assert_eq!((asked, limit), (1000, 16));
    assert_eq!(filler.answered.load(Ordering::SeqCst), 0, "not one of them answered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_a_sessions_requests_is_answered_a_few_at_a_time() {
    let server = Hostile::start(BIN);
    let requests = 200;
    let filler = Filler { pause: Duration::from_millis(5), ..Filler::default() };
    let client = Client::builder()
        .capabilities(capabilities())
        .handler(filler.clone())
        .max_server_requests(4)
        .connect(StreamableHttp::new(server.url(&format!("legacy-flood?count={requests}"))))
        .await
        .expect("connects, in a 2025-11-25 session");
    assert!(client.protocol().is_legacy());
    eventually("every request is answered, by the handler or refused", || {
        counter(&server, "legacy_answers") == requests
    })
    .await;
    assert!(filler.most_at_once.load(Ordering::SeqCst) <= 4, "at most four at once");
    let refused = counter(&server, "legacy_answer_errors");
    assert!(refused > 0, "the excess is refused, not queued without end");
    assert_eq!(filler.answered.load(Ordering::SeqCst) as u64 + refused, requests);
    client.close().await;
}

#[tokio::test]
async fn silence_in_the_middle_of_an_answer_times_out() {
    let server = Hostile::start(BIN);
    for scenario in ["silent", "no-headers"] {
        let started = Instant::now();
        let client = Client::builder()
            .idle_timeout(Duration::from_millis(300))
            .connect(StreamableHttp::new(server.url(scenario)))
            .await
            .expect("connects");
        let error = client.call_tool("hang", json!({})).await.expect_err("silence");
        assert!(error.is_timeout(), "{scenario}: {error:?}");
        assert!(started.elapsed() < Duration::from_secs(10), "{scenario}: it waited {:?}", started.elapsed());
    }
}

/// What the record says reached the other origin.
fn elsewhere(server: &Hostile) -> Vec<Value> {
    server.record()["elsewhere"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed_and_its_headers_go_nowhere() {
    let server = Hostile::start(BIN);
    let http = StreamableHttp::new(server.url("redirect")).header("X-Api-Key", "secret-1").bearer("secret-2");
    let error = Client::builder().connect(http).await.expect_err("not followed");
    let message = error.to_string();
    assert!(
        message.contains("307") && message.contains(&format!("{}/stolen/mcp", server.elsewhere_origin())),
        "{message}"
    );
    assert_eq!(elsewhere(&server), Vec::<Value>::new(), "nothing reached the other origin");
    // Within the server's origin, a redirect is followed.
    let same = Client::builder().connect(StreamableHttp::new(server.url("redirect-same"))).await.expect("followed");
    assert!(same.list_all_tools().await.unwrap().iter().any(|t| t.name == "show"));
}

#[tokio::test]
async fn an_answer_an_applications_client_fetched_from_another_origin_is_refused() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let server = Hostile::start(BIN);
    // The application's own client follows every redirect: its headers go where it says, but
    // the answer that comes back from elsewhere is not taken for the server's.
    let follows = reqwest::Client::builder().build().unwrap();
    let http = StreamableHttp::new(server.url("redirect")).with_client(follows);
    let error = Client::builder().connect(http).await.expect_err("refused");
    assert!(error.to_string().contains("another origin"), "{error}");
}
