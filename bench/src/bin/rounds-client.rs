//! The bench client written with mcp-rounds' client: starts the server given after `--` as a
//! child process, settles on 2026-07-28 with `server/discover`, and calls `echo` one at a
//! time, [`driver::WINDOW`] at a time, or `confirm_echo` with its `input_required` round
//! answered by the client's own loop (its [`ClientHandler`] fills in the form). See
//! `shared/driver.rs` for the command line and the line it prints.

#[path = "shared/driver.rs"]
mod driver;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Parser;
use mcp_rounds::Error;
use mcp_rounds::client::{Asking, ChildProcess, Client, ClientHandler, Lifecycle};
use mcp_rounds::model::{ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationCapability};
use serde_json::{Map, json};

/// Answers `confirm_echo`'s form ("Echo it?") with `{"confirm": true}`, counting the forms.
#[derive(Clone)]
struct Confirmer {
    asked: Arc<AtomicU64>,
}

impl ClientHandler for Confirmer {
    async fn elicit(&self, request: ElicitRequestParams, _asking: &Asking) -> Result<ElicitResult, Error> {
        let ElicitRequestParams::Form(form) = request else { return Err(Error::invalid_params("forms only")) };
        assert_eq!(form.message, "Echo it?", "the server asked another form");
        self.asked.fetch_add(1, Ordering::Relaxed);
        let mut content = Map::new();
        content.insert("confirm".into(), json!(true));
        Ok(ElicitResult::accept(Some(content)))
    }
}

#[derive(Clone)]
struct Rounds(Client);

impl driver::Caller for Rounds {
    async fn call(&self, tool: &'static str) {
        let result = self.0.call_tool(tool, json!({"text": "hi"})).await.unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_eq!(result.content[0].as_text(), Some("hi"), "{tool} answered {result:?}");
    }
}

#[tokio::main]
async fn main() {
    let args = driver::Args::parse();
    let asked = Arc::new(AtomicU64::new(0));
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(ElicitationCapability::form());
    let client = Client::builder()
        .name("bench-rounds-client", "1.0.0")
        .capabilities(capabilities)
        .handler(Confirmer { asked: asked.clone() })
        .lifecycle(Lifecycle::Discover)
        .connect(ChildProcess::new(&args.server[0]).args(&args.server[1..]).quiet())
        .await
        .expect("connects to the server");
    driver::drive("mcp-rounds", Rounds(client.clone()), &args, || asked.load(Ordering::Relaxed)).await;
    client.close().await;
}
