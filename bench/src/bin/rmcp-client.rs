//! The bench client written with rmcp 3.11's client, the way its docs and tests use it: the
//! server given after `--` started as a [`TokioChildProcess`], the lifecycle
//! `ClientLifecycleMode::Discover` (2026-07-28, `server/discover`, every request with its own
//! `_meta`), and `RunningService::call_tool`, which answers SEP-2322 `input_required` rounds
//! (MRTR) by itself through the [`ClientHandler`]'s `create_elicitation`. See
//! `shared/driver.rs` for the command line and the line it prints.

#[path = "shared/driver.rs"]
mod driver;

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Parser;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation, JsonObject, ProtocolVersion,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient};
use serde_json::json;

/// Answers `confirm_echo`'s form ("Echo it?") with `{"confirm": true}`, counting the forms.
#[derive(Clone)]
struct Confirmer {
    asked: Arc<AtomicU64>,
}

impl ClientHandler for Confirmer {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Err(ErrorData::invalid_params("forms only", None));
        };
        assert_eq!(message, "Echo it?", "the server asked another form");
        self.asked.fetch_add(1, Ordering::Relaxed);
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"confirm": true})))
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("bench-rmcp-client", "1.0.0"),
        )
    }
}

#[derive(Clone)]
struct Rmcp {
    service: Arc<RunningService<RoleClient, Confirmer>>,
    arguments: JsonObject,
}

impl driver::Caller for Rmcp {
    async fn call(&self, tool: &'static str) {
        let params = CallToolRequestParams::new(tool).with_arguments(self.arguments.clone());
        let result = self.service.call_tool(params).await.unwrap_or_else(|e| panic!("{tool}: {e}"));
        let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str());
        assert_eq!(text, Some("hi"), "{tool} answered {result:?}");
    }
}

#[tokio::main]
async fn main() {
    let args = driver::Args::parse();
    let asked = Arc::new(AtomicU64::new(0));
    let mut command = tokio::process::Command::new(&args.server[0]);
    command.args(&args.server[1..]);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("starts the server");
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let service = Confirmer { asked: asked.clone() }
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("connects to the server");
    let arguments = json!({"text": "hi"}).as_object().cloned().expect("an object");
    let caller = Rmcp { service: Arc::new(service), arguments };
    driver::drive("rmcp", caller.clone(), &args, || asked.load(Ordering::Relaxed)).await;
    let service = Arc::into_inner(caller.service).expect("no call left");
    let _ = service.cancel().await;
}
