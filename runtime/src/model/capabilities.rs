//! Client and server capabilities.
//!
//! Client capabilities arrive with every request in `_meta` and hold for that request only.
//! Server capabilities are advertised by `server/discover`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// What a client declares it can do, for one request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Embedded `elicitation/create` requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Embedded `sampling/createMessage` requests (deprecated feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Embedded `roots/list` requests (deprecated feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<JsonObject>,
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// Extensions, keyed by extension id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, JsonObject>>,
}

impl ClientCapabilities {
    /// Form-mode elicitation: `elicitation: {}` (the shorthand) or `elicitation: {form: {}}`.
    /// `{url: {}}` alone does not include form mode.
    pub fn supports_form_elicitation(&self) -> bool {
        match &self.elicitation {
            None => false,
            Some(e) => e.form.is_some() || e.url.is_none(),
        }
    }

    /// URL-mode elicitation: `elicitation: {url: {}}`.
    pub fn supports_url_elicitation(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// Embedded sampling.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Sampling with tool use.
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Embedded `roots/list`.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// Whether the client declared the extension `id`.
    pub fn supports_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }

    /// Everything in `required` this declaration lacks, as capabilities (empty if none).
    pub fn missing(&self, required: &ClientCapabilities) -> ClientCapabilities {
        let mut missing = ClientCapabilities::default();
        if let Some(req) = &required.elicitation {
            let form = req.form.is_some() && !self.supports_form_elicitation();
            let url = req.url.is_some() && !self.supports_url_elicitation();
            let any = req.form.is_none() && req.url.is_none() && self.elicitation.is_none();
            if form || url || any {
                missing.elicitation = Some(ElicitationCapability {
                    form: if form { Some(JsonObject::new()) } else { None },
                    url: if url { Some(JsonObject::new()) } else { None },
                });
            }
        }
        if let Some(req) = &required.sampling {
            let tools = req.tools.is_some() && !self.supports_sampling_tools();
            let context = req.context.is_some() && self.sampling.as_ref().is_none_or(|s| s.context.is_none());
            if self.sampling.is_none() || tools || context {
                missing.sampling = Some(SamplingCapability {
                    tools: if tools { Some(JsonObject::new()) } else { None },
                    context: if context { Some(JsonObject::new()) } else { None },
                });
            }
        }
        if required.roots.is_some() && self.roots.is_none() {
            missing.roots = Some(JsonObject::new());
        }
        if let Some(req) = &required.extensions {
            let lacking: BTreeMap<_, _> = req
                .iter()
                .filter(|(id, _)| !self.supports_extension(id))
                .map(|(id, v)| (id.clone(), v.clone()))
                .collect();
            if !lacking.is_empty() {
                missing.extensions = Some(lacking);
            }
        }
        missing
    }

    /// True when nothing is declared.
    pub fn is_empty(&self) -> bool {
        self == &ClientCapabilities::default()
    }

    /// A short human name for what is declared, for error messages ("elicitation", "sampling and roots").
    pub(crate) fn describe(&self) -> String {
        let mut names: Vec<&str> = Vec::new();
        if self.elicitation.is_some() {
            names.push("elicitation");
        }
        if self.sampling.is_some() {
            names.push("sampling");
        }
        if self.roots.is_some() {
            names.push("roots");
        }
        if let Some(ext) = &self.extensions {
            names.extend(ext.keys().map(String::as_str));
        }
        if self.experimental.is_some() {
            names.push("experimental");
        }
        match names.as_slice() {
            [] => "declared".to_owned(),
            [one] => (*one).to_owned(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    }
}

/// Elicitation modes. `{}` means form mode only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    /// `{"form": {}}`.
    pub fn form() -> Self {
        ElicitationCapability { form: Some(JsonObject::new()), url: None }
    }

    /// `{"url": {}}`.
    pub fn url() -> Self {
        ElicitationCapability { form: None, url: Some(JsonObject::new()) }
    }
}

/// Sampling sub-capabilities.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingCapability {
    /// Tool use in sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Context inclusion (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
}

/// What a server offers, as advertised by `server/discover`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// `notifications/message` for requests that opt in (deprecated feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// `completion/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// Resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Extensions, keyed by extension id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, JsonObject>>,
}

/// The `prompts` server capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptsCapability {
    /// Emits `notifications/prompts/list_changed` to listeners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `resources` server capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Honours `resourceSubscriptions` in `subscriptions/listen`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Emits `notifications/resources/list_changed` to listeners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `tools` server capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// Emits `notifications/tools/list_changed` to listeners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caps(v: serde_json::Value) -> ClientCapabilities {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn elicitation_modes_follow_the_revision() {
        assert!(caps(json!({"elicitation": {}})).supports_form_elicitation());
        assert!(caps(json!({"elicitation": {"form": {}}})).supports_form_elicitation());
        assert!(caps(json!({"elicitation": {"form": {}, "url": {}}})).supports_form_elicitation());
        assert!(!caps(json!({"elicitation": {"url": {}}})).supports_form_elicitation());
        assert!(caps(json!({"elicitation": {"url": {}}})).supports_url_elicitation());
        assert!(!caps(json!({"elicitation": {}})).supports_url_elicitation());
        assert!(!caps(json!({})).supports_form_elicitation());
    }

    #[test]
    fn missing_reports_only_what_is_lacking() {
        let need_form = ClientCapabilities { elicitation: Some(ElicitationCapability::form()), ..Default::default() };
        assert!(caps(json!({"elicitation": {}})).missing(&need_form).is_empty());
        assert_eq!(
            serde_json::to_value(caps(json!({"elicitation": {"url": {}}})).missing(&need_form)).unwrap(),
            json!({"elicitation": {"form": {}}})
        );
        let need_sampling = ClientCapabilities { sampling: Some(Default::default()), ..Default::default() };
        assert_eq!(
            serde_json::to_value(caps(json!({"roots": {}})).missing(&need_sampling)).unwrap(),
            json!({"sampling": {}})
        );
        assert!(caps(json!({"sampling": {}})).missing(&need_sampling).is_empty());
    }

    #[test]
    fn unknown_capability_keys_are_tolerated() {
        let c = caps(json!({"elicitation": {"form": {}, "future": {}}, "somethingNew": {}}));
        assert!(c.supports_form_elicitation());
    }
}
