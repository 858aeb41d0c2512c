//! Two notes-server processes on one data directory (one replay store, one key ring, one
//! workspace): a state spent on one is refused by the other, the same accepted state fired at
//! both at once deletes exactly one note, and a listener on one hears the other's changes.

mod common;

use std::sync::Barrier;

use common::*;
use mcp_rounds_tests::request;
use mcp_rounds_tests::stdio::StdioProcess;
use serde_json::{Value, json};

const Q1: &str = "tps-report-2026-q1";
const COVER: &str = "tps-report-cover-sheet";
const DRAFT: &str = "tps-report-draft-old";

#[test]
fn a_state_spent_on_one_process_is_refused_by_the_other() {
    let data = DataDir::seeded("two-replay");
    let ws = data.workspace_uri();
    let (mut a, mut b) = (data.stdio(), data.stdio());

    // Accepted on A, replayed to B in every form.
    let first = delete_call(1, &ws, "tps report");
    let (requests, state) = input_required(&ask(&mut a, &first));
    assert_eq!(offered(&requests), TPS);
    assert_done(&ask(&mut a, &retry(&first, 2, accept(Q1), &state)), "Deleted tps-report-2026-q1.");
    data.assert_notes_without(&[Q1]);
    for (n, answer) in [accept(Q1), accept(COVER), decline(), cancel()].into_iter().enumerate() {
        assert_state_refused(&ask(&mut b, &retry(&first, 3 + n as i64, answer, &state)));
    }
    data.assert_notes_without(&[Q1]);

    // Declined on B, then accepted on A.
    let (_, state) = input_required(&ask(&mut b, &first));
    assert_done(&ask(&mut b, &retry(&first, 10, decline(), &state)), "Declined; nothing was deleted.");
    assert_state_refused(&ask(&mut a, &retry(&first, 11, accept(COVER), &state)));
    data.assert_notes_without(&[Q1]);

    // Cancelled on A: still good on B (same keys), and once B spends it, A refuses it.
    let (_, state) = input_required(&ask(&mut a, &first));
    let cancelled = "Cancelled; nothing was deleted. The confirmation can be asked for again.";
    assert_done(&ask(&mut a, &retry(&first, 20, cancel(), &state)), cancelled);
    data.assert_notes_without(&[Q1]);
    assert_done(&ask(&mut b, &retry(&first, 21, accept(COVER), &state)), "Deleted tps-report-cover-sheet.");
    assert_state_refused(&ask(&mut a, &retry(&first, 22, accept(DRAFT), &state)));
    data.assert_notes_without(&[Q1, COVER]);
}

/// Sends `message` to both processes at the same moment and returns both answers.
fn fire_at_both(a: &mut StdioProcess, b: &mut StdioProcess, message: &Value) -> [Value; 2] {
    let barrier = Barrier::new(2);
    let barrier = &barrier;
    std::thread::scope(|scope| {
        let to_a = scope.spawn(move || {
            barrier.wait();
            a.call(message)
        });
        let to_b = scope.spawn(move || {
            barrier.wait();
            b.call(message)
        });
        [to_a.join().unwrap(), to_b.join().unwrap()]
    })
}

#[test]
fn the_same_accepted_state_fired_at_both_at_once_deletes_exactly_one_note() {
    const ROUNDS: usize = 20;
    let data = DataDir::seeded("two-race");
    let ws = data.workspace_uri();
    let (mut a, mut b) = (data.stdio(), data.stdio());
    let mut wins = [0; 2];

    for i in 0..ROUNDS {
        let title = format!("Race target {i:02}");
        let id = format!("race-target-{i:02}");
        let base = 10 * i as i64;
        // Each process mints every other state: both must honour states the other signed.
        let minter = if i % 2 == 0 { &mut a } else { &mut b };
        let create =
            tool(base, "notes_create", json!({"workspaceUri": ws, "title": title, "body": "Delete once."}), json!({}));
        assert_eq!(ask(minter, &create)["result"]["structuredContent"]["id"], id.as_str());
        let first = delete_call(base + 1, &ws, &title);
        let (requests, state) = input_required(&ask(minter, &first));
        assert_eq!(offered(&requests), [id.as_str()]);
        let before = data.notes();

        let answers = fire_at_both(&mut a, &mut b, &retry(&first, base + 2, accept(&id), &state));
        let deleted = json!([{"type": "text", "text": format!("Deleted {id}.")}]);
        let winners: Vec<usize> = (0..2)
            .filter(|&n| {
                let result = &answers[n]["result"];
                result["resultType"] == "complete" && result.get("isError").is_none() && result["content"] == deleted
            })
            .collect();
        assert_eq!(winners.len(), 1, "round {i}: exactly one process deletes: {} / {}", answers[0], answers[1]);
        let (winner, loser) = (winners[0], 1 - winners[0]);
        assert_eq!(answers[winner]["id"], base + 2);
        assert_eq!(answers[loser]["id"], base + 2);
        assert_state_refused(&answers[loser]);
        wins[winner] += 1;

        let after: Vec<String> = before.into_iter().filter(|n| *n != id).collect();
        assert_eq!(data.notes(), after, "round {i}: exactly {id} is gone");
    }
    data.assert_intact();
    // Which process wins is up to the scheduler; shown so that a one-sided run is visible.
    eprintln!("wins over {ROUNDS} rounds: A {}, B {}", wins[0], wins[1]);
}

/// Reads `server` until a message with `method` arrives, returning it and everything read
/// before it.
fn wait_for(server: &mut StdioProcess, method: &str) -> (Value, Vec<Value>) {
    let mut before = server.recv_until(&[&|m: &Value| m["method"] == method]);
    (before.pop().unwrap(), before)
}

#[test]
fn a_listener_on_one_process_hears_changes_made_through_the_other() {
    let data = DataDir::seeded("two-listen");
    let ws = data.workspace_uri();
    let (mut a, mut b) = (data.stdio(), data.stdio());
    let subscribed = "notes://workspace/roadmap-meeting";
    let last = "notes://workspace/reading-list";
    let filter = json!({"resourcesListChanged": true, "resourceSubscriptions": [subscribed, last]});
    b.send(&request(json!("watch"), "subscriptions/listen", json!({"notifications": filter})));
    let ack = b.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "watch");
    assert_eq!(ack["params"]["notifications"], filter);

    let create =
        tool(1, "notes_create", json!({"workspaceUri": ws, "title": "Fresh from A", "body": "Hi."}), json!({}));
    assert_eq!(ask(&mut a, &create)["result"]["structuredContent"]["id"], "fresh-from-a");
    let (added, mut events) = wait_for(&mut b, "notifications/resources/list_changed");
    events.push(added);

    let edit =
        tool(2, "notes_edit", json!({"workspaceUri": ws, "id": "roadmap-meeting", "body": "- ship it"}), json!({}));
    assert_eq!(ask(&mut a, &edit)["result"]["structuredContent"]["id"], "roadmap-meeting");
    let (updated, seen) = wait_for(&mut b, "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], subscribed);
    events.extend(seen);
    events.push(updated);
    // Late duplicates of the same file events are fine; anything else is not. One more change
    // shows where they end: b's watcher reports file events in order, so once this last
    // change's update is in, nothing of the two before can still come.
    let edit = tool(3, "notes_edit", json!({"workspaceUri": ws, "id": "reading-list", "body": "- more"}), json!({}));
    assert_eq!(ask(&mut a, &edit)["result"]["structuredContent"]["id"], "reading-list");
    let is_last = |m: &Value| m["method"] == "notifications/resources/updated" && m["params"]["uri"] == last;
    events.extend(b.recv_until(&[&is_last]));
    events.retain(|m| !is_last(m));

    for event in &events {
        assert_eq!(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "watch", "{event}");
        match event["method"].as_str() {
            Some("notifications/resources/list_changed") => {}
            Some("notifications/resources/updated") => assert_eq!(event["params"]["uri"], subscribed, "{event}"),
            _ => panic!("only the requested kinds are delivered: {event}"),
        }
    }
    let mut expected: Vec<&str> = SEEDED.to_vec();
    expected.insert(0, "fresh-from-a");
    assert_eq!(data.notes(), expected);
}
