//! What every [`TaskStore`](super::TaskStore) must do, as a test each store runs, and the
//! record it starts from.

use serde_json::json;

/// A `working` task of principal `alice`, created at 1 s, expiring at 61 s.
#[doc(hidden)]
pub fn task_record(id: &str) -> super::TaskRecord {
    super::TaskRecord {
        id: id.into(),
        version: 1,
        principal: Some("alice".into()),
        tool: "slow".into(),
        arguments: crate::model::JsonObject::new(),
        client_capabilities: json!({}),
        status: crate::model::TaskStatus::Working,
        status_message: None,
        created_at_ms: 1_000,
        updated_at_ms: 1_000,
        ttl_ms: Some(60_000),
        poll_interval_ms: 1000,
        lease_until_ms: Some(16_000),
        round: 0,
        input_requests: Default::default(),
        input_responses: crate::model::JsonObject::new(),
        request_state: None,
        result: None,
        error: None,
    }
}

/// What every [`TaskStore`](super::TaskStore) must do, run against each (on an empty
/// store: it counts what pruning removes).
#[doc(hidden)]
pub async fn task_store_contract(store: &dyn super::TaskStore) {
    let mut task = task_record("t-contract");
    store.create(&task).await.unwrap();
    assert!(store.create(&task).await.is_err(), "ids are unique");
    assert_eq!(store.get("t-contract").await.unwrap().as_ref(), Some(&task));
    assert_eq!(store.get("nope").await.unwrap(), None);

    task.version = 2;
    task.status = crate::model::TaskStatus::Completed;
    task.result = Some(json!({"content": []}));
    assert!(store.replace(&task).await.unwrap());
    assert!(!store.replace(&task).await.unwrap(), "a second writer of version 2 loses");
    let mut stale = task.clone();
    stale.version = 5;
    assert!(!store.replace(&stale).await.unwrap(), "only the next version applies");
    assert_eq!(store.get("t-contract").await.unwrap(), Some(task.clone()));

    let mut forever = task_record("t-forever");
    forever.ttl_ms = None;
    store.create(&forever).await.unwrap();
    assert_eq!(store.prune(61_001).await.unwrap(), 1, "the one whose ttl ran out");
    assert_eq!(store.get("t-contract").await.unwrap(), None);
    assert!(store.get("t-forever").await.unwrap().is_some());
}
