//! An embedded input request travels as its method's name and its params
//! (`{"method": "elicitation/create", "params": {…}}`): its encoding is the table's, so that
//! the names stay in one place.

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap as _, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Method;
use crate::model::InputRequest;

/// The methods an embedded request may have.
const EMBEDDED: [&str; 3] =
    [Method::ElicitationCreate.name(), Method::SamplingCreateMessage.name(), Method::RootsList.name()];

impl InputRequest {
    /// The method of the request.
    pub fn method(&self) -> Method {
        match self {
            InputRequest::Elicit { .. } => Method::ElicitationCreate,
            InputRequest::CreateMessage { .. } => Method::SamplingCreateMessage,
            InputRequest::ListRoots { .. } => Method::RootsList,
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let params_present = !matches!(self, InputRequest::ListRoots { params: None });
        let mut map = serializer.serialize_map(Some(1 + usize::from(params_present)))?;
        map.serialize_entry("method", self.method().name())?;
        match self {
            InputRequest::Elicit { params } => map.serialize_entry("params", params)?,
            InputRequest::CreateMessage { params } => map.serialize_entry("params", params)?,
            InputRequest::ListRoots { params: Some(params) } => map.serialize_entry("params", params)?,
            InputRequest::ListRoots { params: None } => {}
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(Tagged)
    }
}

/// Reads `{"method": …, "params": …}`. With the method first, as this crate writes it, the
/// params are read straight into their type; params that come before their method are held
/// as a JSON value until it is known.
struct Tagged;

/// A member of an embedded request.
enum Member {
    Method,
    Params,
    Other,
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl de::Visitor<'_> for Name {
            type Value = Member;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Member, E> {
                Ok(match name {
                    "method" => Member::Method,
                    "params" => Member::Params,
                    _ => Member::Other,
                })
            }
        }
        deserializer.deserialize_identifier(Name)
    }
}

/// The method an embedded request names.
fn embedded<E: de::Error>(name: &str) -> Result<Method, E> {
    match Method::from_name(name) {
        Some(method @ (Method::ElicitationCreate | Method::SamplingCreateMessage | Method::RootsList)) => Ok(method),
        _ => Err(E::unknown_variant(name, &EMBEDDED)),
    }
}

/// The request of `method` with `params` (absent or null: none).
fn request<'de, P, E>(method: Method, params: Option<P>) -> Result<InputRequest, E>
where
    P: Deserializer<'de, Error = E>,
    E: de::Error,
{
    let required = || E::missing_field("params");
    Ok(match method {
        Method::ElicitationCreate => {
            InputRequest::Elicit { params: Deserialize::deserialize(params.ok_or_else(required)?)? }
        }
        Method::SamplingCreateMessage => {
            InputRequest::CreateMessage { params: Deserialize::deserialize(params.ok_or_else(required)?)? }
        }
        _ => InputRequest::ListRoots {
            params: match params {
                Some(params) => Deserialize::deserialize(params)?,
                None => None,
            },
        },
    })
}

impl<'de> de::Visitor<'de> for Tagged {
    type Value = InputRequest;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an embedded request: an object with its method and params")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<InputRequest, A::Error> {
        let mut method = None;
        let mut read = None;
        let mut early: Option<Value> = None;
        while let Some(member) = map.next_key::<Member>()? {
            match member {
                Member::Method if method.is_some() => return Err(de::Error::duplicate_field("method")),
                Member::Method => {
                    let name: std::borrow::Cow<'de, str> = map.next_value()?;
                    method = Some(embedded::<A::Error>(&name)?);
                }
                Member::Params if read.is_some() || early.is_some() => {
                    return Err(de::Error::duplicate_field("params"));
                }
                Member::Params => match method {
                    Some(method) => read = Some(map.next_value_seed(ParamsOf(method))?),
                    None => early = Some(map.next_value()?),
                },
                Member::Other => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        let method = method.ok_or_else(|| de::Error::missing_field("method"))?;
        match (read, early) {
            (Some(read), _) => Ok(read),
            (None, Some(early)) => {
                request(method, Some(early).filter(|params| !params.is_null())).map_err(de::Error::custom)
            }
            (None, None) => request::<Value, serde_json::Error>(method, None).map_err(de::Error::custom),
        }
    }
}

/// The params of an embedded request whose method was read already.
struct ParamsOf(Method);

impl<'de> de::DeserializeSeed<'de> for ParamsOf {
    type Value = InputRequest;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<InputRequest, D::Error> {
        // `null` params are none for `roots/list`, whose params are optional, and wrong for
        // the others: each method's type says so itself.
        request(self.0, Some(deserializer))
    }
}
