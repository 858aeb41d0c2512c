//! Results as a person reads them: text as text, structured content pretty-printed, images
//! and resources summarised, lists one entry a line, every string of the server's shown and
//! never obeyed. (`--json` prints the result as it came.)

use std::fmt::Write as _;

use console::style;
use mcp_rounds::client::Notice;
use mcp_rounds::model::{
    CallToolResult, CompleteResult, ContentBlock, GetPromptResult, Prompt, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Tool, Visibility,
};
use serde_json::{Value, json};

use crate::shown::{shown, shown_line};

/// Tools, one a paragraph: name, hints, description, arguments.
pub fn tools(tools: &[Tool]) -> String {
    let mut out = String::new();
    for tool in tools {
        let mut hints = Vec::new();
        if let Some(a) = &tool.annotations {
            if a.read_only_hint == Some(true) {
                hints.push("read-only");
            }
            if a.destructive_hint == Some(true) {
                hints.push("destructive");
            }
        }
        let ui = tool.ui();
        if ui.as_ref().and_then(|ui| ui.visibility.as_ref()).is_some_and(|who| !who.contains(&Visibility::Model)) {
            hints.push("for its view only");
        }
        let hints = if hints.is_empty() { String::new() } else { format!(" [{}]", hints.join(", ")) };
        let title = tool.title.as_deref().map(|t| format!(" — {}", shown_line(t))).unwrap_or_default();
        let _ = writeln!(out, "{}{title}{}", style(shown_line(&tool.name)).bold(), style(hints).dim());
        if let Some(description) = &tool.description {
            let _ = writeln!(out, "  {}", first_line(description));
        }
        if let Some(view) = ui.and_then(|ui| ui.resource_uri) {
            let _ = writeln!(out, "  {} {}", style("view:").dim(), shown_line(&view));
        }
        let arguments = schema_arguments(&tool.input_schema);
        if !arguments.is_empty() {
            let _ = writeln!(out, "  {} {}", style("arguments:").dim(), arguments.join(", "));
        }
    }
    out
}

fn schema_arguments(schema: &serde_json::Map<String, Value>) -> Vec<String> {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let properties = schema.get("properties").and_then(Value::as_object);
    properties
        .into_iter()
        .flatten()
        .map(|(name, property)| {
            let kind = match property.get("type") {
                Some(Value::String(t)) => shown_line(t).into_owned(),
                Some(Value::Array(t)) => {
                    shown_line(&t.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("|")).into_owned()
                }
                _ if property.get("enum").is_some() => "enum".to_owned(),
                _ => "any".to_owned(),
            };
            let optional = if required.contains(&name.as_str()) { "" } else { "?" };
            format!("{}{optional}: {kind}", shown_line(name))
        })
        .collect()
}

/// The first paragraph, on one line, shown.
fn first_line(text: &str) -> String {
    let lines = text.lines().map(str::trim).skip_while(|l| l.is_empty());
    shown_line(&lines.take_while(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")).into_owned()
}

/// A tool's result: its content, then its structured content unless a text block already
/// shows it (the JSON copy servers add for older clients, or the text of a lone value that an
/// SDK wrapped as `{"result": …}`).
pub fn call(result: &CallToolResult) -> String {
    let mut out = String::new();
    let structured = result.structured_content.as_ref();
    let texts: Vec<&str> = result.content.iter().filter_map(|b| b.as_text()).collect();
    for block in &result.content {
        if let (ContentBlock::Text(text), Some(structured)) = (block, structured)
            && serde_json::from_str::<Value>(&text.text).ok().as_ref() == Some(structured)
        {
            continue;
        }
        out.push_str(&content(block));
        out.push('\n');
    }
    if let Some(structured) = structured.filter(|s| !shown_by(s, &texts)) {
        out.push_str(&pretty(structured));
        out.push('\n');
    }
    out
}

/// JSON from the server, pretty and shown: what the terminal reads of it is all escaped.
fn pretty(value: &impl serde::Serialize) -> String {
    crate::shown::json(value).unwrap_or_default()
}

/// Whether a printed text block already says what `structured` holds: an SDK's wrapping of a
/// lone value (`{"result": …}`) whose text is that value.
fn shown_by(structured: &Value, texts: &[&str]) -> bool {
    let Some(alone) = structured.as_object().filter(|o| o.len() == 1).and_then(|o| o.values().next()) else {
        return false;
    };
    texts
        .iter()
        .any(|text| alone.as_str() == Some(text) || serde_json::from_str::<Value>(text).ok().as_ref() == Some(alone))
}

fn size(bytes: usize) -> String {
    match bytes {
        b if b < 1024 => format!("{b} bytes"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// Base64 text's decoded length, near enough for a summary.
fn decoded(base64: &str) -> usize {
    base64.trim_end_matches('=').len() * 3 / 4
}

fn content(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => shown(&text.text).into_owned(),
        ContentBlock::Image(image) => {
            format!("[image: {}, {}]", shown_line(&image.mime_type), size(decoded(&image.data)))
        }
        ContentBlock::Audio(audio) => {
            format!("[audio: {}, {}]", shown_line(&audio.mime_type), size(decoded(&audio.data)))
        }
        ContentBlock::ResourceLink(link) => {
            let mime = link.mime_type.as_deref().map(|m| format!(", {}", shown_line(m))).unwrap_or_default();
            format!("[link: {} <{}>{mime}]", shown_line(&link.name), shown_line(&link.uri))
        }
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::Text(text) => format!(
                "[resource {}: {} characters]\n{}",
                shown_line(&text.uri),
                text.text.chars().count(),
                shown(&text.text)
            ),
            ResourceContents::Blob(blob) => {
                let mime = shown_line(blob.mime_type.as_deref().unwrap_or("binary")).into_owned();
                format!("[resource {}: {mime}, {}]", shown_line(&blob.uri), size(decoded(&blob.blob)))
            }
        },
    }
}

/// Resources: URI, name, type.
pub fn resources(resources: &[Resource]) -> String {
    let mut out = String::new();
    for r in resources {
        let mime = r.mime_type.as_deref().map(|m| format!(" ({})", shown_line(m))).unwrap_or_default();
        let name = shown_line(r.title.as_ref().unwrap_or(&r.name));
        let _ = writeln!(out, "{}  {name}{}", style(shown_line(&r.uri)).bold(), style(mime).dim());
        if let Some(description) = &r.description {
            let _ = writeln!(out, "  {}", first_line(description));
        }
    }
    out
}

/// Resource templates.
pub fn templates(templates: &[ResourceTemplate]) -> String {
    let mut out = String::new();
    for t in templates {
        let mime = t.mime_type.as_deref().map(|m| format!(" ({})", shown_line(m))).unwrap_or_default();
        let name = shown_line(t.title.as_ref().unwrap_or(&t.name));
        let _ = writeln!(out, "{}  {name}{}", style(shown_line(&t.uri_template)).bold(), style(mime).dim());
        if let Some(description) = &t.description {
            let _ = writeln!(out, "  {}", first_line(description));
        }
    }
    out
}

/// A resource's contents for a person: text shown, binary summarised.
pub fn read(result: &ReadResourceResult) -> String {
    let mut out = String::new();
    let several = result.contents.len() > 1;
    for contents in &result.contents {
        match contents {
            ResourceContents::Text(text) => {
                if several {
                    let _ = writeln!(out, "{}", style(format!("── {}", shown_line(&text.uri))).dim());
                }
                out.push_str(&shown(&text.text));
                if !text.text.ends_with('\n') {
                    out.push('\n');
                }
            }
            ResourceContents::Blob(blob) => {
                let mime = shown_line(blob.mime_type.as_deref().unwrap_or("binary")).into_owned();
                let uri = shown_line(&blob.uri);
                let _ =
                    writeln!(out, "[{uri}: {mime}, {}; see --json, or redirect the output]", size(decoded(&blob.blob)));
            }
        }
    }
    out
}

/// A resource's contents byte for byte, as `cat` would write them to a file or a pipe: text
/// as it is, binary decoded. `None` when a blob is not base64.
pub fn read_exact(result: &ReadResourceResult) -> Option<Vec<u8>> {
    use base64::Engine;
    let mut out = Vec::new();
    for contents in &result.contents {
        match contents {
            ResourceContents::Text(text) => out.extend_from_slice(text.text.as_bytes()),
            ResourceContents::Blob(blob) => {
                out.extend(base64::engine::general_purpose::STANDARD.decode(blob.blob.trim()).ok()?);
            }
        }
    }
    Some(out)
}

/// Prompts, with their arguments.
pub fn prompts(prompts: &[Prompt]) -> String {
    let mut out = String::new();
    for p in prompts {
        let title = p.title.as_deref().map(|t| format!(" — {}", shown_line(t))).unwrap_or_default();
        let _ = writeln!(out, "{}{title}", style(shown_line(&p.name)).bold());
        if let Some(description) = &p.description {
            let _ = writeln!(out, "  {}", first_line(description));
        }
        let arguments: Vec<String> = p
            .arguments
            .iter()
            .flatten()
            .map(|a| format!("{}{}", shown_line(&a.name), if a.required == Some(true) { "" } else { "?" }))
            .collect();
        if !arguments.is_empty() {
            let _ = writeln!(out, "  {} {}", style("arguments:").dim(), arguments.join(", "));
        }
    }
    out
}

/// A prompt's messages, each under its role.
pub fn prompt(result: &GetPromptResult) -> String {
    let mut out = String::new();
    if let Some(description) = &result.description {
        let _ = writeln!(out, "{}", style(shown(description)).dim());
    }
    for message in &result.messages {
        let role = serde_json::to_value(message.role).ok().and_then(|r| r.as_str().map(str::to_owned));
        let _ = writeln!(out, "{}", style(format!("{}:", role.unwrap_or_default())).bold());
        let _ = writeln!(out, "{}", content(&message.content));
    }
    out
}

/// Completion values, one a line.
pub fn completion(result: &CompleteResult) -> String {
    let mut out = String::new();
    for value in &result.completion.values {
        let _ = writeln!(out, "{}", shown_line(value));
    }
    let shown = result.completion.values.len() as u64;
    if let Some(total) = result.completion.total.filter(|t| *t > shown) {
        let _ = writeln!(out, "{}", style(format!("({} more)", total - shown)).dim());
    } else if result.completion.has_more == Some(true) {
        let _ = writeln!(out, "{}", style("(more)").dim());
    }
    out
}

/// A change from `listen`: a line for a person, or one JSON object.
pub fn notice(notice: &Notice, json: bool) -> String {
    let value = match notice {
        Notice::Acknowledged(filter) => json!({"notice": "acknowledged", "filter": filter}),
        Notice::ToolsListChanged => json!({"notice": "toolsListChanged"}),
        Notice::PromptsListChanged => json!({"notice": "promptsListChanged"}),
        Notice::ResourcesListChanged => json!({"notice": "resourcesListChanged"}),
        Notice::ResourceUpdated { uri } => json!({"notice": "resourceUpdated", "uri": uri}),
        Notice::Task(task) => json!({"notice": "task", "task": task}),
        Notice::Relistened => json!({"notice": "relistened"}),
        _ => json!({"notice": "unknown"}),
    };
    if json {
        return crate::shown::json_line(&value).unwrap_or_default();
    }
    match notice {
        Notice::Acknowledged(_) => style("listening").dim().to_string(),
        Notice::ToolsListChanged => "the tools changed".to_owned(),
        Notice::PromptsListChanged => "the prompts changed".to_owned(),
        Notice::ResourcesListChanged => "the resources changed".to_owned(),
        Notice::ResourceUpdated { uri } => format!("updated: {}", shown_line(uri)),
        Notice::Task(task) => format!("task: {}", crate::shown::json_line(task).unwrap_or_default()),
        Notice::Relistened => {
            style("the stream dropped and was opened again: anything may have changed").dim().to_string()
        }
        _ => crate::shown::json_line(&value).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_tool_names_its_view_and_an_app_only_tool_says_so() {
        let listed: Vec<Tool> = serde_json::from_value(json!([
            {"name": "board", "inputSchema": {"type": "object"}, "_meta": {"ui": {"resourceUri": "ui://b/board?v=1"}}},
            {"name": "tick", "inputSchema": {"type": "object"}, "_meta": {"ui": {"visibility": ["app"]}}}
        ]))
        .unwrap();
        let shown = console::strip_ansi_codes(&tools(&listed)).into_owned();
        assert_eq!(shown, "board\n  view: ui://b/board?v=1\ntick [for its view only]\n");
    }

    #[test]
    fn structured_content_is_printed_once() {
        // The JSON copy of the structured content: the structured content, pretty.
        let copied =
            result(json!({"content": [{"type": "text", "text": "{\"count\":2}"}], "structuredContent": {"count": 2}}));
        assert_eq!(call(&copied), "{\n  \"count\": 2\n}\n");
        // An SDK's wrapped lone value: its text alone.
        let wrapped =
            result(json!({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"result": "hi"}}));
        assert_eq!(call(&wrapped), "hi\n");
        // Text that says something else: both.
        let both = result(json!({"content": [{"type": "text", "text": "2 notes"}], "structuredContent": {"count": 2}}));
        assert_eq!(call(&both), "2 notes\n{\n  \"count\": 2\n}\n");
    }

    #[test]
    fn images_and_resources_are_summarised() {
        let blocks = result(json!({"content": [
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "notes://w/a", "name": "a", "mimeType": "text/markdown"},
            {"type": "resource", "resource": {"uri": "test://b", "mimeType": "application/pdf", "blob": "AAAAAAAA"}}]}));
        assert_eq!(
            call(&blocks),
            "[image: image/png, 3 bytes]\n[link: a <notes://w/a>, text/markdown]\n[resource test://b: application/pdf, 6 bytes]\n"
        );
    }
}
