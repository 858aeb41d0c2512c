//! Reading a view: its document, with its MIME type and `_meta.ui` on every content item.

use std::sync::Arc;

use super::RenderView;
use crate::error::Error;
use crate::future::BoxFuture;
use crate::model::{
    CacheHints, JsonObject, Outcome, ReadResourceResult, ResourceContents, TextResourceContents, UI_MIME_TYPE,
    UiResourceMeta,
};
use crate::resource::{ResourceHandler, ResourceRead};

/// How long a host may keep the document read under its current content hash: that URI never
/// names other content.
const HASHED_DOCUMENT_CACHE: CacheHints = CacheHints::public(24 * 60 * 60 * 1000);

/// A view's declarations, stamped on each content item of a read, and the markup check a
/// document made per read must pass.
pub(super) struct Declarations {
    meta: JsonObject,
    declared: UiResourceMeta,
}

impl Declarations {
    pub(super) fn new(meta: &JsonObject, declared: &UiResourceMeta) -> Self {
        Declarations { meta: meta.clone(), declared: declared.clone() }
    }

    /// The read result with each text item typed and stamped, once its document passed the
    /// checks; a document that fails them is a server error, never sent to a host.
    fn apply(&self, outcome: Outcome<ReadResourceResult>, uri: &str) -> Result<Outcome<ReadResourceResult>, Error> {
        let Outcome::Complete(mut result) = outcome else { return Ok(outcome) };
        for contents in &mut result.contents {
            let ResourceContents::Text(text) = contents else {
                tracing::error!(view = uri, "a view's contents must be its HTML text, not a blob");
                return Err(Error::internal());
            };
            if let Some(problem) = super::check::document_problem(&text.text, &self.declared) {
                tracing::error!(view = uri, problem, "the view's rendered HTML was not served");
                return Err(Error::internal());
            }
            text.mime_type = Some(UI_MIME_TYPE.to_owned());
            text.meta.get_or_insert_default().extend(self.meta.clone());
        }
        Ok(Outcome::Complete(result))
    }
}

/// A fixed document.
pub(super) struct FixedDocument {
    pub(super) html: Arc<str>,
    pub(super) meta: JsonObject,
    /// The URI it is listed under, whose reads may be cached for long.
    pub(super) current: String,
}

impl ResourceHandler for FixedDocument {
    fn read(&self, read: ResourceRead) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, Error>> {
        let cache = if crate::uri::normalize(&read.uri).as_deref() == Some(self.current.as_str()) {
            HASHED_DOCUMENT_CACHE
        } else {
            CacheHints::public(0)
        };
        let contents = TextResourceContents {
            uri: read.uri,
            mime_type: Some(UI_MIME_TYPE.to_owned()),
            text: self.html.to_string(),
            meta: Some(self.meta.clone()),
        };
        let result = ReadResourceResult {
            contents: vec![ResourceContents::Text(contents)],
            ttl_ms: cache.ttl_ms,
            cache_scope: cache.cache_scope,
            ..Default::default()
        };
        Box::pin(std::future::ready(Ok(Outcome::Complete(result))))
    }
}

/// A document a function makes per read, as plain text contents (which [`Stamped`] types
/// and checks).
pub(super) struct RenderedHtml(pub(super) Arc<dyn RenderView>);

impl ResourceHandler for RenderedHtml {
    fn read(&self, read: ResourceRead) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, Error>> {
        Box::pin(async move {
            let text = self.0.render(read.context).await?;
            let contents = TextResourceContents { uri: read.uri, text, ..Default::default() };
            Ok(Outcome::Complete(ReadResourceResult {
                contents: vec![ResourceContents::Text(contents)],
                ..Default::default()
            }))
        })
    }
}

/// A view made per read, by a function or a `#[view]` function's resource: each read's
/// contents checked and stamped with the view's declarations.
pub(super) struct Stamped {
    pub(super) inner: Arc<dyn ResourceHandler>,
    pub(super) view: Declarations,
}

impl ResourceHandler for Stamped {
    fn read(&self, read: ResourceRead) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, Error>> {
        let uri = read.uri.clone();
        Box::pin(async move {
            let outcome = self.inner.read(read).await?;
            self.view.apply(outcome, &uri)
        })
    }
}
