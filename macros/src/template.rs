//! URI templates, checked at compile time: the same grammar the runtime matches, so a template
//! that compiles is one the server can serve.

/// The variable names of a template, or why it is not one.
pub fn variables(template: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = template;
    let mut last_was_variable = false;
    if !template.contains(':') {
        return Err(format!("`{template}` is not a URI: it needs a scheme, like `notes://...`"));
    }
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('{') {
            let close = after.find('}').ok_or("a `{` is never closed")?;
            let mut expr = &after[..close];
            if let Some(stripped) = expr.strip_prefix('+') {
                expr = stripped;
            }
            if let Some(op) = expr.chars().next().filter(|c| "#./;?&=,!@|".contains(*c)) {
                return Err(format!("the `{op}` operator is not supported; use {{name}} or {{+name}}"));
            }
            if expr.is_empty() || !expr.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(format!("`{{{expr}}}` is not a variable name: use letters, digits and _"));
            }
            if names.iter().any(|n| n == expr) {
                return Err(format!("variable `{expr}` appears twice"));
            }
            if last_was_variable {
                return Err("two variables need a literal between them, or the URI is ambiguous".into());
            }
            names.push(expr.to_owned());
            last_was_variable = true;
            rest = &after[close + 1..];
        } else {
            let end = rest.find('{').unwrap_or(rest.len());
            if rest[..end].contains('}') {
                return Err("a `}` has no matching `{`".into());
            }
            last_was_variable = false;
            rest = &rest[end..];
        }
    }
    Ok(names)
}
