//! What a `#[resource]` function may return, and how it becomes a `resources/read` result.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::error::Error;
use crate::model::{
    BlobResourceContents, CacheHints, Outcome, ReadResourceResult, ResourceContents, TextResourceContents,
};

/// How a value returned by a `#[resource]` function becomes the read result.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[resource]",
    label = "not resource contents",
    note = "return String (text), Vec<u8> (binary), ResourceContents, Vec<ResourceContents> or ReadResourceResult; \
            wrap in Option<_> (None: the resource does not exist) or Result<_, mcp_rounds::Error>"
)]
pub trait IntoReadResult {
    /// The result for `uri`, with the resource's MIME type and cache hints.
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
        cache: CacheHints,
    ) -> Result<Outcome<ReadResourceResult>, Error>;
}

fn complete(contents: Vec<ResourceContents>, cache: CacheHints) -> Result<Outcome<ReadResourceResult>, Error> {
    Ok(Outcome::Complete(ReadResourceResult {
        contents,
        ttl_ms: cache.ttl_ms,
        cache_scope: cache.cache_scope,
        ..Default::default()
    }))
}

impl IntoReadResult for String {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
        cache: CacheHints,
    ) -> Result<Outcome<ReadResourceResult>, Error> {
        let text = TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(mime.unwrap_or("text/plain").to_owned()),
            text: self,
            meta: None,
        };
        complete(vec![ResourceContents::Text(text)], cache)
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
        cache: CacheHints,
    ) -> Result<Outcome<ReadResourceResult>, Error> {
        self.to_owned().into_read_result(uri, mime, cache)
    }
}

impl IntoReadResult for Vec<u8> {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
        cache: CacheHints,
    ) -> Result<Outcome<ReadResourceResult>, Error> {
        let blob = BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(mime.unwrap_or("application/octet-stream").to_owned()),
            blob: STANDARD.encode(self),
            meta: None,
        };
        complete(vec![ResourceContents::Blob(blob)], cache)
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(
        self,
        _: &str,
        _: Option<&str>,
        cache: CacheHints,
    ) -> Result<Outcome<ReadResourceResult>, Error> {
        complete(vec![self], cache)
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(
        self,
        uri: &str,
        _: Option<&str>,
        cache: CacheHints,
    ) -> Result<Outcome<ReadResourceResult>, Error> {
        if self.is_empty() {
            // An empty success is never an answer: the resource is not there.
            return Err(Error::resource_not_found(uri));
        }
        complete(self, cache)
    }
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, uri: &str, _: Option<&str>, _: CacheHints) -> Result<Outcome<ReadResourceResult>, Error> {
        if self.contents.is_empty() {
            return Err(Error::resource_not_found(uri));
        }
        Ok(Outcome::Complete(self))
    }
}

impl IntoReadResult for Outcome<ReadResourceResult> {
    fn into_read_result(self, _: &str, _: Option<&str>, _: CacheHints) -> Result<Outcome<ReadResourceResult>, Error> {
        Ok(self)
    }
}

impl<T: IntoReadResult> IntoReadResult for Option<T> {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
        cache: CacheHints,
    ) -> Result<Outcome<ReadResourceResult>, Error> {
        match self {
            Some(value) => value.into_read_result(uri, mime, cache),
            None => Err(Error::resource_not_found(uri)),
        }
    }
}

impl<T: IntoReadResult, E: Into<Error>> IntoReadResult for Result<T, E> {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
        cache: CacheHints,
    ) -> Result<Outcome<ReadResourceResult>, Error> {
        self.map_err(Into::into)?.into_read_result(uri, mime, cache)
    }
}
