//! A stdio server written the way users write them, for the end-to-end tests. One tool is
//! built by hand to keep that path covered too.

mod options;

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use mcp_rounds::changes::{PostgresFanOut, RelayKey, RelayKeys};
use mcp_rounds::form::{Choice, FormRequest};
use mcp_rounds::middleware::{AuditLayer, RateLimitLayer, TimeoutLayer};
use mcp_rounds::model::{CallToolResult, ClientCapabilities, ElicitationCapability, Resource, Tool};
use mcp_rounds::replay::{MemoryReplayStore, SqliteReplayStore};
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{Elicitation, Round, Sampled, SamplingRequest, Step};
use mcp_rounds::tasks::{SqliteTaskStore, TaskScope};
use mcp_rounds::transport::http::{BearerTokens, Http};
use mcp_rounds::transport::stdio::Stdio;
use mcp_rounds::{
    Changes, Error, Form, Json, RequestContext, Rounds, Server, State, ToolCall, ToolError, ToolRoute, handlers,
    prompt, resource, tool,
};
use schemars::JsonSchema;
use serde::Serialize;

use crate::options::{Options, options};

#[derive(Serialize, JsonSchema)]
struct Sum {
    /// The sum.
    sum: f64,
}

/// Adds two numbers.
#[tool(read_only, idempotent)]
fn add(
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
) -> Json<Sum> {
    Json(Sum { sum: a + b })
}

/// Returns its text.
#[tool]
fn echo(text: String) -> String {
    text
}

/// Always fails as a tool.
#[tool]
fn fail() -> Result<String, ToolError> {
    Err(ToolError::new("the frobnicator is offline"))
}

/// Sleeps, then answers.
#[tool]
async fn sleep(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Announces a change, the way an application would after changing something.
#[tool]
fn announce(kind: String, uri: Option<String>, changes: Changes) -> Result<String, ToolError> {
    match kind.as_str() {
        "tools" => changes.tools_list_changed(),
        "prompts" => changes.prompts_list_changed(),
        "resources" => changes.resources_list_changed(),
        "updated" => changes.resource_updated(uri.as_deref().ok_or_else(|| ToolError::new("updated needs a uri"))?),
        other => return Err(ToolError::new(format!("unknown kind {other}"))),
    }
    Ok(format!("announced {kind}"))
}

/// Reports progress in steps, then answers.
#[tool]
async fn progress(steps: u32, ctx: RequestContext) -> String {
    for step in 1..=steps {
        ctx.progress(f64::from(step), Some(f64::from(steps)), Some(&format!("step {step}")));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    format!("done in {steps} steps")
}

/// Panics.
#[tool]
fn panic() -> String {
    panic!("fixture panic")
}

/// Finds servers. Clients on HTTP repeat the arguments in `Mcp-Param-Region`,
/// `Mcp-Param-Limit` and `Mcp-Param-Verbose` (SEP-2243).
#[tool(read_only)]
fn find_servers(
    #[arg(header = "Region")] region: String,
    #[arg(header = "Limit")] limit: Option<i64>,
    #[arg(header = "Verbose")] verbose: Option<bool>,
) -> String {
    format!("{region} {limit:?} {verbose:?}")
}

/// The fixture's read-me.
#[resource("fixture://readme", mime_type = "text/markdown", cache = "public", ttl_ms = 60000)]
fn readme() -> &'static str {
    "# Fixture\n\nA server for tests."
}

const ITEMS: [&str; 3] = ["apple", "banana", "cherry"];

/// An item by number.
#[resource("fixture://items/{id}", mime_type = "text/plain", list = list_items)]
fn item(id: usize) -> Option<String> {
    ITEMS.get(id).map(|name| (*name).to_owned())
}

async fn list_items(_ctx: RequestContext) -> Vec<Resource> {
    (0..ITEMS.len())
        .map(|i| Resource::new(format!("fixture://items/{i}"), ITEMS[i]).with_mime_type("text/plain"))
        .collect()
}

/// Greets someone.
#[prompt(title = "Greeting")]
fn greet(
    /// Who to greet.
    name: String,
    /// How: "formal" or "casual".
    style: Option<String>,
) -> String {
    match style.as_deref() {
        Some("formal") => format!("Please greet {name} formally."),
        _ => format!("Say hi to {name}."),
    }
}

/// Where the notes of `notes_delete` live: one `<id>.md` file each, titled by its first line;
/// every deletion is appended to `deleted.log` (so tests can count them).
struct NotesDir(PathBuf);

impl NotesDir {
    fn notes(&self) -> Vec<(String, String)> {
        let mut notes: Vec<(String, String)> = std::fs::read_dir(&self.0)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| {
                        let path = e.path();
                        let id = path.file_stem()?.to_str()?.to_owned();
                        (path.extension()? == "md").then_some(())?;
                        let title =
                            std::fs::read_to_string(&path).ok()?.lines().next()?.trim_start_matches("# ").to_owned();
                        Some((id, title))
                    })
                    .collect()
            })
            .unwrap_or_default();
        notes.sort();
        notes
    }
}

#[derive(Form)]
struct PickNote {
    /// The note to delete.
    note: Choice,
    /// Delete it for good?
    confirm: bool,
}

/// The candidates need not be carried: the form that was sent (with its choices) is in the
/// signed state, and answers are checked against exactly it.
#[derive(Rounds)]
enum DeleteNote {
    Confirm {
        #[answer]
        choice: Elicitation<PickNote>,
    },
}

/// Deletes one note whose title contains `title`, after the user picks and confirms it.
#[tool(destructive)]
fn notes_delete(
    title: String,
    round: Round<DeleteNote>,
    State(dir): State<NotesDir>,
) -> Result<Step<DeleteNote, String>, ToolError> {
    match round {
        Round::Start => {
            let matching: Vec<(String, String)> =
                dir.notes().into_iter().filter(|(_, t)| t.to_lowercase().contains(&title.to_lowercase())).collect();
            if matching.is_empty() {
                return Ok(Step::Done(format!("No note matches {title:?}.")));
            }
            let form = FormRequest::new(format!("Which note like {title:?} should I delete?"))
                .choices(PickNote::FIELDS.note, matching);
            Ok(DeleteNote::ask_confirm(form).into())
        }
        Round::Resumed(DeleteNote::Confirm { choice: Elicitation::Accept(PickNote { note, confirm: true }) }) => {
            std::fs::remove_file(dir.0.join(format!("{note}.md")))?;
            let mut log = std::fs::OpenOptions::new().create(true).append(true).open(dir.0.join("deleted.log"))?;
            writeln!(log, "{note} {}", std::process::id())?;
            Ok(Step::Done(format!("Deleted {note}.")))
        }
        Round::Resumed(DeleteNote::Confirm { choice: Elicitation::Cancel }) => {
            Ok(Step::Done("Cancelled; nothing deleted.".into()))
        }
        Round::Resumed(_) => Ok(Step::Done("Kept; nothing deleted.".into())),
    }
}

#[derive(Rounds)]
enum Summarize {
    Pick {
        candidates: Vec<String>,
        #[answer]
        picks: Sampled<Json<Vec<String>>>,
    },
    Write {
        picks: Vec<String>,
        #[answer]
        summary: Sampled<String>,
    },
}

/// Summarizes the notes with the client's model, in two rounds.
#[tool(read_only)]
fn notes_summarize(
    round: Round<Summarize>,
    State(dir): State<NotesDir>,
) -> Result<Step<Summarize, Json<serde_json::Value>>, Error> {
    match round {
        Round::Start => {
            let ids: Vec<String> = dir.notes().into_iter().map(|(id, _)| id).collect();
            let prompt = format!("Answer with a JSON array of the representative note ids among {ids:?}.");
            Ok(Summarize::ask_pick(ids, SamplingRequest::new(prompt, 200)).into())
        }
        Round::Resumed(Summarize::Pick { candidates, picks }) => {
            if let Some(unknown) = picks.value.0.iter().find(|id| !candidates.contains(id)) {
                return Err(Error::invalid_field("inputResponses.picks", format!("unknown note id {unknown:?}")));
            }
            let prompt = format!("Summarize notes {:?}.", picks.value.0);
            Ok(Summarize::ask_write(picks.value.0, SamplingRequest::new(prompt, 300)).into())
        }
        Round::Resumed(Summarize::Write { picks, summary }) => {
            Ok(Step::Done(Json(serde_json::json!({"picks": picks, "summary": summary.value}))))
        }
    }
}

/// Needs form elicitation (checked by hand, the way a hand-built tool would).
fn needs_form() -> ToolRoute {
    ToolRoute::new(Tool::new("needs_form", Tool::no_arguments_schema()), |call: ToolCall| async move {
        let mut required = ClientCapabilities::default();
        required.elicitation = Some(ElicitationCapability::form());
        let missing = call.context.client_capabilities().missing(&required);
        if !missing.is_empty() {
            return Err(Error::missing_capability(missing));
        }
        Ok(CallToolResult::text("form available").into())
    })
}

/// How many listen streams are open (to see that closing one ends it).
#[tool(read_only)]
fn listeners(changes: Changes) -> String {
    changes.listeners().to_string()
}

/// Works for `ms` milliseconds (as a task when the client can take one), reporting progress
/// halfway and at the end; a cancellation stops it early, and it leaves `<label>.cancelled` in
/// the notes directory to show it saw one.
#[tool(read_only, task)]
async fn slow_task(
    ms: u64,
    label: String,
    scope: TaskScope,
    context: RequestContext,
    State(dir): State<NotesDir>,
) -> Result<String, ToolError> {
    let work = async {
        for step in 1..=2 {
            tokio::time::sleep(Duration::from_millis(ms / 2)).await;
            context.progress(f64::from(step), Some(2.0), None);
        }
    };
    tokio::select! {
        () = work => Ok(format!("{label} done after {ms} ms")),
        () = scope.cancellation().cancelled() => {
            std::fs::write(dir.0.join(format!("{label}.cancelled")), b"")?;
            Err(ToolError::new("cancelled"))
        }
    }
}

#[derive(Form)]
struct Go {
    /// Carry on?
    go: bool,
}

#[derive(Rounds)]
enum TwoQuestions {
    First {
        #[answer]
        go: Elicitation<Go>,
    },
    Second {
        #[answer]
        go: Elicitation<Go>,
    },
}

/// Becomes a task, then asks twice (the same key in both rounds), then answers.
#[tool(read_only, task = "required")]
async fn asking_task(round: Round<TwoQuestions>, scope: TaskScope) -> Step<TwoQuestions, String> {
    match round {
        Round::Start => {
            scope.detach().await;
            TwoQuestions::ask_first(FormRequest::new("First: go on?")).into()
        }
        Round::Resumed(TwoQuestions::First { go: Elicitation::Accept(Go { go: true }) }) => {
            TwoQuestions::ask_second(FormRequest::new("Second: really?")).into()
        }
        Round::Resumed(TwoQuestions::Second { go: Elicitation::Accept(Go { go: true }) }) => {
            Step::Done("went on twice".into())
        }
        Round::Resumed(_) => Step::Done("stopped".into()),
    }
}

/// An audit log of JSON lines: what the audit layer hands over, and nothing else.
fn audit_to(path: PathBuf) -> AuditLayer {
    let file = std::sync::Mutex::new(std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap());
    AuditLayer::new(move |record| {
        let line = serde_json::json!({
            "principal": record.principal.name(),
            "method": record.method,
            "target": record.target,
            "requestId": record.request_id,
            "outcome": format!("{:?}", record.outcome),
        });
        let mut file = file.lock().unwrap();
        writeln!(file, "{line}").unwrap();
        file.flush().unwrap();
    })
}

/// The full server, or with `--only-tools` one that offers neither resources nor prompts.
fn server(options: Options) -> Server {
    // A fixed key by default keeps runs reproducible; tests that share state pass their own.
    let secret = options.state_key.unwrap_or_else(|| "Zml4dHVyZS1zdGF0ZS1rZXktMzItYnl0ZXMtbG9uZyEhIQ==".into());
    let keys = KeyRing::new([StateKey::from_base64("fixture", &secret).expect("a valid state key")]).unwrap();
    let builder = Server::builder("fixture-server", "0.1.0")
        .instructions("Tools for testing mcp-rounds.")
        .state(NotesDir(options.notes))
        .state_keys(keys)
        .legacy_sessions(!options.modern_only)
        .handlers(handlers![add, echo, fail, sleep, panic, announce, progress, listeners, find_servers])
        .tool(needs_form())
        // Item "private" may be followed only by a signed-in caller.
        .authorize_subscriptions(|context, uri| {
            uri != "fixture://items/private" || !context.principal().is_anonymous()
        });
    let builder = match options.replay_db {
        Some(path) => builder.replay_store(SqliteReplayStore::open(path).expect("the replay store opens")),
        None => builder.replay_store(MemoryReplayStore::default()),
    };
    let builder = match options.task_db {
        Some(path) => builder.task_store(SqliteTaskStore::open(path).expect("the task store opens")),
        None => builder,
    };
    let builder = if options.tasks { builder.handlers(handlers![slow_task, asking_task]) } else { builder };
    let builder = match options.task_lease {
        Some(lease) => builder.task_lease(lease),
        None => builder,
    };
    let builder = match options.timeout {
        Some(limit) => builder.layer(TimeoutLayer::new(limit)),
        None => builder,
    };
    let builder = match options.rate_limit {
        Some((requests, period)) => builder.layer(RateLimitLayer::per_principal(requests, period)),
        None => builder,
    };
    let builder = match options.audit {
        Some(path) => builder.layer(audit_to(path)),
        None => builder,
    };
    let builder = if options.only_tools {
        builder
    } else {
        builder.handlers(handlers![readme, item, greet, notes_delete, notes_summarize])
    };
    builder.build().expect("fixture handlers are valid")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter("warn").init();
    let options = options();
    let (listen, tokens, max_body) = (options.listen.clone(), options.tokens.clone(), options.max_body);
    let fan_out = options.fan_out.clone();
    // Fixed by default, as the state key is: instances of one test share it.
    let relay_key = options.relay_key.clone().unwrap_or_else(|| mcp_rounds_tests::postgres::FIXTURE_RELAY_KEY.into());
    let server = server(options);
    let _relay = match fan_out {
        Some(url) => {
            let key = RelayKey::from_base64("fixture", &relay_key).map_err(std::io::Error::other)?;
            let keys = RelayKeys::new([key]).map_err(std::io::Error::other)?;
            Some(PostgresFanOut::builder(server.changes(), keys).start(&url).await.map_err(std::io::Error::other)?)
        }
        None => None,
    };
    let Some(address) = listen else { return Stdio::new().serve(&server).await };
    let http = if tokens.is_empty() {
        Http::without_authentication()
    } else {
        Http::new(tokens.iter().fold(BearerTokens::new(), |t, (token, principal)| t.token(token, principal.as_str())))
    };
    let http = match max_body {
        Some(limit) => http.max_body_bytes(limit),
        None => http,
    };
    let bound = http.bind(address).await?;
    eprintln!("listening on http://{}/mcp", bound.local_addr());
    bound
        .serve(&server, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
