//! Each subcommand: connect, ask, print the result for a person or as JSON.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::sync::Arc;

use mcp_rounds::client::{Client, ClientError, ServerHello};
use mcp_rounds::model::{
    CallToolRequestParams, CompleteRequestParams, CompletionArgument, CompletionContext, CompletionReference,
    ServerCapabilities, SubscriptionFilter,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::answering::Answering;
use crate::arguments;
use crate::failure::{Failure, usage};
use crate::login::{self, FileStore, Loopback};
use crate::options::{Cli, Command, CompleteCommand, ListenArgs, PromptsCommand, ResourcesCommand, ToolsCommand};
use crate::render;
use crate::screen::Screen;
use crate::shown::{shown, shown_line};
use crate::target;

/// Runs the command line; the server command is what followed `--`.
pub async fn run(cli: Cli, server: Vec<OsString>) -> Result<(), Failure> {
    if let Command::New(new) = &cli.command {
        return crate::scaffold::write(new);
    }
    if let Command::Logout = &cli.command {
        return logout(cli.target.url.as_deref());
    }
    let screen = Arc::new(Screen::new(cli.verbose));
    let answering = Answering::new(&cli.answering, screen.clone())?;
    let logging_in = matches!(cli.command, Command::Login);
    let login = match (&cli.target.url, &cli.target.bearer) {
        (Some(url), None) => {
            if logging_in {
                if cli.target.login.stored_auth_only {
                    return Err(usage("`login` starts a login; --stored-auth-only forbids one"));
                }
                FileStore::for_server(url)?.forget();
            }
            // A person is asked only where one can answer, unless told never to ask.
            let asks = logging_in || (screen.interactive && !cli.target.login.stored_auth_only);
            let person = if asks { Some(Loopback::bind().await?) } else { None };
            login::logins(&cli.target.login, url, person)?
        }
        _ if logging_in => return Err(usage("`login` needs the server's --url (and no --bearer)")),
        _ => None,
    };
    let url = cli.target.url.clone();
    let client = target::connect(&cli.target, &server, answering.clone(), login, &screen, cli.verbose)
        .await
        .map_err(|failure| failure.at_server(url.as_deref()))?;
    let output = Output { json: cli.json, screen: screen.clone() };
    let outcome = match (logging_in, &cli.target.url) {
        (true, Some(url)) => logged_in(url, &output),
        _ => dispatch(&client, cli.command, &output).await,
    };
    screen.clear();
    client.close().await;
    // What the person declined, or what could not be answered, decides the exit code even
    // when the server answered the decline with a result.
    answering.verdict()?;
    outcome.map_err(|failure| failure.at_server(url.as_deref()))
}

struct Output {
    json: bool,
    screen: Arc<Screen>,
}

impl Output {
    /// Prints `value` as JSON, or `human()` for a person.
    fn print<T: Serialize>(&self, value: &T, human: impl FnOnce() -> String) -> Result<(), Failure> {
        self.screen.clear();
        let text = if self.json {
            let mut text = crate::shown::json(value).map_err(|e| Failure::Io(e.to_string()))?;
            text.push('\n');
            text
        } else {
            human()
        };
        write_out(text.as_bytes())
    }
}

/// Writes to stdout; a reader that went away (`| head`) is not an error.
fn write_out(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::Io(format!("cannot write the output: {e}")))
        }
        _ => Ok(()),
    }
}

async fn dispatch(client: &Client, command: Command, out: &Output) -> Result<(), Failure> {
    match command {
        Command::Discover => discover(client, out),
        Command::Tools(ToolsCommand::List) => {
            let tools = client.list_all_tools().await?;
            out.print(&json!({"tools": tools}), || render::tools(&tools))
        }
        Command::Tools(ToolsCommand::Call { name, arguments, json_arguments }) => {
            call(client, &name, &arguments, json_arguments.as_deref(), out).await
        }
        Command::Resources(ResourcesCommand::List) => {
            let resources = client.list_all_resources().await?;
            out.print(&json!({"resources": resources}), || render::resources(&resources))
        }
        Command::Resources(ResourcesCommand::Templates) => {
            let templates = client.list_all_resource_templates().await?;
            out.print(&json!({"resourceTemplates": templates}), || render::templates(&templates))
        }
        Command::Resources(ResourcesCommand::Read { uri }) => {
            let result = client.read_resource(&uri).await?;
            // Into a file or a pipe, the contents byte for byte, as `cat` would write them;
            // on a terminal, shown.
            if !out.json && !std::io::stdout().is_terminal() {
                out.screen.clear();
                let exact = render::read_exact(&result).ok_or_else(|| {
                    Failure::Client(ClientError::UnexpectedResult {
                        method: "resources/read".into(),
                        reason: "a blob is not base64".into(),
                    })
                })?;
                return write_out(&exact);
            }
            out.print(&result, || render::read(&result))
        }
        Command::Prompts(PromptsCommand::List) => {
            let prompts = client.list_all_prompts().await?;
            out.print(&json!({"prompts": prompts}), || render::prompts(&prompts))
        }
        Command::Prompts(PromptsCommand::Get { name, arguments }) => {
            let prompts = client.list_all_prompts().await?;
            let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
                return Err(usage(not_found("prompt", &name, prompts.iter().map(|p| p.name.as_str()))));
            };
            let arguments = arguments::prompt_arguments(prompt, &arguments)?;
            let result = client.get_prompt(&name, arguments).await?;
            out.print(&result, || render::prompt(&result))
        }
        Command::Complete(complete) => {
            let params = completion(complete)?;
            let result = client.complete(params).await?;
            out.print(&result, || render::completion(&result))
        }
        Command::Listen(args) => listen(client, args, out).await,
        Command::Login | Command::New(_) | Command::Logout => {
            unreachable!("`login`, `new` and `logout` are run before anything is dispatched")
        }
    }
}

/// After `login` connected: whether the login is kept.
fn logged_in(url: &str, out: &Output) -> Result<(), Failure> {
    let store = FileStore::for_server(url)?;
    let kept = mcp_rounds::client::oauth::TokenStore::load(&store);
    let value = json!({"url": url, "loggedIn": kept.is_some(), "issuer": kept.as_ref().map(|k| k.issuer.clone())});
    out.print(&value, || match &kept {
        Some(kept) => {
            let issuer = shown_line(&kept.issuer);
            format!("Logged in to {url} (issuer {issuer}); the login is kept in {}\n", store.path().display())
        }
        None => format!("{url} asked for no login\n"),
    })
}

/// `logout`: the kept login forgotten.
fn logout(url: Option<&str>) -> Result<(), Failure> {
    let url = url.ok_or_else(|| usage("`logout` needs the server's --url"))?;
    let store = FileStore::for_server(url)?;
    if store.forget() {
        println!("Logged out of {url}");
    } else {
        println!("No login was kept for {url}");
    }
    Ok(())
}

fn not_found<'a>(kind: &str, name: &str, known: impl Iterator<Item = &'a str>) -> String {
    format!("the server has no {kind} `{name}` (it has: {})", arguments::listing(known))
}

async fn call(
    client: &Client,
    name: &str,
    pairs: &[String],
    json_arguments: Option<&str>,
    out: &Output,
) -> Result<(), Failure> {
    let tools = client.list_all_tools().await?;
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        return Err(usage(not_found("tool", name, tools.iter().map(|t| t.name.as_str()))));
    };
    let arguments = arguments::tool_arguments(tool, pairs, json_arguments)?;
    let params = CallToolRequestParams::new(name, arguments);
    let screen = out.screen.clone();
    let result = client.call_tool_with_progress(params, move |progress| screen.progress(&progress)).await?;
    if result.is_error == Some(true) && !out.json {
        out.screen.clear();
        out.screen.note(&format!("{} tool `{name}` reported an error:", crate::screen::styled("error:").red().bold()));
        out.screen.note(render::call(&result).trim_end());
        return Err(Failure::Tool(name.to_owned()));
    }
    out.print(&result, || render::call(&result))?;
    if result.is_error == Some(true) {
        return Err(Failure::Tool(name.to_owned()));
    }
    Ok(())
}

fn discover(client: &Client, out: &Output) -> Result<(), Failure> {
    let (value, capabilities, versions, instructions) = match client.hello() {
        ServerHello::Discovered(found) => (
            serde_json::to_value(found).unwrap_or(Value::Null),
            &found.capabilities,
            found.supported_versions.join(", "),
            found.instructions.as_deref(),
        ),
        ServerHello::Initialized(session) => (
            serde_json::to_value(session).unwrap_or(Value::Null),
            &session.capabilities,
            session.protocol_version.clone(),
            session.instructions.as_deref(),
        ),
        _ => return Err(usage("the server was not asked who it is")),
    };
    out.print(&value, || {
        let mut text = String::new();
        if let Some(info) = client.server_info() {
            let title = info.title.as_deref().map(|t| format!(" — {}", shown_line(t))).unwrap_or_default();
            let name = console::style(shown_line(&info.name)).bold();
            text.push_str(&format!("{name} {}{title}\n", shown_line(&info.version)));
        }
        let era = if client.protocol().is_legacy() { " (a 2025-11-25 session)" } else { "" };
        let (version, versions) = (shown_line(client.protocol().version()), shown_line(&versions));
        text.push_str(&format!("protocol: {version}{era}; the server speaks {versions}\n"));
        text.push_str(&format!("capabilities: {}\n", shown_line(&capability_names(capabilities))));
        if let Some(instructions) = instructions {
            text.push_str(&format!("instructions:\n  {}\n", shown(instructions.trim()).replace('\n', "\n  ")));
        }
        text
    })
}

fn capability_names(capabilities: &ServerCapabilities) -> String {
    let value = serde_json::to_value(capabilities).unwrap_or(Value::Null);
    let mut names = Vec::new();
    for (name, detail) in value.as_object().into_iter().flatten() {
        let flags: Vec<&str> = detail
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, on)| on.as_bool() == Some(true) || on.is_object())
            .map(|(flag, _)| flag.as_str())
            .collect();
        names.push(if flags.is_empty() { name.clone() } else { format!("{name} ({})", flags.join(", ")) });
    }
    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
}

fn completion(command: CompleteCommand) -> Result<CompleteRequestParams, Failure> {
    let (reference, argument, partial, context) = match command {
        CompleteCommand::Prompt { name, argument, partial, context } => {
            (CompletionReference::Prompt { name, title: None }, argument, partial, context)
        }
        CompleteCommand::Resource { template, argument, partial, context } => {
            (CompletionReference::Resource { uri: template }, argument, partial, context)
        }
    };
    let mut params = CompleteRequestParams::new(reference, CompletionArgument::new(argument, partial));
    if !context.is_empty() {
        let mut given = CompletionContext::default();
        given.arguments = Some(arguments::context(&context)?);
        params.context = Some(given);
    }
    Ok(params)
}

async fn listen(client: &Client, args: ListenArgs, out: &Output) -> Result<(), Failure> {
    let mut filter = SubscriptionFilter::default();
    let nothing_named = args.uris.is_empty()
        && args.task_ids.is_empty()
        && !(args.tools_list_changed || args.prompts_list_changed || args.resources_list_changed);
    let flag = |on: bool| (on || nothing_named).then_some(true);
    filter.tools_list_changed = flag(args.tools_list_changed);
    filter.prompts_list_changed = flag(args.prompts_list_changed);
    filter.resources_list_changed = flag(args.resources_list_changed);
    filter.resource_subscriptions = (!args.uris.is_empty()).then_some(args.uris);
    filter.task_ids = (!args.task_ids.is_empty()).then_some(args.task_ids);
    let mut changes = client.listen(filter).await?;
    loop {
        tokio::select! {
            change = changes.next() => match change {
                Some(change) => write_out(format!("{}\n", render::notice(&change?, out.json)).as_bytes())?,
                None => return Ok(()),
            },
            _ = tokio::signal::ctrl_c() => return Ok(()),
        }
    }
}
