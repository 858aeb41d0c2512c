//! Rotating the key that signs `requestState` across processes on one data directory, as a
//! rolling restart does: in three steps (add the new key while the old one signs; sign with the
//! new one; remove the old one), no process ever refuses a state another signed. Skipping the
//! first step is what the steps prevent: a process that does not know the new key yet refuses
//! the states signed with it.

mod common;

use common::*;
use mcp_rounds_tests::stdio::StdioProcess;

const K2_SECRET: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

/// A delete's confirmation asked by `from` and declined on `to`: `to` honours `from`'s state.
fn crosses(from: &mut StdioProcess, to: &mut StdioProcess, ws: &str, id: i64) {
    let first = delete_call(id, ws, "tps report");
    let (_, state) = input_required(&ask(from, &first));
    assert_done(&ask(to, &retry(&first, id + 1, decline(), &state)), "Declined; nothing was deleted.");
}

/// Adds `k2` to the seeded ring, signing with `signing`.
fn add_k2(data: &DataDir, signing: &str) {
    data.replace_in_config("ttl_seconds = 300\n", &format!("ttl_seconds = 300\nsigning = \"{signing}\"\n"));
    data.replace_in_config("[model]", &format!("[[state.keys]]\nid = \"k2\"\nsecret = \"{K2_SECRET}\"\n\n[model]"));
}

#[test]
fn a_key_rotates_in_three_rolling_restarts_and_no_state_is_refused() {
    let data = DataDir::seeded("rotation");
    let ws = data.workspace_uri();
    let mut a = data.stdio();

    // Step one: k2 verifies, k1 still signs. B restarts onto it; A still runs on k1 alone.
    add_k2(&data, "k1");
    let mut b = data.stdio();
    crosses(&mut a, &mut b, &ws, 10);
    crosses(&mut b, &mut a, &ws, 20);
    a = data.stdio();

    // Step two: k2 signs. B restarts onto it; A verifies k2 already.
    data.replace_in_config("signing = \"k1\"", "signing = \"k2\"");
    b = data.stdio();
    crosses(&mut a, &mut b, &ws, 30);
    crosses(&mut b, &mut a, &ws, 40);
    a = data.stdio();
    crosses(&mut a, &mut b, &ws, 50);

    // Step three, once every state k1 signed has expired: k1 goes. A restarts without it.
    let config = data.config();
    let start = config.find("[[state.keys]]\nid = \"k1\"").expect("the seeded key");
    let end = start + config[start..].find("\n\n").expect("a blank line after the key") + 2;
    data.set_config(&format!("{}{}", &config[..start], &config[end..]));
    a = data.stdio();
    crosses(&mut a, &mut b, &ws, 60);
    crosses(&mut b, &mut a, &ws, 70);
    data.assert_intact();
}

#[test]
fn signing_with_a_key_another_process_lacks_is_what_the_steps_prevent() {
    let data = DataDir::seeded("rotation-skipped");
    let ws = data.workspace_uri();
    let mut a = data.stdio();
    add_k2(&data, "k2");
    let mut b = data.stdio();
    // A still knows only k1: B's state is refused there, A's is honoured by B.
    let first = delete_call(1, &ws, "tps report");
    let (_, state) = input_required(&ask(&mut b, &first));
    assert_state_refused(&ask(&mut a, &retry(&first, 2, decline(), &state)));
    crosses(&mut a, &mut b, &ws, 10);
}
