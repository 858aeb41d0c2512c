//! Who answers what the server asks: the `--answers` file first (by input-request key), then
//! `--sampling-command` and `--root` for their kinds, then the person at the terminal. With
//! none of them, a form is declined and sampling or roots refused, and each is recorded so
//! that the command exits 5 naming it: it never waits for input that cannot come.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_rounds::client::address::secure_url_host;
use mcp_rounds::client::{Asking, ClientHandler};
use mcp_rounds::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams,
    ElicitResult, ElicitationCapability, ListRootsResult, LoggingMessageNotificationParams, ProgressNotificationParams,
    Root, SamplingCapability, TASKS_EXTENSION, Task,
};
use mcp_rounds::{Error, ErrorCode};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::failure::{Failure, usage};
use crate::options::AnsweringOptions;
use crate::roots::root_uri;
use crate::screen::Screen;
use crate::{prompt, sampling};

/// The command's [`ClientHandler`]. Clones share what it recorded.
#[derive(Clone)]
pub struct Answering {
    inner: Arc<Answerer>,
}

struct Answerer {
    file: Option<Map<String, Value>>,
    sampling_command: Option<String>,
    sampling_timeout: Duration,
    roots: Vec<String>,
    screen: Arc<Screen>,
    /// One prompt at a time: a round's requests are answered concurrently.
    asking: tokio::sync::Mutex<()>,
    /// One run of the sampling command at a time, however many a round asks.
    sampling: tokio::sync::Mutex<()>,
    record: Mutex<Record>,
}

/// What went unanswered, or was declined, or was answered wrongly in the file.
#[derive(Default)]
struct Record {
    unanswered: Vec<String>,
    bad_answers: Vec<String>,
}

impl Answering {
    /// Reads the answers file, if any.
    pub fn new(options: &AnsweringOptions, screen: Arc<Screen>) -> Result<Answering, Failure> {
        let answers = options.answers.as_deref();
        let file = match answers {
            None => None,
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| usage(format!("--answers {}: cannot read it: {e}", path.display())))?;
                match serde_json::from_str(&text) {
                    Ok(Value::Object(answers)) => Some(answers),
                    Ok(_) => {
                        return Err(usage(format!("--answers {}: not a JSON object keyed by request", path.display())));
                    }
                    Err(e) => return Err(usage(format!("--answers {}: not JSON: {e}", path.display()))),
                }
            }
        };
        let roots = options.roots.iter().map(|root| root_uri(root)).collect::<Result<_, _>>()?;
        let answerer = Answerer {
            file,
            sampling_command: options.sampling_command.clone(),
            sampling_timeout: options.sampling_timeout,
            roots,
            screen,
            asking: tokio::sync::Mutex::new(()),
            sampling: tokio::sync::Mutex::new(()),
            record: Mutex::default(),
        };
        Ok(Answering { inner: Arc::new(answerer) })
    }

    /// Everything the command can answer (by file, command, terminal, or by declining), and tasks.
    pub fn capabilities() -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        let mut elicitation = ElicitationCapability::form();
        elicitation.url = ElicitationCapability::url().url;
        capabilities.elicitation = Some(elicitation);
        capabilities.sampling = Some(SamplingCapability::default());
        capabilities.roots = Some(mcp_rounds::model::JsonObject::new());
        // A long call the server makes a task is followed to its end, its states on the screen.
        let tasks = (TASKS_EXTENSION.to_owned(), mcp_rounds::model::JsonObject::new());
        capabilities.extensions = Some([tasks].into_iter().collect());
        capabilities
    }

    /// After the call: a bad answer in the file is a usage error; anything declined or left
    /// unanswered, exit 5 naming each.
    pub fn verdict(&self) -> Result<(), Failure> {
        let record = self.inner.record.lock().unwrap_or_else(PoisonError::into_inner);
        if !record.bad_answers.is_empty() {
            return Err(Failure::Usage(record.bad_answers.join("\n")));
        }
        if !record.unanswered.is_empty() {
            return Err(Failure::Unanswered(record.unanswered.clone()));
        }
        Ok(())
    }

    fn note(&self, record: impl FnOnce(&mut Record)) {
        record(&mut self.inner.record.lock().unwrap_or_else(PoisonError::into_inner));
    }

    /// The file's answer under `key`, read as `T`; a wrong one is recorded and refused.
    fn filed_answer<T: DeserializeOwned>(&self, key: &str, what: &str) -> Result<Option<T>, Error> {
        let Some(value) = self.inner.file.as_ref().and_then(|f| f.get(key)) else { return Ok(None) };
        match serde_json::from_value(value.clone()) {
            Ok(answer) => Ok(Some(answer)),
            Err(e) => {
                let problem = format!("--answers: the answer under `{key}` is not {what}: {e}");
                self.note(|r| r.bad_answers.push(problem.clone()));
                Err(Error::invalid_params(problem))
            }
        }
    }

    /// Runs a blocking prompt with the bar hidden, one prompt at a time.
    async fn ask<T: Send + 'static>(&self, question: impl FnOnce() -> T + Send + 'static) -> T {
        let _turn = self.inner.asking.lock().await;
        self.inner.screen.hide();
        let answer = tokio::task::spawn_blocking(question).await;
        self.inner.screen.unhide();
        answer.unwrap_or_else(|panic| std::panic::resume_unwind(panic.into_panic()))
    }

    fn refuse(&self, what: String) -> Error {
        let problem = format!("could not answer {what}: no answer under its key in --answers, and no terminal to ask");
        self.note(|r| r.unanswered.push(problem.clone()));
        Error::invalid_request(problem)
    }
}

fn declined(action: ElicitAction, what: &str) -> Option<String> {
    match action {
        ElicitAction::Accept => None,
        ElicitAction::Decline => Some(format!("{what} was declined")),
        ElicitAction::Cancel => Some(format!("{what} was cancelled")),
    }
}

impl ClientHandler for Answering {
    async fn elicit(&self, request: ElicitRequestParams, asking: &Asking) -> Result<ElicitResult, Error> {
        let what = match &request {
            ElicitRequestParams::Form(form) => format!("form `{}` ({:?})", asking.key, form.message),
            ElicitRequestParams::Url(url) => format!("URL request `{}` ({:?})", asking.key, url.message),
        };
        let answer = match self.filed_answer::<ElicitResult>(&asking.key, "an elicitation result")? {
            Some(answer) => answer,
            None if self.inner.screen.interactive => match request {
                ElicitRequestParams::Form(form) => self.ask(move || prompt::form(&form)).await,
                ElicitRequestParams::Url(url) => match secure_url_host(&url.url) {
                    Some(host) => self.ask(move || prompt::url(&url, &host)).await,
                    None => {
                        // Never shown: a person could be led to a page anyone on the way can
                        // read or change, or to something that is not a page at all.
                        let problem = format!("declined {what}: its URL is neither https nor http on this machine");
                        self.note(|r| r.unanswered.push(problem));
                        return Ok(ElicitResult::decline());
                    }
                },
            },
            None => {
                let problem = format!("declined {what}: no answer under its key in --answers, and no terminal to ask");
                self.note(|r| r.unanswered.push(problem));
                return Ok(ElicitResult::decline());
            }
        };
        if let Some(problem) = declined(answer.action, &what) {
            self.note(|r| r.unanswered.push(problem));
        }
        Ok(answer)
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        asking: &Asking,
    ) -> Result<CreateMessageResult, Error> {
        let what = format!("sampling request `{}`", asking.key);
        if let Some(answer) = self.filed_answer(&asking.key, "a sampling result")? {
            return Ok(answer);
        }
        if let Some(command) = &self.inner.sampling_command {
            let _turn = self.inner.sampling.lock().await;
            return sampling::run(command, &request, self.inner.sampling_timeout).await.map_err(|problem| {
                let problem = format!("could not answer {what}: {problem}");
                self.note(|r| r.unanswered.push(problem.clone()));
                Error::new(ErrorCode::InternalError, problem)
            });
        }
        if !self.inner.screen.interactive {
            return Err(self.refuse(format!("{what} (no --sampling-command)")));
        }
        match self.ask(move || prompt::sampling(&request)).await {
            Some(reply) => Ok(CreateMessageResult::text_reply("typed-by-a-person", reply)),
            None => {
                let problem = format!("{what} was refused");
                self.note(|r| r.unanswered.push(problem.clone()));
                Err(Error::invalid_request(problem))
            }
        }
    }

    async fn list_roots(&self, asking: &Asking) -> Result<ListRootsResult, Error> {
        if let Some(answer) = self.filed_answer(&asking.key, "a roots result")? {
            return Ok(answer);
        }
        let given = if !self.inner.roots.is_empty() {
            self.inner.roots.clone()
        } else if self.inner.screen.interactive {
            self.ask(prompt::roots).await
        } else {
            return Err(self.refuse(format!("roots request `{}` (no --root)", asking.key)));
        };
        Ok(ListRootsResult::new(given.into_iter().map(Root::new)))
    }

    fn progress(&self, progress: ProgressNotificationParams) {
        self.inner.screen.progress(&progress);
    }

    fn log(&self, message: LoggingMessageNotificationParams) {
        self.inner.screen.log(&message);
    }

    fn task(&self, task: &Task) {
        self.inner.screen.task(task);
    }
}
