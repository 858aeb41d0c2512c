//! Request ids: the one JSON-RPC shape the protocol types themselves carry (progress tokens and
//! subscription ids are ids too).

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

/// A JSON-RPC request id: a string or a number, never null.
///
/// Numbers are kept exactly as the peer wrote them, so an id is always echoed back unchanged.
/// The same shape is used for progress tokens and subscription ids.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// A numeric id, as written by the peer.
    Number(serde_json::Number),
    /// A string id.
    String(Arc<str>),
}

impl RequestId {
    /// A numeric id.
    pub fn number(n: i64) -> Self {
        RequestId::Number(n.into())
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.into())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s.into())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => n.serialize(serializer),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl<'de> de::Visitor<'de> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RequestId, E> {
                serde_json::Number::from_f64(v)
                    .map(RequestId::Number)
                    .ok_or_else(|| E::custom("id is not a finite number"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.into()))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}
