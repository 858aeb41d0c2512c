//! Requests from the server to a legacy client (`elicitation/create`, `sampling/createMessage`,
//! `roots/list`) and the client's answers, matched by id.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::context::Notifier;
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::{ErrorObject, JSONRPC_VERSION, RequestId, encode_notification};
use crate::method::Method;
use crate::model::{CancelledNotificationParams, NotificationMeta};

/// What the client answered: its result, or its error.
type ClientAnswer = Result<Box<RawValue>, ErrorObject>;

/// The server's side of requests to one client.
#[derive(Debug, Default)]
pub(crate) struct Peer {
    next: AtomicI64,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<ClientAnswer>>>,
}

#[derive(Serialize)]
struct OutgoingRequest<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: &'a RawValue,
}

#[derive(Deserialize)]
struct IncomingResponse {
    id: RequestId,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

/// Takes the pending entry away when the request ends, however it ends; one that ends
/// unanswered (cancelled, or dropped with the request that needed it) is withdrawn from the
/// client with `notifications/cancelled`.
struct Outstanding<'a> {
    peer: &'a Peer,
    id: RequestId,
    to: &'a Notifier,
    settled: bool,
}

impl Drop for Outstanding<'_> {
    fn drop(&mut self) {
        self.peer.pending.lock().expect("pending map lock").remove(&self.id);
        if !self.settled {
            let params = CancelledNotificationParams {
                request_id: self.id.clone(),
                reason: Some("the request that needed it was cancelled".to_owned()),
                meta: NotificationMeta::default(),
            };
            self.to.try_send(encode_notification(Method::NotificationsCancelled, &params));
        }
    }
}

impl Peer {
    /// Sends `method` to the client through `to` and waits for its answer. A client that
    /// answers with an error fails the request with that error's message; when `cancellation`
    /// fires first, the client is told the request is no longer wanted.
    pub(crate) async fn request(
        &self,
        to: &Notifier,
        method: Method,
        params: &RawValue,
        cancellation: &CancellationToken,
    ) -> Result<Box<RawValue>, Error> {
        // Ids of our own, in a namespace apart from the client's: strings never collide with
        // the numbers most clients use, and the prefix says where they came from.
        let id = RequestId::from(format!("mcp-rounds-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1));
        let (sender, receiver) = oneshot::channel();
        self.pending.lock().expect("pending map lock").insert(id.clone(), sender);
        let mut pending = Outstanding { peer: self, id: id.clone(), to, settled: false };
        let message = OutgoingRequest { jsonrpc: JSONRPC_VERSION, id: &id, method: method.name(), params };
        let bytes = serde_json::to_vec(&message).expect("a request of raw JSON serializes");
        if !to.send(bytes).await {
            pending.settled = true;
            return Err(gone(method));
        }
        let answer = tokio::select! {
            biased;
            () = cancellation.cancelled() => return Err(Error::new(ErrorCode::InternalError, "Request cancelled")),
            answer = receiver => {
                pending.settled = true;
                answer.map_err(|_| gone(method))?
            }
        };
        answer.map_err(|error| {
            Error::new(
                ErrorCode::InternalError,
                format!("The client answered {method} with an error: {}", error.message),
            )
            .with_data(serde_json::json!({ "method": method.name(), "clientError": error }))
        })
    }

    /// Delivers a response the client sent. `false` when it answers nothing this server asked
    /// (unknown id, or not a response at all).
    pub(crate) fn answer(&self, bytes: &[u8]) -> bool {
        let Ok(response) = serde_json::from_slice::<IncomingResponse>(bytes) else { return false };
        let Some(waiting) = self.pending.lock().expect("pending map lock").remove(&response.id) else {
            return false;
        };
        let answer = match (response.result, response.error) {
            (_, Some(error)) => Err(error),
            (Some(result), None) => Ok(result),
            (None, None) => return false,
        };
        // The request may have ended meanwhile; then nobody waits for the answer.
        let _ = waiting.send(answer);
        true
    }

    /// Fails every request still waiting (the session ended).
    pub(crate) fn close(&self) {
        self.pending.lock().expect("pending map lock").clear();
    }
}

fn gone(method: Method) -> Error {
    Error::new(ErrorCode::InternalError, format!("The client went away before answering {method}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answers_reach_the_request_with_their_id_and_nothing_else_does() {
        let peer = std::sync::Arc::new(Peer::default());
        let (sender, mut outgoing) = tokio::sync::mpsc::channel(4);
        let notifier = Notifier::new(sender);
        let asking = {
            let peer = peer.clone();
            tokio::spawn(async move {
                let params = RawValue::from_string("{\"message\":\"ok?\"}".into()).unwrap();
                peer.request(&notifier, Method::ElicitationCreate, &params, &CancellationToken::new()).await
            })
        };
        let sent: serde_json::Value = serde_json::from_slice(&outgoing.recv().await.unwrap()).unwrap();
        assert_eq!(sent["method"], "elicitation/create");
        assert_eq!(sent["params"]["message"], "ok?");
        let id = sent["id"].clone();
        assert!(!peer.answer(br#"{"jsonrpc":"2.0","id":"someone-else","result":{}}"#));
        assert!(!peer.answer(b"not json"));
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept"}});
        assert!(peer.answer(&serde_json::to_vec(&reply).unwrap()));
        let result = asking.await.unwrap().unwrap();
        assert_eq!(result.get(), "{\"action\":\"accept\"}");
        assert!(!peer.answer(&serde_json::to_vec(&reply).unwrap()), "an id is answered once");
    }

    #[tokio::test]
    async fn a_client_error_and_a_cancellation_end_the_request_clearly() {
        let peer = std::sync::Arc::new(Peer::default());
        let (sender, mut outgoing) = tokio::sync::mpsc::channel(4);
        let notifier = Notifier::new(sender);
        let params = RawValue::from_string("{}".into()).unwrap();
        let asking = {
            let (peer, notifier, params) = (peer.clone(), notifier.clone(), params.clone());
            tokio::spawn(
                async move { peer.request(&notifier, Method::RootsList, &params, &CancellationToken::new()).await },
            )
        };
        let sent: serde_json::Value = serde_json::from_slice(&outgoing.recv().await.unwrap()).unwrap();
        let reply =
            serde_json::json!({"jsonrpc": "2.0", "id": sent["id"], "error": {"code": -32601, "message": "no roots"}});
        assert!(peer.answer(&serde_json::to_vec(&reply).unwrap()));
        let err = asking.await.unwrap().unwrap_err();
        assert!(err.message().contains("roots/list") && err.message().contains("no roots"), "{err:?}");

        let cancel = CancellationToken::new();
        let asking = {
            let (peer, cancel) = (peer.clone(), cancel.clone());
            tokio::spawn(async move { peer.request(&notifier, Method::RootsList, &params, &cancel).await })
        };
        let sent: serde_json::Value = serde_json::from_slice(&outgoing.recv().await.unwrap()).unwrap();
        cancel.cancel();
        assert!(asking.await.unwrap().is_err());
        let told: serde_json::Value = serde_json::from_slice(&outgoing.recv().await.unwrap()).unwrap();
        assert_eq!(told["method"], "notifications/cancelled");
        assert_eq!(told["params"]["requestId"], sent["id"]);
        assert!(peer.pending.lock().unwrap().is_empty());
    }
}
