//! The little of JSON-RPC and MCP the server needs, by hand: reading a message, building
//! answers, and what every 2026-07-28 scenario answers alike (`server/discover`, `tools/list`).

use serde_json::{Map, Value, json};

/// The revision the modern scenarios speak.
pub const VERSION: &str = "2026-07-28";

/// The extension key of tasks, in capabilities.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A message from the client, read leniently: whatever it lacks is `None`.
pub struct Incoming {
    pub id: Option<Value>,
    pub method: Option<String>,
    pub params: Value,
    /// Present on a response (a 2025-11-25 client's answer to the server's request).
    pub result: Option<Value>,
    pub error: Option<Value>,
}

impl Incoming {
    /// Reads one message; `Err` is the JSON-RPC error to answer with.
    pub fn parse(bytes: &[u8]) -> Result<Incoming, Value> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|e| error(Value::Null, -32700, &format!("parse error: {e}"), None))?;
        let Value::Object(mut object) = value else {
            return Err(error(Value::Null, -32600, "not a JSON-RPC message", None));
        };
        Ok(Incoming {
            id: object.remove("id").filter(|id| !id.is_null()),
            method: object.remove("method").and_then(|m| m.as_str().map(str::to_owned)),
            params: object.remove("params").unwrap_or(Value::Null),
            result: object.remove("result"),
            error: object.remove("error"),
        })
    }

    /// The method, or `""` for a response.
    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }

    /// The id to answer with (`null` when the message had none).
    pub fn id(&self) -> Value {
        self.id.clone().unwrap_or(Value::Null)
    }

    /// A request: a method and an id.
    pub fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    /// `params.name` (the tool or prompt).
    pub fn name(&self) -> &str {
        self.params["name"].as_str().unwrap_or("")
    }

    /// Whether this is the retry of an `input_required` result.
    pub fn is_retry(&self) -> bool {
        self.params.get("inputResponses").is_some() || self.params.get("requestState").is_some()
    }

    /// A successful answer carrying `result`.
    pub fn answer(&self, result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": self.id(), "result": result})
    }

    /// An error answer.
    pub fn fail(&self, code: i64, message: &str, data: Option<Value>) -> Value {
        error(self.id(), code, message, data)
    }
}

/// A JSON-RPC error response.
pub fn error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// How a message is answered, whatever carries it.
pub enum Reply {
    /// One message: HTTP `status` with a JSON body; one line on stdio.
    Json(u16, Value),
    /// Notifications, then the answer: an event stream on HTTP; lines on stdio.
    Events(Vec<Value>),
    /// Nothing to answer (a notification, a response): HTTP 202.
    Accepted,
    /// Never answered.
    Never,
}

impl Reply {
    /// `message` with status 200.
    pub fn ok(message: Value) -> Reply {
        Reply::Json(200, message)
    }
}

/// The parameters in a scenario's query string, decoded.
#[derive(Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// Reads `a=1&b=x%20y` (without the `?`).
    pub fn parse(query: &str) -> Query {
        let url = reqwest::Url::parse(&format!("http://query.invalid/?{query}"));
        Query(url.map(|u| u.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect()).unwrap_or_default())
    }

    /// The value of `name`, the first if repeated.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// `name` as a number, `default` when absent or not a number, at most `max`.
    pub fn number(&self, name: &str, default: u64, max: u64) -> u64 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or(default).min(max)
    }
}

/// Splits `scenario?query` as given on the command line.
pub fn split_scenario(text: &str) -> (&str, Query) {
    match text.split_once('?') {
        Some((scenario, query)) => (scenario, Query::parse(query)),
        None => (text, Query::default()),
    }
}

/// `_meta` naming the server as `info`.
pub fn meta(info: &Value) -> Value {
    json!({"io.modelcontextprotocol/serverInfo": info})
}

/// The plain identity of every scenario but `escapes`.
pub fn plain_info(scenario: &str) -> Value {
    json!({"name": format!("hostile-{scenario}"), "version": "0.1.0"})
}

/// `result` marked complete and signed with `info`.
pub fn complete(mut result: Value, info: &Value) -> Value {
    if let Value::Object(object) = &mut result {
        object.insert("resultType".into(), json!("complete"));
        object.insert("_meta".into(), meta(info));
    }
    result
}

/// A tool taking one string argument `text`.
pub fn tool(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    })
}

/// A `tools/call` result of one text block.
pub fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// A form elicitation, as an input request, asking one boolean `ok`.
pub fn yes_no(message: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
        },
    })
}

/// An `input_required` result.
pub fn input_required(requests: Map<String, Value>, state: &str, info: &Value) -> Value {
    json!({
        "resultType": "input_required",
        "inputRequests": requests,
        "requestState": state,
        "_meta": meta(info),
    })
}

/// What a 2026-07-28 scenario offers: who it says it is, its capabilities, its tools.
pub struct Offer<'a> {
    pub info: Value,
    pub capabilities: Value,
    pub tools: Vec<Value>,
    pub instructions: Option<&'a str>,
}

impl Offer<'_> {
    /// A server with `tools` only.
    pub fn tools(scenario: &str, tools: Vec<Value>) -> Offer<'static> {
        Offer { info: plain_info(scenario), capabilities: json!({"tools": {}}), tools, instructions: None }
    }

    /// The answer to what every scenario answers alike: notifications and responses (202),
    /// `server/discover`, `tools/list`; anything else is an unknown method (404, -32601).
    pub fn basic(&self, message: &Incoming) -> Reply {
        if !message.is_request() {
            return Reply::Accepted;
        }
        match message.method() {
            "server/discover" => {
                let mut result = json!({
                    "supportedVersions": [VERSION],
                    "capabilities": self.capabilities,
                    "ttlMs": 0,
                    "cacheScope": "private",
                });
                if let Some(instructions) = self.instructions {
                    result["instructions"] = json!(instructions);
                }
                Reply::ok(message.answer(complete(result, &self.info)))
            }
            "tools/list" => {
                let result = json!({"tools": self.tools, "ttlMs": 0, "cacheScope": "private"});
                Reply::ok(message.answer(complete(result, &self.info)))
            }
            method => Reply::Json(404, message.fail(-32601, &format!("method not found: {method}"), None)),
        }
    }
}
