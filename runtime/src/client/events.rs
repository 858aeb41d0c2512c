//! The client's event task: what the server sends besides answers. Notifications reach the
//! handler (progress, log messages) or the client's caches; a 2025-11-25 server's own requests
//! are answered by the handler, each as it comes, concurrently.

use std::sync::Arc;

use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::handler::DynHandler;
use super::message::Stamp;
use super::rounds::{Unanswerable, respond};
use super::transport::Event;
use super::transport::{ClientTransport, Outbound, OutboundKind};
use crate::error::Error;
use crate::jsonrpc::{self, RequestId};
use crate::method::Method;
use crate::model::{EmptyResult, InputRequest};

/// What the event task needs: where answers go, who answers, and what to forget when the
/// server's lists change.
pub(crate) struct Events {
    pub(crate) transport: Arc<dyn ClientTransport>,
    pub(crate) handler: Arc<dyn DynHandler>,
    pub(crate) stamp: Stamp,
    /// Called when the server says its tools changed.
    pub(crate) tools_changed: Box<dyn Fn() + Send + Sync>,
}

impl Events {
    /// Runs until the connection ends.
    pub(crate) fn spawn(self, mut events: mpsc::UnboundedReceiver<Event>) -> tokio::task::AbortHandle {
        let this = Arc::new(self);
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                match event {
                    Event::Notification { method, params } => this.notified(&method, params.as_deref()),
                    Event::Request { id, method, params } => {
                        let this = this.clone();
                        tokio::spawn(async move { this.answer(id, &method, params).await });
                    }
                    Event::Closed(error) => {
                        tracing::debug!(%error, "the connection to the server ended");
                        break;
                    }
                }
            }
        })
        .abort_handle()
    }

    fn notified(&self, method: &str, params: Option<&RawValue>) {
        let params = params.map_or("{}", RawValue::get);
        match Method::from_name(method) {
            Some(Method::NotificationsProgress) => match serde_json::from_str(params) {
                Ok(progress) => self.handler.progress(progress),
                Err(error) => tracing::debug!(%error, "a progress notification that does not read"),
            },
            Some(Method::NotificationsMessage) => match serde_json::from_str(params) {
                Ok(message) => self.handler.log(message),
                Err(error) => tracing::debug!(%error, "a log message that does not read"),
            },
            Some(Method::NotificationsToolsListChanged) => (self.tools_changed)(),
            _ => tracing::trace!(method, "a notification the client does not follow"),
        }
    }

    /// Answers a 2025-11-25 server's request.
    async fn answer(&self, id: RequestId, method: &str, params: Option<Box<RawValue>>) {
        let body = match self.respond(method, params).await {
            Ok(body) => jsonrpc::encode_result(&id, &*body),
            Err(error) => jsonrpc::encode_error(Some(&id), &error),
        };
        let mut outbound = Outbound::new(body, OutboundKind::Response);
        outbound.headers = self.stamp.headers(method, None, Vec::new());
        if let Err(error) = self.transport.send(outbound).await {
            tracing::debug!(%error, %id, method, "cannot answer the server's request");
        }
    }

    async fn respond(&self, method: &str, params: Option<Box<RawValue>>) -> Result<Box<RawValue>, Error> {
        match Method::from_name(method) {
            Some(Method::Ping) => to_raw(&EmptyResult::default()),
            Some(Method::ElicitationCreate | Method::SamplingCreateMessage | Method::RootsList) => {
                let params = params.as_deref().map_or("{}", RawValue::get);
                let embedded = format!(r#"{{"method":{},"params":{params}}}"#, serde_json::Value::from(method));
                let request: InputRequest = serde_json::from_str(&embedded)
                    .map_err(|e| Error::invalid_params(format!("the {method} params do not read: {e}")))?;
                match respond(&*self.handler, request).await {
                    Ok(response) => to_raw(&response),
                    Err(Unanswerable::Handler(error)) => Err(error),
                    Err(Unanswerable::Invalid(violation)) => Err(Error::internal_from(&violation)),
                }
            }
            _ => Err(Error::method_not_found(method)),
        }
    }
}

fn to_raw<T: serde::Serialize>(value: &T) -> Result<Box<RawValue>, Error> {
    serde_json::value::to_raw_value(value).map_err(|e| Error::internal_from(&e))
}
