//! What the fuzz targets share: one server with every kind of handler (a tool, a two-round
//! tool asking a form, a resource template, a prompt, a skills directory), served in-process
//! over the stdio framing, and the checks every answer must pass.

use std::collections::HashSet;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use mcp_rounds::form::FormRequest;
use mcp_rounds::jsonrpc::{Incoming, decode};
use mcp_rounds::request_state::{KeyRing, StateKey};
use mcp_rounds::rounds::{Elicitation, Round, Step};
use mcp_rounds::transport::framing::{BlockingLineReader, Frame};
use mcp_rounds::transport::stdio::Stdio;
use mcp_rounds::{Form, Rounds, Server, handlers, prompt, resource, tool};
use serde_json::Value;
use tokio::io::AsyncWrite;

/// The largest message the fuzzed transport takes, small so that the limit is reached.
pub const LIMIT: usize = 4096;

/// Echoes the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// What the form asks.
#[derive(Form, Debug)]
pub struct Confirm {
    /// Echo it?
    pub confirm: bool,
    /// How many times (1 to 5).
    #[form(minimum = 1, maximum = 5)]
    pub times: Option<i64>,
    /// Who asks.
    #[form(min_length = 2, max_length = 20)]
    pub name: Option<String>,
    /// Where to send it.
    #[form(format = "email")]
    pub email: Option<String>,
}

#[derive(Rounds)]
enum ConfirmRound {
    Ask {
        #[answer]
        confirm: Elicitation<Confirm>,
    },
}

/// Echoes the text once the user confirms (not read-only: its state is single-use).
#[tool]
fn confirm_echo(text: String, round: Round<ConfirmRound>) -> Step<ConfirmRound, String> {
    match round {
        Round::Start => ConfirmRound::ask_ask(FormRequest::new("Echo it?")).into(),
        Round::Resumed(ConfirmRound::Ask { confirm: Elicitation::Accept(Confirm { confirm: true, .. }) }) => {
            Step::Done(text)
        }
        Round::Resumed(_) => Step::Done("not confirmed".into()),
    }
}

/// A file of a project.
#[resource("projects://{project}/files/{path}", mime_type = "text/plain")]
fn project_file(project: String, path: String) -> String {
    format!("{project}/{path}")
}

/// Reviews code.
#[prompt]
fn review(language: String, style: Option<String>) -> String {
    format!("Review {language} ({style:?})")
}

/// The key every fuzzed server signs with.
pub fn keys() -> KeyRing {
    KeyRing::new([StateKey::new("fuzz", &[7; 32]).expect("a 32-byte key")]).expect("one key")
}

/// The directory of skills the server serves: one skill with a reference file, beside a
/// secret the skills must never reach.
fn skills_dir() -> std::path::PathBuf {
    let root = std::env::temp_dir().join(format!("mcp-rounds-fuzz-{}", std::process::id()));
    let skill = root.join("skills/pdf-processing");
    std::fs::create_dir_all(skill.join("references")).expect("a temporary directory");
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: pdf-processing\ndescription: Reads PDF files.\n---\n\n# PDF\n\nSee references/FORMS.md.\n",
    )
    .expect("a skill");
    std::fs::write(skill.join("references/FORMS.md"), "# Forms\n").expect("a reference");
    std::fs::write(root.join("SECRET"), SECRET).expect("a secret");
    root.join("skills")
}

/// What lies next to the skills directory: no answer may ever contain it.
pub const SECRET: &str = "the-secret-next-to-the-skills";

/// The server, made once per process.
pub fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let _runtime = runtime().enter();
        Server::builder("fuzz", "1.0.0")
            .handlers(handlers![echo, confirm_echo, project_file, review])
            .state_keys(keys())
            .skills_dir(skills_dir())
            .build()
            .expect("the fuzz server builds")
    })
}

/// One runtime per process, on the fuzzing thread.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime"))
}

/// Bytes written to it, kept.
#[derive(Clone, Default)]
struct Collect(Arc<Mutex<Vec<u8>>>);

impl AsyncWrite for Collect {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Serves `input` as a whole stdio session and returns every line the server wrote.
pub fn serve(input: &[u8]) -> Vec<Value> {
    let out = Collect::default();
    let stdio = Stdio::new().max_message_bytes(LIMIT);
    runtime().block_on(stdio.serve_streams(server(), input, out.clone())).expect("in-memory streams do not fail");
    let written = out.0.lock().unwrap().clone();
    assert!(written.is_empty() || written.ends_with(b"\n"), "every message ends its line");
    written
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).unwrap_or_else(|e| panic!("the server wrote JSON: {e}")))
        .collect()
}

/// What the transport must do with the messages of `input`, framed and classified
/// independently of it.
pub struct Expected {
    /// The ids of the requests it must answer (`None`: an answer with a null id).
    pub answers: Vec<Option<Value>>,
    /// Ids the client cancelled: their requests may go unanswered.
    pub cancelled: HashSet<String>,
    /// Whether the input itself carries the secret (as bytes, or in a JSON string once its
    /// escapes are decoded): an error may then echo it back (an unsupported version, say), and
    /// its presence in an answer proves nothing. The fuzzer learns the secret from the check
    /// below and tries it.
    pub secret_given: bool,
}

/// What the transport must do with the messages of `input`.
pub fn expected_answers(input: &[u8]) -> Expected {
    let mut frames = BlockingLineReader::new(input, LIMIT);
    let mut expected = Vec::new();
    let mut cancelled = HashSet::new();
    let mut secret_given = contains(input, SECRET.as_bytes());
    while let Some(frame) = frames.next_frame().expect("reading memory does not fail") {
        match frame {
            Frame::TooLarge { id } => expected.push(id.map(|id| serde_json::to_value(id).unwrap())),
            Frame::Message(bytes) => {
                if !secret_given {
                    secret_given =
                        serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| v.to_string().contains(SECRET));
                }
                match decode(&bytes) {
                    Incoming::Request(request) => expected.push(Some(serde_json::to_value(request.id).unwrap())),
                    Incoming::Invalid { id, .. } => expected.push(id.map(|id| serde_json::to_value(id).unwrap())),
                    Incoming::Notification(notification) => {
                        if &*notification.method == "notifications/cancelled"
                            && let Some(params) = notification.params
                            && let Ok(params) = serde_json::from_str::<Value>(params.get())
                            && let Some(id) = params.get("requestId")
                        {
                            cancelled.insert(id.to_string());
                        }
                    }
                    Incoming::Response => {}
                }
            }
        }
    }
    Expected { answers: expected, cancelled, secret_given }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

/// The JSON-RPC error codes this server may answer with; anything else (an internal error
/// above all: no handler here fails) is a bug.
pub const CODES: [i64; 8] = [-32700, -32600, -32601, -32602, -32020, -32021, -32022, -32002];

/// Checks that `written` is well-formed JSON-RPC and answers `expected`: each request once,
/// with an allowed code when it fails, and nothing that lies outside the skills directory.
pub fn check_answers(written: &[Value], expected: &Expected) {
    let mut answers = Vec::new();
    let mut asked_client = false;
    for message in written {
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        assert!(
            expected.secret_given || !message.to_string().contains(SECRET),
            "a file outside the skills was read: {message}"
        );
        if message.get("method").is_some() {
            // A notification, or a request of a legacy session to its client.
            asked_client |= message.get("id").is_some();
            continue;
        }
        let id = message.get("id").expect("a response has an id");
        match (message.get("result"), message.get("error")) {
            (Some(_), None) => {}
            (None, Some(error)) => {
                let code = error["code"].as_i64().expect("an integer code");
                assert!(CODES.contains(&code), "unexpected code {code}: {message}");
                assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{message}");
            }
            _ => panic!("exactly one of result and error: {message}"),
        }
        answers.push(if id.is_null() { None } else { Some(id.clone()) });
    }
    let key = |id: &Option<Value>| id.as_ref().map(Value::to_string).unwrap_or_default();
    let mut got: Vec<String> = answers.iter().map(key).collect();
    let mut want: Vec<String> = expected.answers.iter().map(key).collect();
    got.sort();
    want.sort();
    // Every answer is to a request, at most once per time it was sent; only a cancelled one
    // may go unanswered.
    for id in &got {
        let at = want.iter().position(|w| w == id).unwrap_or_else(|| panic!("an answer to no request: {id}"));
        want.remove(at);
    }
    for id in &want {
        assert!(expected.cancelled.contains(id), "request {id} never answered (asked the client: {asked_client})");
    }
}
