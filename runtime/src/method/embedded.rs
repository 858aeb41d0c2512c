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
        let value = Value::deserialize(deserializer)?;
        let Value::Object(mut object) = value else {
            return Err(de::Error::invalid_type(de::Unexpected::Other("not an object"), &"an embedded request"));
        };
        let method = match object.get("method") {
            Some(Value::String(method)) => method.clone(),
            Some(_) => return Err(de::Error::invalid_type(de::Unexpected::Other("a non-string"), &"a method name")),
            None => return Err(de::Error::missing_field("method")),
        };
        let params = object.remove("params").filter(|params| !params.is_null());
        let required = || params.clone().ok_or_else(|| de::Error::missing_field("params"));
        match Method::from_name(&method) {
            Some(Method::ElicitationCreate) => serde_json::from_value(required()?)
                .map(|params| InputRequest::Elicit { params })
                .map_err(de::Error::custom),
            Some(Method::SamplingCreateMessage) => serde_json::from_value(required()?)
                .map(|params| InputRequest::CreateMessage { params })
                .map_err(de::Error::custom),
            Some(Method::RootsList) => match params {
                None => Ok(InputRequest::ListRoots { params: None }),
                Some(params) => serde_json::from_value(params)
                    .map(|params| InputRequest::ListRoots { params: Some(params) })
                    .map_err(de::Error::custom),
            },
            _ => Err(de::Error::unknown_variant(&method, &EMBEDDED)),
        }
    }
}
