//! JSON-RPC 2.0 framing: incoming message classification and outgoing envelopes.
//!
//! Decoding is a single pass over the message that borrows everything it can: only the
//! method name and the raw `params` bytes are copied out, so a request can be handed to a
//! task while the transport keeps reading. Parameters stay raw until the router knows what
//! shape to expect.

use serde::de::{Deserializer, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::error::Error;
pub use crate::model::RequestId;

/// The JSON-RPC version every MCP message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// A request the router can dispatch: its id, method and still-undecoded parameters.
#[derive(Debug)]
pub struct Request {
    /// The id every response to this request echoes.
    pub id: RequestId,
    /// The method name.
    pub method: Box<str>,
    /// The raw `params` member, if present.
    pub params: Option<Box<RawValue>>,
}

/// A notification: no id, never answered. Its params are as they came (not necessarily an
/// object): whoever acts on it reads them.
#[derive(Debug)]
pub struct Notification {
    /// The method name.
    pub method: Box<str>,
    /// The raw `params` member, if present.
    pub params: Option<Box<RawValue>>,
}

/// What one incoming message turned out to be.
#[derive(Debug)]
pub enum Incoming {
    /// A request: answer it exactly once.
    Request(Request),
    /// A notification: act on it, never answer.
    Notification(Notification),
    /// A response from the peer. Clients of this revision never send one; it is dropped
    /// rather than answered, so two peers can never bounce errors at each other.
    Response,
    /// A message that cannot be processed; answer with this error (and this id, if known).
    Invalid {
        /// The id, when it could be read.
        id: Option<RequestId>,
        /// The error to answer with.
        error: Error,
    },
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a RawValue>,
    // `"id": null` must stay distinguishable from a missing id (a notification).
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    // `"params": null` is not an omitted params: it is one of the wrong type.
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// Classifies one message (one stdio line, one HTTP body).
///
/// Never fails: every malformed input becomes [`Incoming::Invalid`] with the code JSON-RPC
/// prescribes (-32700 for bytes that are not JSON, -32600 for JSON that is not a request,
/// including batches, which MCP does not support).
pub fn decode(bytes: &[u8]) -> Incoming {
    // JSON text is UTF-8 throughout: the members skipped unread (an unknown one, say) are
    // checked too, once, and the parser then need not check each string it reads.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Incoming::Invalid { id: None, error: Error::parse_error() };
    };
    // A derived struct also reads a JSON array, member by member: `["2.0", 1, "tools/call"]`
    // must not be taken for a request.
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => {}
        Some(b'[') if serde_json::from_slice::<IgnoredAny>(bytes).is_ok() => {
            return Incoming::Invalid { id: None, error: not_an_object(bytes) };
        }
        _ if serde_json::from_slice::<IgnoredAny>(bytes).is_err() => {
            return Incoming::Invalid { id: None, error: Error::parse_error() };
        }
        _ => return Incoming::Invalid { id: None, error: not_an_object(bytes) },
    }
    let envelope: Envelope<'_> = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        Err(err) => return Incoming::Invalid { id: None, error: classify_decode_error(&err, bytes) },
    };

    let id = match envelope.id {
        None => None,
        Some(raw) => match serde_json::from_str::<RequestId>(raw.get()) {
            // An integer beyond 64 bits would come back as a float the client cannot match.
            Ok(RequestId::Number(n)) if n.is_f64() && !raw.get().contains(['.', 'e', 'E']) => {
                return Incoming::Invalid {
                    id: None,
                    error: Error::invalid_request(
                        "The request id is an integer too large to echo exactly: use one within 64 bits, or a string",
                    ),
                };
            }
            Ok(id) => Some(id),
            Err(_) => {
                return Incoming::Invalid {
                    id: None,
                    error: Error::invalid_request("The request id must be a string or a number"),
                };
            }
        },
    };

    if envelope.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return Incoming::Invalid { id, error: Error::invalid_request("The jsonrpc member must be exactly \"2.0\"") };
    }

    let Some(method) = envelope.method else {
        if envelope.result.is_some() || envelope.error.is_some() {
            return Incoming::Response;
        }
        return Incoming::Invalid { id, error: Error::invalid_request("The message has no method") };
    };
    let method: Box<str> = match serde_json::from_str::<String>(method.get()) {
        Ok(method) => method.into_boxed_str(),
        Err(_) => {
            return Incoming::Invalid { id, error: Error::invalid_request("The method member must be a string") };
        }
    };
    let params = envelope.params.map(RawValue::to_owned);
    let Some(id) = id else {
        // A notification is never answered, whatever its params: whoever acts on it reads
        // them, and ignores what does not read.
        return Incoming::Notification(Notification { method, params });
    };
    // MCP's params are always an object (JSON-RPC's positional array is not one of its forms).
    if params.as_ref().is_some_and(|params| !params.get().starts_with('{')) {
        return Incoming::Invalid {
            id: Some(id),
            error: Error::invalid_params("Invalid params: params must be a JSON object"),
        };
    }
    Incoming::Request(Request { id, method, params })
}

fn classify_decode_error(err: &serde_json::Error, bytes: &[u8]) -> Error {
    use serde_json::error::Category;
    match err.classify() {
        Category::Syntax | Category::Eof | Category::Io => Error::parse_error(),
        // A repeated member stops the reading before a syntax error further on would: what is
        // not JSON at all is a parse error whichever problem comes first.
        Category::Data if serde_json::from_slice::<IgnoredAny>(bytes).is_err() => Error::parse_error(),
        // An object whose members repeat (serde reports a duplicate field), or one whose
        // members have the wrong types.
        Category::Data => Error::invalid_request("The message is not a valid JSON-RPC request object"),
    }
}

/// Well-formed JSON that is not an object.
fn not_an_object(bytes: &[u8]) -> Error {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        Error::invalid_request("Batches are not supported: send one JSON-RPC message at a time")
    } else {
        Error::invalid_request("A JSON-RPC message must be a JSON object")
    }
}

#[derive(Serialize)]
struct ResultEnvelope<'a, T: ?Sized> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a T,
}

#[derive(Serialize)]
struct ErrorEnvelope<'a> {
    jsonrpc: &'static str,
    // JSON-RPC 2.0 requires the member; it is null when the id could not be read.
    id: Option<&'a RequestId>,
    error: &'a Error,
}

#[derive(Serialize)]
struct NotificationEnvelope<'a, T: ?Sized> {
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a T,
}

/// Room for most answers at once (a few hundred bytes): serde_json starts at 128 bytes, and a
/// buffer grown from there is copied on the way.
const ANSWER_CAPACITY: usize = 512;

fn to_vec<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(ANSWER_CAPACITY);
    serde_json::to_writer(&mut bytes, value)?;
    Ok(bytes)
}

/// Encodes a successful response. The caller frames it (stdio appends a newline).
pub fn encode_result<T: Serialize + ?Sized>(id: &RequestId, result: &T) -> Vec<u8> {
    let envelope = ResultEnvelope { jsonrpc: JSONRPC_VERSION, id, result };
    match to_vec(&envelope) {
        Ok(bytes) => bytes,
        Err(err) => encode_error(Some(id), &Error::internal_from(&err)),
    }
}

/// Encodes an error response; `id` is `None` only when the request's id could not be read.
pub fn encode_error(id: Option<&RequestId>, error: &Error) -> Vec<u8> {
    let envelope = ErrorEnvelope { jsonrpc: JSONRPC_VERSION, id, error };
    to_vec(&envelope).unwrap_or_else(|_| {
        // Only reachable if `error.data` holds a non-string map key; drop the data.
        let bare = Error::new(error.code(), error.message().to_owned());
        let envelope = ErrorEnvelope { jsonrpc: JSONRPC_VERSION, id, error: &bare };
        to_vec(&envelope).expect("an error without data always serializes")
    })
}

/// Encodes a notification of `method` (a [`Method`](crate::method::Method), or a name).
pub fn encode_notification<T: Serialize + ?Sized>(method: impl AsRef<str>, params: &T) -> Vec<u8> {
    let envelope = NotificationEnvelope { jsonrpc: JSONRPC_VERSION, method: method.as_ref(), params };
    to_vec(&envelope).expect("notification params serialize to JSON")
}

crate::model::literal!(
    /// `"2.0"`, the `jsonrpc` member of every message.
    JsonRpcVersion = "2.0"
);

/// A typed JSON-RPC request, for clients and tests that build or read whole messages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest<P> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id.
    pub id: RequestId,
    /// The method.
    pub method: String,
    /// The parameters.
    pub params: P,
}

/// A typed JSON-RPC notification.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcNotification<P> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method.
    pub method: String,
    /// The parameters.
    pub params: P,
}

/// A JSON-RPC error as it travels, with any integer code (peers may send codes this
/// revision does not define, such as a legacy server's -32002).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The code.
    pub code: i64,
    /// One-sentence message.
    pub message: String,
    /// Structured details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl From<&Error> for ErrorObject {
    fn from(error: &Error) -> Self {
        ErrorObject {
            code: i64::from(error.code().code()),
            message: error.message().to_owned(),
            data: error.data().cloned(),
        }
    }
}

/// A typed JSON-RPC response: a result or an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonRpcResponse<R> {
    /// A result.
    Result {
        /// Always `"2.0"`.
        jsonrpc: JsonRpcVersion,
        /// The request's id.
        id: RequestId,
        /// The result.
        result: R,
    },
    /// An error.
    Error {
        /// Always `"2.0"`.
        jsonrpc: JsonRpcVersion,
        /// The request's id; null when it could not be read.
        id: Option<RequestId>,
        /// The error.
        error: ErrorObject,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn invalid(bytes: &str) -> (Option<RequestId>, Error) {
        match decode(bytes.as_bytes()) {
            Incoming::Invalid { id, error } => (id, error),
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn request_keeps_id_method_and_raw_params() {
        let msg = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{}}}"#;
        let Incoming::Request(req) = decode(msg.as_bytes()) else { panic!() };
        assert_eq!(req.id, RequestId::number(7));
        assert_eq!(&*req.method, "tools/list");
        assert_eq!(req.params.unwrap().get(), r#"{"_meta":{}}"#);
    }

    #[test]
    fn message_without_id_is_a_notification() {
        let msg = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
        assert!(matches!(decode(msg.as_bytes()), Incoming::Notification(n) if &*n.method == "notifications/cancelled"));
    }

    #[test]
    fn ids_are_echoed_exactly() {
        for raw in ["1", "-3", "18446744073709551615", "1.5", "\"abc\"", "\"\""] {
            let msg = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"x"}}"#);
            let Incoming::Request(req) = decode(msg.as_bytes()) else { panic!("{raw}") };
            assert_eq!(serde_json::to_string(&req.id).unwrap(), raw);
        }
        // A float comes back as the same number (its spelling may differ: `1.5e+303`). Found by
        // fuzzing: 1.5e303 came back as 1.5000000000000005e303 before floats were read correctly
        // rounded.
        for raw in ["1.5e303", "2.2250738585072014e-308", "0.30000000000000004"] {
            let msg = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"x"}}"#);
            let Incoming::Request(req) = decode(msg.as_bytes()) else { panic!("{raw}") };
            let echoed: f64 = serde_json::to_string(&req.id).unwrap().parse().unwrap();
            assert_eq!(echoed.to_bits(), raw.parse::<f64>().unwrap().to_bits(), "{raw}");
        }
    }

    /// An id is echoed exactly or refused: never turned into another number.
    #[test]
    fn an_integer_id_beyond_64_bits_is_refused_rather_than_echoed_as_a_float() {
        for raw in ["123456789012345678901234567890", "-9223372036854775809", "18446744073709551616"] {
            let (id, error) = invalid(&format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#));
            assert_eq!((id, error.code()), (None, ErrorCode::InvalidRequest), "{raw}");
        }
        for raw in ["18446744073709551615", "-9223372036854775808", "1.5", "1e3"] {
            let msg = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#);
            assert!(matches!(decode(msg.as_bytes()), Incoming::Request(_)), "{raw}");
        }
    }

    /// Found by fuzzing: invalid UTF-8 in a member the envelope does not read used to pass.
    #[test]
    fn invalid_utf8_anywhere_is_a_parse_error() {
        let mut message = br#"{"jsonrpc":"2.0","id":1,"method":"ping","unknown":{"k":"#.to_vec();
        message.extend_from_slice(b"\"\xa1\xff\"}}");
        assert!(
            matches!(decode(&message), Incoming::Invalid { id: None, error } if error.code() == ErrorCode::ParseError)
        );
    }

    /// Found by fuzzing: a repeated `id` used to make broken JSON -32600.
    #[test]
    fn broken_json_is_a_parse_error_even_when_a_member_repeats_before_the_break() {
        let broken = r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"pi{"x"}"#;
        assert_eq!(invalid(broken).1.code(), ErrorCode::ParseError);
        let repeated = r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#;
        assert_eq!(invalid(repeated).1.code(), ErrorCode::InvalidRequest);
    }

    #[test]
    fn malformed_input_is_classified() {
        assert_eq!(invalid("{not json").1.code(), ErrorCode::ParseError);
        assert_eq!(invalid("").1.code(), ErrorCode::ParseError);
        assert_eq!(invalid(r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#).1.code(), ErrorCode::InvalidRequest);
        assert_eq!(invalid("42").1.code(), ErrorCode::InvalidRequest);
        let (id, err) = invalid(r#"{"jsonrpc":"1.0","id":"a","method":"x"}"#);
        assert_eq!((id, err.code()), (Some(RequestId::from("a")), ErrorCode::InvalidRequest));
        let (id, err) = invalid(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#);
        assert_eq!((id, err.code()), (None, ErrorCode::InvalidRequest));
        let (id, err) = invalid(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#);
        assert_eq!((id, err.code()), (None, ErrorCode::InvalidRequest));
        let (id, err) = invalid(r#"{"jsonrpc":"2.0","id":4,"method":5}"#);
        assert_eq!((id, err.code()), (Some(RequestId::number(4)), ErrorCode::InvalidRequest));
        let (id, err) = invalid(r#"{"jsonrpc":"2.0","id":4}"#);
        assert_eq!((id, err.code()), (Some(RequestId::number(4)), ErrorCode::InvalidRequest));
    }

    #[test]
    fn only_an_object_is_a_message_and_only_an_object_is_params() {
        // A derived struct would read these member by member, as if they were requests.
        for positional in [r#"["2.0", 78, "tools/call", {"name": "x"}]"#, r#"["2.0", 1, "ping"]"#, "[]"] {
            let (id, error) = invalid(positional);
            assert_eq!((id, error.code()), (None, ErrorCode::InvalidRequest), "{positional}");
            assert!(error.message().starts_with("Batches are not supported"), "{positional}: {error:?}");
        }
        for scalar in ["42", "\"tools/call\"", "null", "true"] {
            let (id, error) = invalid(scalar);
            assert_eq!((id, error.message()), (None, "A JSON-RPC message must be a JSON object"), "{scalar}");
        }
        for params in ["[1, 2]", "\"x\"", "null", "3"] {
            let message = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{params}}}"#);
            let (id, error) = invalid(&message);
            assert_eq!((id, error.code()), (Some(RequestId::number(9)), ErrorCode::InvalidParams), "{params}");
        }
    }

    /// A notification is never answered: params that are not an object leave it a
    /// notification, for whoever acts on it to ignore.
    #[test]
    fn a_notification_stays_one_whatever_its_params() {
        for params in ["[1]", "\"garbage\"", "7", "null", "{}"] {
            let message = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{params}}}"#);
            let Incoming::Notification(notification) = decode(message.as_bytes()) else { panic!("{params}") };
            assert_eq!(notification.params.unwrap().get(), params);
        }
        // What is not a message at all is still answered, with no id.
        assert_eq!(invalid(r#"{"jsonrpc":"2.0","method":"x""#), (None, Error::parse_error()));
        assert_eq!(invalid("[7]").1.code(), ErrorCode::InvalidRequest);
    }

    #[test]
    fn responses_from_the_peer_are_dropped() {
        assert!(matches!(decode(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Incoming::Response));
    }

    #[test]
    fn error_without_id_has_null_id() {
        let bytes = encode_error(None, &Error::parse_error());
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["id"], serde_json::Value::Null);
        assert_eq!(v["error"]["code"], -32700);
    }
}
