//! Results kept as long as the server says they stay fresh (`ttlMs`), and for whom
//! (`cacheScope`: a private entry serves only the credential it was fetched with). What a
//! server announces as changed is forgotten at once; `input_required` answers and the results
//! of retries are never kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::method::Method;
use crate::model::CacheScope;

/// Entries kept at most; past it, the stalest are dropped first.
const MAX_ENTRIES: usize = 1024;

/// One client's cache.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    entries: Mutex<HashMap<CacheKey, Kept>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct CacheKey {
    method: Method,
    /// The params as sent (without the envelope).
    params: String,
    /// The credential of a private entry.
    credential: Option<u64>,
}

#[derive(Debug)]
struct Kept {
    raw: Arc<RawValue>,
    fresh_until: Instant,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Hints {
    #[serde(default)]
    ttl_ms: u64,
    #[serde(default)]
    cache_scope: CacheScope,
    #[serde(default)]
    result_type: Option<String>,
}

impl Cache {
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<CacheKey, Kept>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The fresh result of `method` with `params`, fetched with `credential`, if one is kept.
    pub(crate) fn get(&self, method: Method, params: &str, credential: Option<u64>) -> Option<Arc<RawValue>> {
        let now = Instant::now();
        let entries = self.entries();
        // A public entry serves anyone; a private one only its own credential.
        [None, Some(credential.unwrap_or(0))].into_iter().find_map(|credential| {
            let key = CacheKey { method, params: params.to_owned(), credential };
            let entry = entries.get(&key)?;
            (entry.fresh_until > now).then(|| entry.raw.clone())
        })
    }

    /// Keeps a complete result for as long as its hints say.
    pub(crate) fn put(&self, method: Method, params: String, credential: Option<u64>, raw: &RawValue) {
        let Ok(hints) = serde_json::from_str::<Hints>(raw.get()) else { return };
        if hints.ttl_ms == 0 || hints.result_type.as_deref().is_some_and(|t| t != "complete") {
            return;
        }
        let credential = match hints.cache_scope {
            CacheScope::Public => None,
            // Without a credential (a pipe, the same process) private is the client's own.
            CacheScope::Private => Some(credential.unwrap_or(0)),
        };
        let entry =
            Kept { raw: Arc::from(raw.to_owned()), fresh_until: Instant::now() + Duration::from_millis(hints.ttl_ms) };
        let mut entries = self.entries();
        if entries.len() >= MAX_ENTRIES {
            let now = Instant::now();
            entries.retain(|_, entry| entry.fresh_until > now);
            if entries.len() >= MAX_ENTRIES
                && let Some(stalest) = entries.iter().min_by_key(|(_, e)| e.fresh_until).map(|(k, _)| k.clone())
            {
                entries.remove(&stalest);
            }
        }
        entries.insert(CacheKey { method, params, credential }, entry);
    }

    /// Forgets every result of `method`.
    pub(crate) fn forget(&self, method: Method) {
        self.entries().retain(|key, _| key.method != method);
    }

    /// Forgets what reading `uri` returned.
    pub(crate) fn forget_resource(&self, uri: &str) {
        self.entries().retain(|key, _| {
            key.method != Method::ResourcesRead
                || serde_json::from_str::<serde_json::Value>(&key.params)
                    .ok()
                    .is_none_or(|params| params.get("uri").and_then(|u| u.as_str()) != Some(uri))
        });
    }

    /// Forgets everything (the client may have missed what changed).
    pub(crate) fn clear(&self) {
        self.entries().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    #[test]
    fn a_private_result_serves_only_its_credential_and_a_public_one_everyone() {
        let cache = Cache::default();
        let private = raw(r#"{"resultType":"complete","tools":[],"ttlMs":60000,"cacheScope":"private"}"#);
        cache.put(Method::ToolsList, "{}".into(), Some(1), &private);
        assert!(cache.get(Method::ToolsList, "{}", Some(1)).is_some());
        assert!(cache.get(Method::ToolsList, "{}", Some(2)).is_none(), "another credential");
        assert!(cache.get(Method::ToolsList, "{\"cursor\":\"x\"}", Some(1)).is_none(), "other params");
        let public = raw(r#"{"resultType":"complete","prompts":[],"ttlMs":60000,"cacheScope":"public"}"#);
        cache.put(Method::PromptsList, "{}".into(), Some(1), &public);
        assert!(cache.get(Method::PromptsList, "{}", Some(2)).is_some());
        assert!(cache.get(Method::PromptsList, "{}", None).is_some());
        cache.forget(Method::PromptsList);
        assert!(cache.get(Method::PromptsList, "{}", None).is_none());
    }

    #[test]
    fn what_must_not_be_kept_is_not() {
        let cache = Cache::default();
        let stale = raw(r#"{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}"#);
        cache.put(Method::ToolsList, "{}".into(), None, &stale);
        let asking = raw(r#"{"resultType":"input_required","requestState":"s","ttlMs":60000}"#);
        cache.put(Method::ResourcesRead, "{}".into(), None, &asking);
        let unhinted = raw(r#"{"resultType":"complete","tools":[]}"#);
        cache.put(Method::ToolsList, "{\"cursor\":\"a\"}".into(), None, &unhinted);
        assert!(cache.get(Method::ToolsList, "{}", None).is_none());
        assert!(cache.get(Method::ResourcesRead, "{}", None).is_none());
        assert!(cache.get(Method::ToolsList, "{\"cursor\":\"a\"}", None).is_none());
    }

    #[test]
    fn an_updated_resource_is_forgotten_and_no_other() {
        let cache = Cache::default();
        let read = raw(r#"{"resultType":"complete","contents":[],"ttlMs":60000,"cacheScope":"public"}"#);
        cache.put(Method::ResourcesRead, r#"{"uri":"a://1"}"#.into(), None, &read);
        cache.put(Method::ResourcesRead, r#"{"uri":"a://2"}"#.into(), None, &read);
        cache.forget_resource("a://1");
        assert!(cache.get(Method::ResourcesRead, r#"{"uri":"a://1"}"#, None).is_none());
        assert!(cache.get(Method::ResourcesRead, r#"{"uri":"a://2"}"#, None).is_some());
    }
}
