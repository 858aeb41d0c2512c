//! Questions asked in the terminal, typed by what the server asks: a form becomes one prompt
//! per field (a select for a choice, a multi-select for several, a confirm for a boolean,
//! checked text otherwise, defaults prefilled), then an explicit accept, decline or cancel.
//! Every function here blocks on the person; the caller runs it off the async threads.

use dialoguer::theme::ColorfulTheme;
use dialoguer::{Confirm, Input, MultiSelect, Select};
use mcp_rounds::form::validate_field;
use mcp_rounds::model::{
    CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestUrlParams, ElicitResult, JsonObject, NumberType,
    PrimitiveSchemaDefinition as Field, SamplingContent, TitledOption,
};
use serde_json::Value;

use crate::screen::styled;
use crate::shown::{shown, shown_line};

/// The person closed a prompt (Esc, Ctrl-C) without answering.
struct Dismissed;

fn theme() -> ColorfulTheme {
    ColorfulTheme::default()
}

/// A form, field by field, then what to do with it.
pub fn form(form: &ElicitRequestFormParams) -> ElicitResult {
    eprintln!("\n{} {}", styled("The server asks:").bold(), shown(&form.message));
    let schema = &form.requested_schema;
    let mut content = JsonObject::new();
    for (name, field) in &schema.properties {
        let required = schema.required.as_ref().is_some_and(|r| r.contains(name));
        match ask_field(name, field, required) {
            Ok(Some(value)) => {
                content.insert(name.clone(), value);
            }
            Ok(None) => {}
            Err(Dismissed) => return ElicitResult::cancel(),
        }
    }
    let choice = Select::with_theme(&theme())
        .with_prompt("Send this answer?")
        .items(["Accept: send it", "Decline", "Cancel"])
        .default(0)
        .interact_opt();
    match choice {
        Ok(Some(0)) => ElicitResult::accept(Some(content)),
        Ok(Some(1)) => ElicitResult::decline(),
        _ => ElicitResult::cancel(),
    }
}

/// A URL to open, already known to be https (or http on this machine): shown with its host on
/// a line of its own, never opened; the person says when they are done.
pub fn url(request: &ElicitRequestUrlParams, host: &str) -> ElicitResult {
    eprintln!("\n{} {}", styled("The server asks you to open a page:").bold(), shown(&request.message));
    eprintln!("  {} {}", styled("site:").dim(), styled(shown_line(host)).bold());
    eprintln!("  {}", styled(shown_line(&request.url)).underlined());
    let choice = Select::with_theme(&theme())
        .with_prompt("When you are done there")
        .items(["Done (accept)", "Decline", "Cancel"])
        .default(0)
        .interact_opt();
    match choice {
        Ok(Some(0)) => ElicitResult::accept(None),
        Ok(Some(1)) => ElicitResult::decline(),
        _ => ElicitResult::cancel(),
    }
}

/// A sampling request: the messages shown, the reply typed by the person (empty: refused).
pub fn sampling(request: &CreateMessageRequestParams) -> Option<String> {
    eprintln!("\n{} (at most {} tokens)", styled("The server asks your model for a reply").bold(), request.max_tokens);
    if let Some(system) = &request.system_prompt {
        eprintln!("  {} {}", styled("system:").dim(), shown(system));
    }
    for message in &request.messages {
        let role = serde_json::to_value(message.role).ok().and_then(|r| r.as_str().map(str::to_owned));
        for content in message.content.iter() {
            let text = match content {
                SamplingContent::Text(text) => shown(&text.text).into_owned(),
                SamplingContent::Image(image) => format!("[image, {}]", shown_line(&image.mime_type)),
                SamplingContent::Audio(audio) => format!("[audio, {}]", shown_line(&audio.mime_type)),
                SamplingContent::ToolUse(_) => "[a tool call]".to_owned(),
                SamplingContent::ToolResult(_) => "[a tool result]".to_owned(),
            };
            eprintln!("  {} {text}", styled(format!("{}:", role.as_deref().unwrap_or("?"))).dim());
        }
    }
    let reply: String = Input::with_theme(&theme())
        .with_prompt("Reply as the model (empty to refuse)")
        .allow_empty(true)
        .interact_text()
        .ok()?;
    (!reply.trim().is_empty()).then_some(reply)
}

/// The roots to give the server, as `file://` URIs: directories or URIs separated by spaces,
/// asked again until each is one.
pub fn roots() -> Vec<String> {
    eprintln!("\n{}", styled("The server asks for your roots (the directories it may work in).").bold());
    let current = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    let uris = |answer: &str| -> Result<Vec<String>, String> {
        answer.split_whitespace().map(|root| crate::roots::root_uri(root).map_err(|e| e.to_string())).collect()
    };
    let answer: Result<String, _> = Input::with_theme(&theme())
        .with_prompt("Directories or file:// URIs, separated by spaces (empty for none)")
        .default(current)
        .allow_empty(true)
        .validate_with(|answer: &String| uris(answer).map(drop))
        .interact_text();
    answer.ok().and_then(|a| uris(&a).ok()).unwrap_or_default()
}

/// A field's prompt, shown on one line.
fn label(name: &str, title: Option<&String>, description: Option<&String>, required: bool) -> String {
    let mut label = title.cloned().unwrap_or_else(|| name.to_owned());
    if let Some(description) = description.filter(|d| Some(*d) != title) {
        label = format!("{label} ({description})");
    }
    if !required {
        label.push_str(" [optional]");
    }
    shown_line(&label).into_owned()
}

fn ask_field(name: &str, field: &Field, required: bool) -> Result<Option<Value>, Dismissed> {
    match field {
        Field::String(s) => {
            let mut prompt = label(name, s.title.as_ref(), s.description.as_ref(), required);
            if let Some(format) = s.format {
                let format = serde_json::to_value(format).ok().and_then(|f| f.as_str().map(str::to_owned));
                prompt.push_str(&format!(" <{}>", format.unwrap_or_default()));
            }
            let default = s.default.as_deref().map(|d| shown_line(d).into_owned());
            text(name, field, &prompt, default, required, |t| Some(Value::String(t.to_owned())))
        }
        Field::Number(n) => {
            let prompt = label(name, n.title.as_ref(), n.description.as_ref(), required);
            let default = n.default.as_ref().map(ToString::to_string);
            let integer = n.kind == NumberType::Integer;
            text(name, field, &prompt, default, required, move |t| {
                let t = t.trim();
                if integer {
                    t.parse::<i64>().ok().map(Value::from)
                } else {
                    t.parse::<serde_json::Number>().ok().map(Value::Number)
                }
            })
        }
        Field::Boolean(b) => {
            let prompt = label(name, b.title.as_ref(), b.description.as_ref(), true);
            let answer =
                Confirm::with_theme(&theme()).with_prompt(prompt).default(b.default.unwrap_or(false)).interact_opt();
            match answer {
                Ok(Some(yes)) => Ok(Some(Value::Bool(yes))),
                _ => Err(Dismissed),
            }
        }
        Field::UntitledSingleSelectEnum(e) => {
            let prompt = label(name, e.title.as_ref(), e.description.as_ref(), required);
            select(&prompt, &untitled(&e.values), e.default.as_ref(), required)
        }
        Field::TitledSingleSelectEnum(e) => {
            let prompt = label(name, e.title.as_ref(), e.description.as_ref(), required);
            select(&prompt, &titled(&e.one_of), e.default.as_ref(), required)
        }
        Field::LegacyTitledEnum(e) => {
            let names = e.enum_names.clone().unwrap_or_else(|| e.values.clone());
            let options: Vec<(String, String)> =
                e.values.iter().cloned().zip(names.iter().map(|n| shown_line(n).into_owned())).collect();
            let prompt = label(name, e.title.as_ref(), e.description.as_ref(), required);
            select(&prompt, &options, e.default.as_ref(), required)
        }
        Field::UntitledMultiSelectEnum(e) => {
            let prompt = label(name, e.title.as_ref(), e.description.as_ref(), true);
            several(name, field, &prompt, &untitled(&e.items.values), e.default.as_deref())
        }
        Field::TitledMultiSelectEnum(e) => {
            let options = titled(&e.items.any_of);
            let prompt = label(name, e.title.as_ref(), e.description.as_ref(), true);
            several(name, field, &prompt, &options, e.default.as_deref())
        }
    }
}

/// Options whose values are their titles (as shown).
fn untitled(values: &[String]) -> Vec<(String, String)> {
    values.iter().map(|v| (v.clone(), shown_line(v).into_owned())).collect()
}

/// Options as (value, title as shown).
fn titled(options: &[TitledOption]) -> Vec<(String, String)> {
    options.iter().map(|o| (o.value.clone(), shown_line(&o.title).into_owned())).collect()
}

/// Text read until it parses and fits the field; empty leaves an optional field out.
fn text(
    name: &str,
    field: &Field,
    prompt: &str,
    default: Option<String>,
    required: bool,
    parse: impl Fn(&str) -> Option<Value>,
) -> Result<Option<Value>, Dismissed> {
    let check = |input: &String| -> Result<(), String> {
        if input.is_empty() {
            return if required { Err("an answer is required".to_owned()) } else { Ok(()) };
        }
        let value = parse(input).ok_or_else(|| "this is not a value of the field's type".to_owned())?;
        validate_field(name, &value, field).map_err(|v| shown_line(&v.reason).into_owned())
    };
    let theme = theme();
    let mut input = Input::<String>::with_theme(&theme).with_prompt(prompt).allow_empty(!required).validate_with(check);
    if let Some(default) = default {
        input = input.default(default);
    }
    let answer = input.interact_text().map_err(|_| Dismissed)?;
    Ok(if answer.is_empty() { None } else { parse(&answer) })
}

fn select(
    prompt: &str,
    options: &[(String, String)],
    default: Option<&String>,
    required: bool,
) -> Result<Option<Value>, Dismissed> {
    let mut items: Vec<&str> = options.iter().map(|(_, title)| title.as_str()).collect();
    if !required {
        items.push("(none)");
    }
    let start = default.and_then(|d| options.iter().position(|(value, _)| value == d)).unwrap_or(0);
    let chosen = Select::with_theme(&theme())
        .with_prompt(prompt)
        .items(&items)
        .default(start)
        .interact_opt()
        .map_err(|_| Dismissed)?
        .ok_or(Dismissed)?;
    Ok(options.get(chosen).map(|(value, _)| Value::String(value.clone())))
}

/// Several choices, asked again until their number fits the field.
fn several(
    name: &str,
    field: &Field,
    prompt: &str,
    options: &[(String, String)],
    default: Option<&[String]>,
) -> Result<Option<Value>, Dismissed> {
    let items: Vec<&str> = options.iter().map(|(_, title)| title.as_str()).collect();
    let mut checked: Vec<bool> = options.iter().map(|(value, _)| default.is_some_and(|d| d.contains(value))).collect();
    loop {
        let chosen = MultiSelect::with_theme(&theme())
            .with_prompt(format!("{prompt} (space to choose, enter to confirm)"))
            .items(&items)
            .defaults(&checked)
            .interact_opt()
            .map_err(|_| Dismissed)?
            .ok_or(Dismissed)?;
        let value = Value::Array(chosen.iter().map(|&i| Value::String(options[i].0.clone())).collect());
        match validate_field(name, &value, field) {
            Ok(()) => return Ok(Some(value)),
            Err(violation) => {
                eprintln!("{} {}", styled("✘").red(), shown_line(&violation.reason));
                checked = (0..options.len()).map(|i| chosen.contains(&i)).collect();
            }
        }
    }
}
