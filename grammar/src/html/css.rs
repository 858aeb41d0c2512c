//! The URLs a piece of CSS loads: `url(...)` and `@import`, read past comments and strings
//! and with escapes resolved, as a browser's CSS tokenizer reads them (so `\2f` cannot hide a
//! `/`). Only what the check needs: it never fails, and it ignores everything else.

use alloc::string::String;
use alloc::vec::Vec;

use super::Css;

/// Each URL `css` loads, in order, with how it is written.
pub(super) fn urls(css: &str) -> Vec<(Css, String)> {
    let bytes = css.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let ahead = &bytes[i..];
        if ahead.starts_with(b"/*") {
            i = css[i + 2..].find("*/").map_or(bytes.len(), |end| i + 2 + end + 2);
        } else if matches!(ahead[0], b'"' | b'\'') {
            // A string outside `url(` and `@import` is text (`content: "url(x)"`), not a fetch.
            i = string(css, i).1;
        } else if ahead[0] == b'\\' {
            i += 2;
        } else if starts_with_ignoring_case(ahead, b"@import") {
            i = skip_blanks(css, i + 7);
            let (url, end) = if matches!(bytes.get(i), Some(b'"' | b'\'')) {
                string(css, i)
            } else if starts_with_ignoring_case(&bytes[i..], b"url(") {
                url(css, i + 4)
            } else {
                continue;
            };
            found.push((Css::Import, url));
            i = end;
        } else if starts_with_ignoring_case(ahead, b"url(") && (i == 0 || !is_name_byte(bytes[i - 1])) {
            let (url, end) = url(css, i + 4);
            found.push((Css::Url, url));
            i = end;
        } else {
            i += 1;
        }
    }
    found
}

/// The string starting at the quote at `start`, unescaped, and where it ends.
fn string(css: &str, start: usize) -> (String, usize) {
    let bytes = css.as_bytes();
    let quote = bytes[start];
    let mut value = String::new();
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b if b == quote => return (value, i + 1),
            // An unescaped newline ends a string early (a bad string, to CSS).
            b'\n' => return (value, i),
            b'\\' => i = escape(css, i + 1, &mut value),
            _ => i = push_char(css, i, &mut value),
        }
    }
    (value, i)
}

/// The URL of `url(` whose argument starts at `start`, unescaped and trimmed, and where the
/// call ends.
fn url(css: &str, start: usize) -> (String, usize) {
    let bytes = css.as_bytes();
    let mut i = skip_whitespace(bytes, start);
    if matches!(bytes.get(i), Some(b'"' | b'\'')) {
        let (value, end) = string(css, i);
        let close = css[end..].find(')').map_or(bytes.len(), |at| end + at + 1);
        return (value, close);
    }
    let mut value = String::new();
    while let Some(&b) = bytes.get(i) {
        match b {
            b')' => return (String::from(value.trim_end()), i + 1),
            b'\\' => i = escape(css, i + 1, &mut value),
            _ => i = push_char(css, i, &mut value),
        }
    }
    (String::from(value.trim_end()), i)
}

/// Resolves the escape whose backslash is just before `i` into `value`; returns where it ends.
fn escape(css: &str, i: usize, value: &mut String) -> usize {
    let bytes = css.as_bytes();
    let digits = bytes[i..].iter().take(6).take_while(|b| b.is_ascii_hexdigit()).count();
    if digits == 0 {
        return match bytes.get(i) {
            None => i,
            // An escaped newline continues the string onto the next line.
            Some(b'\n') => i + 1,
            Some(_) => push_char(css, i, value),
        };
    }
    let code = u32::from_str_radix(&css[i..i + digits], 16).unwrap_or(0);
    value.push(char::from_u32(code).filter(|&c| c != '\0').unwrap_or(char::REPLACEMENT_CHARACTER));
    let end = i + digits;
    match bytes.get(end) {
        Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
        Some(b) if b.is_ascii_whitespace() => end + 1,
        _ => end,
    }
}

fn push_char(css: &str, i: usize, value: &mut String) -> usize {
    let c = css[i..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
    value.push(c);
    i + c.len_utf8()
}

fn skip_whitespace(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// Past whitespace and comments, where `@import`'s URL starts.
fn skip_blanks(css: &str, mut i: usize) -> usize {
    loop {
        i = skip_whitespace(css.as_bytes(), i);
        if !css[i..].starts_with("/*") {
            return i;
        }
        i = css[i + 2..].find("*/").map_or(css.len(), |end| i + 2 + end + 2);
    }
}

fn starts_with_ignoring_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.get(..prefix.len()).is_some_and(|start| start.eq_ignore_ascii_case(prefix))
}

/// Whether `b` can be part of a CSS name, so that `url(` after it is not the function.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'\\') || b >= 0x80
}
