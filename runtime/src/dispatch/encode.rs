//! The one stage that stamps and encodes: a typed answer becomes the bytes of one JSON-RPC
//! response, shaped for the revision of the client that asked.

use std::sync::Arc;

use serde::Serialize;

use super::response::{Body, Completed, McpResponse, Reply};
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::{encode_error, encode_result};
use crate::model::{Implementation, RequestId, ResultMeta};
use crate::registry::Registry;
use crate::shape::Legacy;

/// The revision a client speaks, as far as the shape of its answers goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2026-07-28: results carry `resultType` and cache hints, stamped with `serverInfo`.
    Current,
    /// A 2025-11-25 (or 2025-06-18) session: results without what 2026-07-28 added, a missing
    /// resource is -32002.
    Legacy,
}

/// One answer, encoded.
#[derive(Debug)]
pub struct Encoded {
    /// One JSON-RPC response object, without framing.
    pub bytes: Vec<u8>,
    /// The error code, if the answer is an error (transports map codes to statuses).
    pub error: Option<ErrorCode>,
    /// When a rate-limited caller may try again.
    pub retry_after: Option<std::time::Duration>,
    /// The scopes an insufficient-scope refusal needs, space-separated (HTTP's challenge).
    pub scope: Option<Box<str>>,
}

/// Stamps `response` (this revision only) and encodes it for `era`.
pub(crate) fn encode(registry: &Registry, response: McpResponse, era: Era) -> Encoded {
    let McpResponse { id, reply, .. } = response;
    let stamp = match era {
        Era::Current => registry.stamp.as_ref(),
        Era::Legacy => None,
    };
    let bytes = match reply {
        Reply::Error(error) => {
            let error = match era {
                Era::Current => error,
                Era::Legacy => legacy_error(error),
            };
            let bytes = encode_error(Some(&id), &error);
            let scopes = error.required_scopes();
            let scope = (!scopes.is_empty()).then(|| scopes.join(" ").into_boxed_str());
            return Encoded { bytes, error: Some(error.code()), retry_after: error.retry_after(), scope };
        }
        Reply::Complete(Completed(Body::Rendered(rendered))) => match era {
            Era::Current => encode_result(&id, &*rendered.current),
            Era::Legacy => encode_result(&id, &*rendered.legacy),
        },
        Reply::Complete(mut completed) => {
            if let Some(meta) = completed.meta_mut() {
                stamp_into(meta, stamp);
            }
            result(&id, &completed.0, era)
        }
        Reply::InputRequired(mut asked) => {
            stamp_into(&mut asked.meta, stamp);
            result(&id, &asked, era)
        }
        Reply::Task(mut created) => {
            stamp_into(&mut created.meta, stamp);
            result(&id, &created, era)
        }
    };
    Encoded { bytes, error: None, retry_after: None, scope: None }
}

fn result<T: Serialize>(id: &RequestId, value: &T, era: Era) -> Vec<u8> {
    match era {
        Era::Current => encode_result(id, value),
        Era::Legacy => encode_result(id, &Legacy(value)),
    }
}

fn stamp_into(meta: &mut ResultMeta, stamp: Option<&Arc<Implementation>>) {
    if meta.server_info.is_none() {
        meta.server_info = stamp.cloned();
    }
}

/// The 2025 code where the eras differ: a missing resource was -32002 before 2026-07-28.
fn legacy_error(error: Error) -> Error {
    if !error.is_missing_resource() {
        return error;
    }
    let missing = Error::new(ErrorCode::ResourceNotFound, error.message().to_owned());
    match error.data() {
        Some(data) => missing.with_data(data.clone()),
        None => missing,
    }
}

#[cfg(test)]
mod tests {
    use super::legacy_error;
    use crate::error::{Error, ErrorCode};

    #[test]
    fn a_missing_resource_gets_the_2025_code_and_other_errors_stay() {
        let mapped = legacy_error(Error::resource_not_found("test://x"));
        assert_eq!(mapped.code(), ErrorCode::ResourceNotFound);
        assert_eq!(mapped.data().unwrap()["uri"], "test://x");
        // An error of the same shape that is not about a missing resource stays as it is.
        let look_alike = Error::invalid_params("Resource not found").with_data(serde_json::json!({"uri": "x"}));
        assert_eq!(legacy_error(look_alike.clone()), look_alike);
    }
}
