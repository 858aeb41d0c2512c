//! The workload's MCP client: raw JSON-RPC over Streamable HTTP through the load balancer, so
//! that every answer is seen as the wire carried it (status, `X-Served-By`, JSON or an event
//! stream), and a connection that dies before the answer is told apart from an answer.

use std::time::Duration;

use serde_json::{Value, json};

use super::haproxy::SERVED_BY;

/// What came back for one request.
#[derive(Clone, Debug)]
pub enum Answer {
    /// An HTTP response carrying the JSON-RPC answer (or none, for a proxy's own error page).
    Reply {
        /// The HTTP status.
        status: u16,
        /// The instance that answered, as the load balancer named it.
        served_by: Option<String>,
        /// The JSON-RPC response, when the body held one.
        message: Option<Value>,
    },
    /// No answer: the connection failed or died first. The request may or may not have run.
    Lost(String),
}

impl Answer {
    /// The instance that answered.
    pub fn served_by(&self) -> Option<&str> {
        match self {
            Answer::Reply { served_by, .. } => served_by.as_deref(),
            Answer::Lost(_) => None,
        }
    }

    /// The JSON-RPC result, when the request succeeded.
    pub fn result(&self) -> Option<&Value> {
        match self {
            Answer::Reply { status: 200, message: Some(message), .. } => message.get("result"),
            _ => None,
        }
    }

    /// The JSON-RPC error code, when the answer is one.
    pub fn error_code(&self) -> Option<i64> {
        match self {
            Answer::Reply { message: Some(message), .. } => message["error"]["code"].as_i64(),
            _ => None,
        }
    }

    /// The HTTP status, when there was a response.
    pub fn status(&self) -> Option<u16> {
        match self {
            Answer::Reply { status, .. } => Some(*status),
            Answer::Lost(_) => None,
        }
    }
}

/// A JSON-RPC request of protocol 2026-07-28 with the given client capabilities.
pub fn message(id: &str, method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "fleet-workload", "version": "0"}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A client of one endpoint (`http://HOST:PORT/mcp`) with one bearer token.
#[derive(Clone)]
pub struct Mcp {
    http: reqwest::Client,
    url: String,
    token: String,
}

/// The data of each complete event in `buffer` (drained from it), as JSON.
pub fn drain_events(buffer: &mut String) -> Vec<Value> {
    let mut events = Vec::new();
    while let Some(end) = buffer.find("\n\n") {
        let event: String = buffer.drain(..end + 2).collect();
        let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
        if !data.is_empty()
            && let Ok(value) = serde_json::from_str(&data.join("\n"))
        {
            events.push(value);
        }
    }
    events
}

impl Mcp {
    /// A client of `address` (`HOST:PORT`).
    pub fn new(address: &str, token: &str) -> Self {
        // Plain HTTP on loopback; the client still wants a TLS provider chosen.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder().connect_timeout(Duration::from_secs(5)).build().expect("an HTTP client");
        Mcp { http, url: format!("http://{address}/mcp"), token: token.to_owned() }
    }

    fn post(&self, message: &Value) -> reqwest::RequestBuilder {
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let mut request = self
            .http
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Authorization", format!("Bearer {}", self.token))
            .header("Mcp-Method", &method);
        let name = match method.as_str() {
            "tools/call" => message["params"]["name"].as_str(),
            "tasks/get" | "tasks/cancel" | "tasks/update" => message["params"]["taskId"].as_str(),
            _ => None,
        };
        if let Some(name) = name {
            request = request.header("Mcp-Name", name);
        }
        request.body(message.to_string())
    }

    /// Sends `message` and reads its answer (from JSON, or from an event stream up to the
    /// response); gives up after `timeout` (a lost answer).
    pub async fn send(&self, message: &Value, timeout: Duration) -> Answer {
        match tokio::time::timeout(timeout, self.exchange(message)).await {
            Ok(answer) => answer,
            Err(_) => Answer::Lost(format!("no answer within {timeout:?}")),
        }
    }

    async fn exchange(&self, message: &Value) -> Answer {
        let mut response = match self.post(message).send().await {
            Ok(response) => response,
            Err(e) => return Answer::Lost(format!("{e:?}")),
        };
        let status = response.status().as_u16();
        let served_by = response.headers().get(SERVED_BY).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let streamed = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        let mut buffer = String::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => buffer.push_str(&String::from_utf8_lossy(&chunk)),
                Ok(None) => break,
                Err(e) => return Answer::Lost(format!("the answer was cut off: {e:?}")),
            }
            if streamed
                && let Some(found) = drain_events(&mut buffer).into_iter().find(|m| m.get("id") == message.get("id"))
            {
                return Answer::Reply { status, served_by, message: Some(found) };
            }
        }
        if streamed {
            return Answer::Lost("the event stream ended without the answer".into());
        }
        Answer::Reply { status, served_by, message: serde_json::from_str(&buffer).ok() }
    }

    /// Opens a `subscriptions/listen` stream with `filter`: the response whose events follow.
    pub async fn open_stream(&self, id: &str, filter: Value) -> Result<(reqwest::Response, Option<String>), String> {
        let message = message(id, "subscriptions/listen", json!({"notifications": filter}), json!({}));
        let response = self.post(&message).send().await.map_err(|e| format!("{e:?}"))?;
        let served_by = response.headers().get(SERVED_BY).and_then(|v| v.to_str().ok()).map(str::to_owned);
        if response.status() != 200 {
            return Err(format!("listen answered {}", response.status()));
        }
        Ok((response, served_by))
    }
}
