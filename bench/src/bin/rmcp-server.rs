//! The benchmark server written with rmcp 3.11, the official Rust SDK: `echo` and the two-round
//! `confirm_echo`, over stdio (`--stdio`) or Streamable HTTP (`--listen HOST:PORT`, endpoint
//! `/mcp`). Behaviourally the same as `rounds-server`, written the way rmcp's docs recommend:
//! `#[tool_router]`/`#[tool]`/`#[tool_handler]`, the SEP-2322 (MRTR) `RequestState` and
//! `InputResponses` extractors, and `RequestStateCodec` for the signed `requestState`.
//!
//! Only protocol revision 2026-07-28 is served, statelessly: no `initialize`, every request
//! carries its own `_meta` envelope.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, ElicitationSchema, FormElicitationCapability, InputRequest,
    InputRequests, InputRequiredResult, ProtocolVersion, RequestMetaObject, RequestStateCodec, SealOptions,
};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService, stdio_pipes};
use rmcp::{ErrorData, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

/// The `inputRequests` key of the one question `confirm_echo` asks.
const CONFIRM_KEY: &str = "confirm";
/// How long a `requestState` stays valid: the same as mcp-rounds' default.
const STATE_TTL: Duration = Duration::from_secs(300);

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// What to echo.
    text: String,
}

/// The form `confirm_echo` asks the user to fill in.
#[derive(Deserialize)]
struct Confirm {
    confirm: bool,
}

/// What `confirm_echo` keeps in its signed `requestState` between rounds: the round it is in.
#[derive(Serialize, Deserialize)]
enum ConfirmRound {
    AwaitingConfirm,
}

#[derive(Clone)]
struct BenchServer {
    /// Signs and verifies `requestState` (HMAC-SHA256). Shared, because the HTTP transport
    /// builds a handler per request.
    state: Arc<RequestStateCodec>,
}

#[tool_router]
impl BenchServer {
    fn new() -> Self {
        // A fixed key, so that every run (and every replica) accepts the others' states.
        let codec =
            RequestStateCodec::new_with_keyring("bench", [("bench", [7u8; 32])]).expect("a valid one-key keyring");
        Self { state: Arc::new(codec) }
    }

    /// Echoes the text back.
    #[tool(annotations(read_only_hint = true))]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Echoes the text back once the user confirms.
    #[tool(annotations(read_only_hint = true))]
    fn confirm_echo(
        &self,
        Parameters(args): Parameters<EchoArgs>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        meta: RequestMetaObject,
    ) -> Result<CallToolResponse, ErrorData> {
        // rmcp does not check that the client can answer what a handler asks for, so the
        // handler does (spec: never embed an elicitation the request did not declare; -32021).
        if !accepts_form_elicitation(meta.client_capabilities()) {
            return Err(ErrorData::missing_required_client_capability(form_elicitation_capability()));
        }
        // The state is bound to the tool and its arguments (rmcp's "associated data"), so it
        // cannot be replayed against another call.
        let binding = serde_json::to_vec(&("tools/call", "confirm_echo", &args)).expect("plain JSON");

        let Some(state) = state else {
            return Ok(self.ask(&binding));
        };
        let _round: ConfirmRound = self
            .state
            .open_json_with(&state, &binding)
            // rmcp asks that every failure look the same to the client.
            .map_err(|_| ErrorData::invalid_params("Invalid or expired requestState", None))?;

        // Inputs are replaced, not accumulated, between rounds: a retry without the answer is
        // asked again rather than failed (spec SHOULD).
        let Some(answer) = responses.as_ref().and_then(|responses| responses.get(CONFIRM_KEY)) else {
            return Ok(self.ask(&binding));
        };
        let answer: ElicitResult = serde_json::from_value(answer.clone())
            .map_err(|error| ErrorData::invalid_params(format!("inputResponses.confirm: {error}"), None))?;
        let confirmed = match (answer.action, answer.content) {
            (ElicitationAction::Accept, Some(content)) => {
                let form: Confirm = serde_json::from_value(content).map_err(|error| {
                    ErrorData::invalid_params(format!("inputResponses.confirm.content: {error}"), None)
                })?;
                form.confirm
            }
            _ => false,
        };
        let text = if confirmed { args.text } else { "not confirmed".to_owned() };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }

    /// The first round: ask "Echo it?" and carry the round in a signed state.
    fn ask(&self, binding: &[u8]) -> CallToolResponse {
        let schema =
            ElicitationSchema::builder().required_bool_with("confirm", |b| b.description("Echo it?")).build_unchecked();
        let question = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Echo it?".into(),
            requested_schema: schema,
        });
        let state = self
            .state
            .seal_json_with(&ConfirmRound::AwaitingConfirm, &SealOptions::new().associated_data(binding).ttl(STATE_TTL))
            .expect("a unit variant serializes");
        let requests = InputRequests::from([(CONFIRM_KEY.to_owned(), InputRequest::Elicitation(question))]);
        InputRequiredResult::new(Some(requests), Some(state)).into()
    }
}

/// Whether the request's capabilities allow a form-mode elicitation: `elicitation: {}` means
/// form only; otherwise `form` must be listed.
fn accepts_form_elicitation(capabilities: Option<ClientCapabilities>) -> bool {
    capabilities
        .and_then(|capabilities| capabilities.elicitation)
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

fn form_elicitation_capability() -> ClientCapabilities {
    let mut elicitation = ElicitationCapability::new();
    elicitation.form = Some(FormElicitationCapability::new());
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(elicitation);
    capabilities
}

/// Set by `--dual-era` before the server starts.
static DUAL_ERA: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[tool_handler(name = "bench-rmcp", version = "1.0.0")]
impl ServerHandler for BenchServer {
    // Only the stateless revision unless `--dual-era`; rmcp answers any other `_meta` version
    // with -32022 and `server/discover` lists just these.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if DUAL_ERA.load(std::sync::atomic::Ordering::Relaxed) {
            Cow::Owned(vec![ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25])
        } else {
            Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
        }
    }
}

#[derive(Parser)]
struct Args {
    /// Serve stdin and stdout.
    #[arg(long)]
    stdio: bool,
    /// Also serve clients of 2025-11-25 (the `initialize` handshake), to compare that path.
    #[arg(long)]
    dual_era: bool,
    /// Serve Streamable HTTP here.
    #[arg(long)]
    listen: Option<String>,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args = Args::parse();
    DUAL_ERA.store(args.dual_era, std::sync::atomic::Ordering::Relaxed);
    let server = BenchServer::new();
    match args.listen {
        Some(address) if !args.stdio => {
            let config = StreamableHttpServerConfig::default()
                // Sessions only exist before 2026-07-28; route everything statelessly.
                .with_legacy_session_mode(false)
                // Plain `application/json` for a response with nothing streamed before it.
                .with_json_response(true)
                // Refuse requests without the per-request version (header and `_meta`)
                // instead of treating them as 2025-03-26.
                .with_stateless_protocol_metadata_required(true);
            let shutdown = config.cancellation_token.clone();
            let service = StreamableHttpService::new(
                move || Ok(server.clone()),
                Arc::new(NeverSessionManager::default()),
                config,
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(address).await?;
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = tokio::signal::ctrl_c().await;
                    shutdown.cancel();
                })
                .await?;
        }
        _ => {
            // `stdio_pipes` is what rmcp's docs recommend when stdin and stdout are pipes (it
            // falls back to the blocking `stdio()` handles otherwise).
            server.serve(stdio_pipes()).await?.waiting().await?;
        }
    }
    Ok(())
}
