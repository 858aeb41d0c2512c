//! Content blocks: what tool results, prompt messages and sampling messages are made of.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::{JsonObject, Resource, ResourceContents};

/// A piece of content in a tool result or prompt message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// `{"type": "text"}`.
    Text(TextContent),
    /// `{"type": "image"}`.
    Image(ImageContent),
    /// `{"type": "audio"}`.
    Audio(AudioContent),
    /// `{"type": "resource_link"}`: a pointer the client may read.
    ResourceLink(Resource),
    /// `{"type": "resource"}`: resource contents inline.
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image from its bytes, e.g. `ContentBlock::image(&png, "image/png")`.
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent {
            data: STANDARD.encode(bytes),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// Audio from its bytes, e.g. `ContentBlock::audio(&wav, "audio/wav")`.
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent {
            data: STANDARD.encode(bytes),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// A text resource inline.
    pub fn embedded_text(uri: impl Into<String>, mime_type: impl Into<String>, text: impl Into<String>) -> Self {
        ContentBlock::Resource(EmbeddedResource {
            resource: ResourceContents::Text(super::TextResourceContents {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                text: text.into(),
                meta: None,
            }),
            annotations: None,
            meta: None,
        })
    }

    /// A binary resource inline, from its bytes.
    pub fn embedded_blob(uri: impl Into<String>, mime_type: impl Into<String>, bytes: &[u8]) -> Self {
        ContentBlock::Resource(EmbeddedResource {
            resource: ResourceContents::Blob(super::BlobResourceContents {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                blob: STANDARD.encode(bytes),
                meta: None,
            }),
            annotations: None,
            meta: None,
        })
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// Text content.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl TextContent {
    /// Text without annotations.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent { text: text.into(), annotations: None, meta: None }
    }
}

/// Base64-encoded image data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    /// Base64 data.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Base64-encoded audio data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AudioContent {
    /// Base64 data.
    pub data: String,
    /// MIME type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Resource contents embedded in a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Who content is for and how much it matters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Intended readers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// 0 (least) to 1 (most important).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp of the last change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The speaker of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}
