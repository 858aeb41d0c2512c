//! MCP Apps (the `io.modelcontextprotocol/ui` extension, specification 2026-01-26): a tool's
//! link to the view a host renders for it, and what a view's resource declares about itself.

use serde::{Deserialize, Serialize};

use super::{ClientCapabilities, JsonObject};

/// The extension's identifier, the key of its settings in `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view's HTML document.
pub const UI_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme every view's URI has.
pub const UI_SCHEME: &str = "ui://";

/// The flat `_meta` key older hosts read a tool's view from (deprecated by the extension,
/// still written beside `_meta.ui.resourceUri`).
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// The extension's settings in `capabilities.extensions`, as a client that renders views and
/// a server that has them both declare it: the views' MIME type.
pub(crate) fn ui_settings() -> JsonObject {
    [("mimeTypes".to_owned(), serde_json::json!([UI_MIME_TYPE]))].into_iter().collect()
}

/// A tool's `_meta.ui`: its view, and who may call it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUi {
    /// The view's `ui://` URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool (default: both the model and the view).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

/// Who may call a tool that has a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model: the host lists the tool to it.
    Model,
    /// The view, through the host.
    App,
}

/// A view's `_meta.ui`, on its `resources/read` content (and its `resources/list` entry).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UiResourceMeta {
    /// The origins the view reaches; without it, none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// The browser permissions the view asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<UiPermissions>,
    /// A dedicated origin for the view, in the host's own format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border and background around the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// The origins a view declares, per kind of request (each a `grammar::csp` source).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UiCsp {
    /// `connect-src`: fetch, XHR, WebSocket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// Scripts, styles, images, fonts and media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// `frame-src`: nested frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// `base-uri`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
}

impl UiCsp {
    /// Adds origins to `connectDomains`.
    ///
    /// ```
    /// use mcp_rounds::model::UiCsp;
    ///
    /// let csp = UiCsp::default().connect_domains(["https://api.example.com"]).resource_domains(["https://cdn.example.com"]);
    /// assert_eq!(csp.invalid(), None);
    /// ```
    pub fn connect_domains<S: Into<String>>(mut self, sources: impl IntoIterator<Item = S>) -> Self {
        self.connect_domains.get_or_insert_default().extend(sources.into_iter().map(Into::into));
        self
    }

    /// Adds origins to `resourceDomains`.
    pub fn resource_domains<S: Into<String>>(mut self, sources: impl IntoIterator<Item = S>) -> Self {
        self.resource_domains.get_or_insert_default().extend(sources.into_iter().map(Into::into));
        self
    }

    /// Adds origins to `frameDomains`.
    pub fn frame_domains<S: Into<String>>(mut self, sources: impl IntoIterator<Item = S>) -> Self {
        self.frame_domains.get_or_insert_default().extend(sources.into_iter().map(Into::into));
        self
    }

    /// Adds origins to `baseUriDomains`.
    pub fn base_uri_domains<S: Into<String>>(mut self, sources: impl IntoIterator<Item = S>) -> Self {
        self.base_uri_domains.get_or_insert_default().extend(sources.into_iter().map(Into::into));
        self
    }

    /// Every declared source, with the field it is in (for checking them all).
    pub fn sources(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let fields = [
            ("connectDomains", &self.connect_domains),
            ("resourceDomains", &self.resource_domains),
            ("frameDomains", &self.frame_domains),
            ("baseUriDomains", &self.base_uri_domains),
        ];
        fields.into_iter().flat_map(|(name, list)| list.iter().flatten().map(move |s| (name, s.as_str())))
    }

    /// The first source that is not an origin the extension allows, with its field.
    pub fn invalid(&self) -> Option<(&'static str, &str)> {
        self.sources().find(|(_, source)| !mcp_rounds_grammar::csp::is_csp_source(source))
    }
}

/// Browser permissions a view asks for (each an empty object when asked).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UiPermissions {
    /// The camera.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<JsonObject>,
    /// The microphone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<JsonObject>,
    /// The location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<JsonObject>,
    /// Writing to the clipboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<JsonObject>,
}

impl super::Tool {
    /// The tool's `_meta.ui`: its view and who may call it, when it declares them (and they
    /// have the extension's shape).
    pub fn ui(&self) -> Option<ToolUi> {
        serde_json::from_value(self.meta.as_ref()?.get("ui")?.clone()).ok()
    }
}

impl ClientCapabilities {
    /// These capabilities, declaring that the client renders MCP Apps views (for a host built
    /// on the client).
    ///
    /// ```
    /// use mcp_rounds::model::ClientCapabilities;
    ///
    /// assert!(ClientCapabilities::default().with_apps().renders_apps());
    /// ```
    pub fn with_apps(mut self) -> Self {
        self.extensions.get_or_insert_default().insert(UI_EXTENSION.to_owned(), ui_settings());
        self
    }

    /// Whether the client renders MCP Apps views: it declares the extension with the views'
    /// MIME type among its `mimeTypes`.
    ///
    /// ```
    /// use mcp_rounds::model::ClientCapabilities;
    ///
    /// let renders: ClientCapabilities = serde_json::from_value(serde_json::json!({"extensions": {
    ///     "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})).unwrap();
    /// assert!(renders.renders_apps());
    /// assert!(!ClientCapabilities::default().renders_apps());
    /// ```
    pub fn renders_apps(&self) -> bool {
        let settings = self.extensions.as_ref().and_then(|e| e.get(UI_EXTENSION));
        let types = settings.and_then(|s| s.get("mimeTypes")).and_then(|t| t.as_array());
        types.into_iter().flatten().any(|t| t.as_str() == Some(UI_MIME_TYPE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_wire_shapes_are_the_extensions() {
        let tool = ToolUi { resource_uri: Some("ui://notes/board".into()), visibility: Some(vec![Visibility::App]) };
        assert_eq!(
            serde_json::to_value(&tool).unwrap(),
            json!({"resourceUri": "ui://notes/board", "visibility": ["app"]})
        );
        let csp = UiCsp {
            connect_domains: Some(vec!["https://api.example.com".into()]),
            base_uri_domains: Some(vec!["https://x.example.com/path".into()]),
            ..Default::default()
        };
        let permissions = UiPermissions { clipboard_write: Some(JsonObject::new()), ..Default::default() };
        let meta = UiResourceMeta {
            csp: Some(csp.clone()),
            permissions: Some(permissions),
            domain: None,
            prefers_border: Some(true),
        };
        assert_eq!(
            serde_json::to_value(&meta).unwrap(),
            json!({"csp": {"connectDomains": ["https://api.example.com"], "baseUriDomains": ["https://x.example.com/path"]},
                   "permissions": {"clipboardWrite": {}}, "prefersBorder": true})
        );
        assert_eq!(csp.invalid(), Some(("baseUriDomains", "https://x.example.com/path")));
    }

    #[test]
    fn a_client_renders_apps_only_with_the_views_mime_type() {
        let caps = |settings: serde_json::Value| -> ClientCapabilities {
            serde_json::from_value(json!({"extensions": {UI_EXTENSION: settings}})).unwrap()
        };
        assert!(caps(json!({"mimeTypes": [UI_MIME_TYPE]})).renders_apps());
        assert!(!caps(json!({})).renders_apps());
        assert!(!caps(json!({"mimeTypes": ["text/html"]})).renders_apps());
    }
}
