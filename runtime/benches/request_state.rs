//! What signed `requestState` costs beyond the HMAC itself.
//!
//! `state/sign+verify` signs a typical notes_delete state (a form of three candidates in the
//! stored requests) and verifies it; `hmac/compute+verify` computes and verifies HMAC-SHA256
//! over exactly the bytes that state signs. The ratio of the two is the overhead of versioning,
//! the nonce, encoding and parsing.

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use criterion::{Criterion, criterion_group, criterion_main};
use hmac::{Hmac, KeyInit, Mac};
use mcp_rounds::request_state::{Binding, KeyRing, StateKey, arguments_digest, sign, verify};
use serde_json::json;
use sha2::Sha256;

fn typical() -> (KeyRing, Binding, Vec<u8>) {
    let keys = KeyRing::new([StateKey::new("prod-2026-11", &[7u8; 32]).unwrap()]).unwrap();
    let binding = Binding {
        principal: "demo".into(),
        method: "tools/call".into(),
        target: "notes_delete".into(),
        arguments_digest: arguments_digest(&json!({"workspaceUri": "file:///srv/notes", "title": "TPS report"})),
    };
    let stored = json!({
        "d": {},
        "q": {"choice": {"method": "elicitation/create", "params": {
            "mode": "form",
            "message": "Which note titled like \"TPS report\" should I delete?",
            "requestedSchema": {"type": "object", "properties": {
                "note": {"type": "string", "description": "The note to delete.", "oneOf": [
                    {"const": "tps-report-2026-q1", "title": "TPS report Q1 2026"},
                    {"const": "tps-report-cover-sheet", "title": "TPS Report cover sheet"},
                    {"const": "tps-report-draft-old", "title": "Old tps report draft"}
                ]},
                "confirm": {"type": "boolean", "description": "Delete it for good?"}
            }, "required": ["note", "confirm"]}
        }}},
        "s": true
    });
    (keys, binding, serde_json::to_vec(&stored).unwrap())
}

fn bench(c: &mut Criterion) {
    let (keys, binding, data) = typical();
    let ttl = Duration::from_secs(300);
    let (token, _) = sign(&keys, &binding, "Confirm", &data, ttl).unwrap();
    let signed_bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
    let message = &signed_bytes[..signed_bytes.len() - 32];
    println!("typical state: {} bytes signed, {} characters sent", message.len(), token.len());

    let mut group = c.benchmark_group("request_state");
    group.bench_function("state/sign+verify", |b| {
        b.iter(|| {
            let (token, _) = sign(&keys, black_box(&binding), "Confirm", black_box(&data), ttl).unwrap();
            verify(&keys, black_box(&token), &binding, SystemTime::now()).unwrap()
        })
    });
    let mac_key = Hmac::<Sha256>::new_from_slice(&[7u8; 32]).unwrap();
    group.bench_function("hmac/compute+verify", |b| {
        b.iter(|| {
            let mut mac = mac_key.clone();
            mac.update(black_box(message));
            let tag = mac.finalize().into_bytes();
            let mut check = mac_key.clone();
            check.update(black_box(message));
            check.verify_slice(&tag).unwrap();
        })
    });
    group.bench_function("state/verify", |b| {
        b.iter(|| verify(&keys, black_box(&token), &binding, SystemTime::now()).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
