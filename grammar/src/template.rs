//! RFC 6570 URI templates, the subset resources need: `{var}` (one path segment's worth of
//! unreserved characters) and `{+var}` (reserved expansion, may span `/`). Parsing only: how a
//! URI matches a template is the runtime's business.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One piece of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Text matched as it is.
    Literal(String),
    /// A variable: `{name}`, or `{+name}` when `reserved`.
    Var {
        /// Its name.
        name: String,
        /// Whether it may contain reserved characters such as `/`.
        reserved: bool,
    },
}

/// The parts of `template`, or why it is not a template this framework supports (a sentence
/// without the template itself, which the caller adds where it helps).
///
/// ```
/// use mcp_rounds_grammar::template::{Part, parse};
///
/// let parts = parse("notes://{workspace}/{id}").unwrap();
/// assert_eq!(parts[1], Part::Var { name: "workspace".into(), reserved: false });
/// assert!(parse("notes://{a}{b}").unwrap_err().contains("literal between them"));
/// ```
pub fn parse(template: &str) -> Result<Vec<Part>, String> {
    if !template.contains(':') {
        return Err(format!("`{template}` is not a URI: it needs a scheme, like `notes://...`"));
    }
    let mut parts = Vec::new();
    let mut rest = template;
    let mut names: Vec<&str> = Vec::new();
    while !rest.is_empty() {
        match rest.find('{') {
            Some(0) => {
                let close = rest.find('}').ok_or_else(|| String::from("a `{` is never closed"))?;
                let mut expr = &rest[1..close];
                let reserved = expr.starts_with('+');
                if reserved {
                    expr = &expr[1..];
                }
                if let Some(op) = expr.chars().next().filter(|c| "#./;?&=,!@|".contains(*c)) {
                    return Err(format!("the `{op}` operator is not supported; use {{name}} or {{+name}}"));
                }
                if expr.is_empty() || !expr.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    return Err(format!("`{{{expr}}}` is not a variable name: use letters, digits and _"));
                }
                if names.contains(&expr) {
                    return Err(format!("variable `{expr}` appears twice"));
                }
                if matches!(parts.last(), Some(Part::Var { .. })) {
                    return Err("two variables need a literal between them, or the URI is ambiguous".to_owned());
                }
                names.push(expr);
                parts.push(Part::Var { name: expr.to_owned(), reserved });
                rest = &rest[close + 1..];
            }
            found => {
                let end = found.unwrap_or(rest.len());
                let literal = &rest[..end];
                if literal.contains('}') {
                    return Err("a `}` has no matching `{`".to_owned());
                }
                check_literal(literal)?;
                parts.push(Part::Literal(literal.to_owned()));
                rest = &rest[end..];
            }
        }
    }
    Ok(parts)
}

/// A literal is URI text: a `%` starts a percent-escape, and spaces and control characters are
/// written escaped. (A literal ending in half an escape would match text no expansion writes.)
fn check_literal(literal: &str) -> Result<(), String> {
    let bytes = literal.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'%' && !(bytes.len() > i + 2 && bytes[i + 1].is_ascii_hexdigit() && bytes[i + 2].is_ascii_hexdigit())
        {
            return Err(format!("`{literal}`: a `%` must start a percent-escape like `%20`"));
        }
        if b.is_ascii_control() || *b == b' ' {
            return Err(format!("`{literal}`: write a space or a control character percent-escaped, like `%20`"));
        }
    }
    Ok(())
}

/// The variable names of `template`, in order.
pub fn variables(template: &str) -> Result<Vec<String>, String> {
    Ok(parse(template)?
        .into_iter()
        .filter_map(|part| match part {
            Part::Var { name, .. } => Some(name),
            Part::Literal(_) => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mistake_has_its_own_message() {
        let cases = [
            ("notes/{id}", "needs a scheme"),
            ("notes://{id", "never closed"),
            ("notes://id}", "no matching"),
            ("notes://{#id}", "operator is not supported"),
            ("notes://{i d}", "not a variable name"),
            ("notes://{}", "not a variable name"),
            ("notes://{a}/{a}", "appears twice"),
            ("notes://{a}{b}", "literal between them"),
            // Found by fuzzing: half an escape in a literal matched what no expansion writes.
            ("notes://x%2{a}", "percent-escape"),
            ("notes://x%zz/{a}", "percent-escape"),
            ("notes://a b/{a}", "percent-escaped"),
            ("notes://a\u{1}b/{a}", "percent-escaped"),
        ];
        for (template, expected) in cases {
            let error = parse(template).unwrap_err();
            assert!(error.contains(expected), "{template}: {error}");
        }
        assert_eq!(variables("file:///{+path}/x/{name}").unwrap(), ["path", "name"]);
    }
}
