//! The change relay against what anyone who can connect to the database can send on its
//! channel: notifications not sealed with the relay key (or sealed with another, or sent again)
//! are ignored while genuine ones are delivered; a flood of resync requests makes each instance
//! resync about once a second; a flood of events keeps the incoming queue within its limit and
//! what it drops is made up for by a resync.
//!
//! The tests seal notifications themselves, as the relay documents its format, with the key the
//! fixture servers use.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{Hmac, KeyInit, Mac};
use mcp_rounds::changes::{Changes, PostgresFanOut, RelayKey, RelayKeys, RelayStats};
use mcp_rounds::replay::PostgresReplayStore;
use mcp_rounds_tests::postgres::{self, FIXTURE_RELAY_KEY};
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::{StdioProcess, answer_to, event, stream_of};
use serde_json::{Value, json};
use sha2::Sha256;

const CHANNEL: &str = "mcp_rounds_changes";
/// The fixture servers' relay key id.
const KEY_ID: &str = "fixture";

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

/// `body` sealed as the relay seals it, with `secret` under the id `key_id`.
fn seal_with(key_id: &str, secret: &[u8], body: &str) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret).unwrap();
    mac.update(format!("mcp-rounds/1 {key_id} {body}").as_bytes());
    format!("mcp-rounds/1 {key_id} {} {body}", URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
}

/// `body` sealed with the fixtures' relay key.
fn seal(body: &str) -> String {
    seal_with(KEY_ID, &STANDARD.decode(FIXTURE_RELAY_KEY).unwrap(), body)
}

fn fixture_keys() -> RelayKeys {
    RelayKeys::new([RelayKey::from_base64(KEY_ID, FIXTURE_RELAY_KEY).unwrap()]).unwrap()
}

/// Sends every payload on the relay's channel in one statement (one transaction: they arrive
/// together, in order).
async fn notify(sender: &PostgresReplayStore, payloads: &[String]) {
    let conn = sender.pool().get().await.unwrap();
    let sent =
        conn.execute("SELECT count(pg_notify($1, p)) FROM unnest($2::text[]) AS p", &[&CHANNEL, &payloads]).await;
    sent.unwrap();
}

/// Waits until `relay`'s counts satisfy `done` (30 s at most), and returns them.
async fn stats_when(relay: &PostgresFanOut, what: &str, done: impl Fn(&RelayStats) -> bool) -> RelayStats {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let stats = relay.stats();
        if done(&stats) {
            return stats;
        }
        assert!(Instant::now() < deadline, "{what} never happened: {stats:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

mod forged {
    use super::*;

    fn fixture(url: &str) -> StdioProcess {
        let notes = std::env::temp_dir();
        StdioProcess::spawn(
            env!("CARGO_BIN_EXE_fixture-server"),
            &["--notes", notes.to_str().unwrap(), "--fan-out", url],
        )
    }

    /// The list-change events among `messages`, and the streams that ended, in order.
    fn seen(messages: &[Value]) -> Vec<String> {
        messages
            .iter()
            .filter_map(|m| match m["method"].as_str() {
                Some(method) => Some(format!("{method} on {}", stream_of(m))),
                None => m["result"].is_object().then(|| format!("end of {}", m["id"])),
            })
            .collect()
    }

    #[test]
    fn notifications_without_the_relay_keys_seal_are_ignored_and_genuine_ones_delivered() {
        let url = postgres::fresh_database(&format!("relay_forged_{}", std::process::id()));
        let (mut a, mut b) = (fixture(&url), fixture(&url));
        let kinds = json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true});
        b.send(&request(json!("on-b"), "subscriptions/listen", json!({"notifications": kinds})));
        b.recv_until(&[&event("notifications/subscriptions/acknowledged", json!("on-b"))]);

        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let sender = runtime.block_on(PostgresReplayStore::connect(&url)).unwrap();
        let at = now_ms();
        let body =
            |from: &str, seq: u64, at: u64, what: &str| format!(r#"{{"from":"{from}","seq":{seq},"at":{at},{what}}}"#);
        let wrong_secret = [9u8; 32];
        let genuine = seal(&body("tester", 1, at, r#""events":["resources"]"#));
        let forged = [
            // What anyone with a connection can send: unsealed, in this version's words and the last one's.
            body("forger", 1, at, r#""events":["prompts"]"#),
            body("forger", 2, at, r#""resync":true"#),
            r#"{"from":"forger","events":["prompts"]}"#.to_owned(),
            r#"{"from":"forger","resync":true}"#.to_owned(),
            // Sealed with a key the fixtures do not have, under their key's id and another.
            seal_with(KEY_ID, &wrong_secret, &body("forger", 3, at, r#""events":["prompts"]"#)),
            seal_with(KEY_ID, &wrong_secret, &body("forger", 4, at, r#""resync":true"#)),
            seal_with("r2", &wrong_secret, &body("forger", 5, at, r#""resync":true"#)),
            // A malformed seal, and a real tag moved onto another body.
            format!("mcp-rounds/1 {KEY_ID} !!! {}", body("forger", 6, at, r#""resync":true"#)),
            genuine.replace(r#""events":["resources"]"#, r#""resync":true"#),
        ];
        runtime.block_on(notify(&sender, &forged));
        // A genuine notification, then the same again (anyone who listens can copy it), and a
        // genuine one from long ago by an instance never heard from (a copy kept for later).
        let old = seal(&body("long-gone", 1, at - 3_600_000, r#""resync":true"#));
        runtime.block_on(notify(&sender, std::slice::from_ref(&genuine)));
        runtime.block_on(notify(&sender, &[genuine, old]));

        // Then a change announced on the other instance, which b hears of after all the above.
        a.send(&request(json!(1), "tools/call", json!({"name": "announce", "arguments": {"kind": "tools"}})));
        a.recv_until(&[&answer_to(json!(1))]);
        // Up to that change, or to the stream's end, which a forged resync would cause.
        let (tools, ended) = (event("notifications/tools/list_changed", json!("on-b")), answer_to(json!("on-b")));
        let mut on_b = Vec::new();
        while !on_b.last().is_some_and(|m| tools(m) || ended(m)) {
            on_b.push(b.recv());
        }
        assert_eq!(
            seen(&on_b),
            ["notifications/resources/list_changed on \"on-b\"", "notifications/tools/list_changed on \"on-b\""],
            "only the genuine notifications, once each, and the stream was never ended"
        );
    }
}

/// A sender of genuine notifications, as another instance would send them.
struct Peer {
    from: String,
    seq: u64,
}

impl Peer {
    fn new(name: &str) -> Self {
        Peer { from: format!("{name}-{}", std::process::id()), seq: 0 }
    }

    fn next(&mut self, what: &str) -> String {
        self.seq += 1;
        seal(&format!(r#"{{"from":"{}","seq":{},"at":{},{what}}}"#, self.from, self.seq, now_ms()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_resync_requests_makes_each_instance_resync_about_once_a_second() {
    let url = postgres::fresh_database(&format!("relay_resync_flood_{}", std::process::id()));
    let sender = PostgresReplayStore::connect(&url).await.unwrap();
    let relays = [
        PostgresFanOut::builder(Changes::default(), fixture_keys()).start(&url).await.unwrap(),
        PostgresFanOut::builder(Changes::default(), fixture_keys()).start(&url).await.unwrap(),
    ];
    let mut peer = Peer::new("flood");
    let started = Instant::now();
    // 5,000 requests over 2.5 s, in 25 bursts.
    let (bursts, per_burst) = (25, 200);
    let mut every = tokio::time::interval(Duration::from_millis(100));
    for _ in 0..bursts {
        every.tick().await;
        let burst: Vec<String> = (0..per_burst).map(|_| peer.next(r#""resync":true"#)).collect();
        notify(&sender, &burst).await;
    }
    let sent = (bursts * per_burst) as u64;
    for relay in &relays {
        let stats = stats_when(relay, "every request arriving", |s| s.accepted == sent).await;
        assert_eq!(stats.rejected, 0, "{stats:?}");
        let stats = stats_when(relay, "a second resync", |s| s.resyncs >= 2).await;
        let elapsed = started.elapsed();
        // One at once, then at most one per second that has begun since.
        let most = elapsed.as_secs() + 1;
        assert!(stats.resyncs <= most, "{} resyncs in {elapsed:?} for {sent} requests", stats.resyncs);
    }
}

#[tokio::test]
async fn a_flood_of_events_stays_within_the_incoming_limit_and_what_is_dropped_is_resynced() {
    let url = postgres::fresh_database(&format!("relay_event_flood_{}", std::process::id()));
    let sender = PostgresReplayStore::connect(&url).await.unwrap();
    let limit = 4;
    let relay =
        PostgresFanOut::builder(Changes::default(), fixture_keys()).incoming_limit(limit).start(&url).await.unwrap();
    let mut peer = Peer::new("events");
    let (bursts, per_burst) = (10, 2_000);
    for burst in 0..bursts {
        let payloads: Vec<String> =
            (0..per_burst).map(|n| peer.next(&format!(r#""events":[{{"updated":"flood://{burst}/{n}"}}]"#))).collect();
        notify(&sender, &payloads).await;
    }
    let sent = (bursts * per_burst) as u64;
    let stats =
        stats_when(&relay, "every notification delivered or dropped", |s| s.delivered + s.dropped == sent).await;
    assert_eq!((stats.accepted, stats.rejected), (sent, 0), "{stats:?}");
    assert!(stats.queue_peak <= limit, "{} notifications waited at once, over the limit of {limit}", stats.queue_peak);
    assert!(stats.dropped > 0, "the flood never filled the queue: {stats:?}");
    // Nothing is lost silently: listeners resync after what was dropped.
    stats_when(&relay, "a resync after the drops", |s| s.resyncs >= 1).await;
}
