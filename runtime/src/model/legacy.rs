//! What only a 2025-11-25 (or 2025-06-18) session has: the `initialize` handshake, and the
//! parameters of the methods 2026-07-28 removed.

use serde::{Deserialize, Serialize};

use super::{ClientCapabilities, Implementation, JsonObject, LoggingLevel, ServerCapabilities};

/// The parameters of `initialize`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeRequestParams {
    /// The newest version the client speaks.
    pub protocol_version: String,
    /// What the client can do, for the whole session.
    pub capabilities: ClientCapabilities,
    /// Who the client says it is.
    pub client_info: Implementation,
}

impl InitializeRequestParams {
    /// A handshake offering `protocol_version`.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        InitializeRequestParams { protocol_version: protocol_version.into(), capabilities, client_info }
    }
}

/// The result of `initialize`: the version the session speaks and what the server offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The version the session speaks from now on.
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server says it is.
    pub server_info: Implementation,
    /// Guidance for the model on how to use this server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl InitializeResult {
    /// The handshake's answer.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        InitializeResult {
            protocol_version: protocol_version.into(),
            capabilities,
            server_info,
            instructions: None,
            meta: None,
        }
    }
}

/// The result of methods that answer nothing but success (`ping`, `logging/setLevel`,
/// `resources/subscribe`): `{}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The parameters of `logging/setLevel`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SetLevelRequestParams {
    /// The least severe level the client wants to see.
    pub level: LoggingLevel,
}

/// The parameters of `resources/subscribe` and `resources/unsubscribe`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscribeRequestParams {
    /// The resource to follow, or to stop following.
    pub uri: String,
}

/// The parameters of `notifications/elicitation/complete`: a URL-mode elicitation finished
/// out of band.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCompleteNotificationParams {
    /// The elicitation that finished.
    pub elicitation_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_handshake_round_trips_as_the_2025_schema_spells_it() {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "c", "version": "1"}
        });
        let read: InitializeRequestParams = serde_json::from_value(params.clone()).unwrap();
        assert!(read.capabilities.supports_form_elicitation());
        assert_eq!(serde_json::to_value(&read).unwrap(), params);
        let result = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "s", "version": "2"},
            "instructions": "Be brief."
        });
        let read: InitializeResult = serde_json::from_value(result.clone()).unwrap();
        assert_eq!(serde_json::to_value(&read).unwrap(), result);
        assert_eq!(serde_json::to_value(EmptyResult::default()).unwrap(), json!({}));
        let level: SetLevelRequestParams = serde_json::from_value(json!({"level": "warning"})).unwrap();
        assert_eq!(level.level, LoggingLevel::Warning);
    }
}
