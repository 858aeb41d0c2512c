//! Reading the runtime's sources as the architecture test needs them: each file's code with
//! comments and string contents blanked, its string literals, the items compiled only for
//! tests, its identifiers, and the crate paths it names.

use std::path::{Path, PathBuf};

use super::ROOT;

/// One source file: its text, and its code with every comment and every string's contents
/// blanked (the same length, lines where they were), and its string literals.
pub struct Source {
    /// The path under `src/`, `/`-separated.
    pub path: String,
    pub code: String,
    /// Each string literal's byte offset and value (escapes left as written).
    pub literals: Vec<(usize, String)>,
}

impl Source {
    fn read(src: &Path, file: &Path) -> Self {
        let text = std::fs::read_to_string(file).unwrap();
        let path = file.strip_prefix(src).unwrap().to_str().unwrap().replace('\\', "/");
        let (code, literals) = scan(&text);
        Source { path, code, literals }
    }

    /// The top-level module it belongs to (`tool/params.rs` → `tool`).
    pub fn module(&self) -> &str {
        let first = self.path.split('/').next().unwrap();
        first.strip_suffix(".rs").unwrap_or(first)
    }

    /// Its module path (`tool/params.rs` → `tool::params`, `tool/mod.rs` → `tool`).
    pub fn module_path(&self) -> Vec<String> {
        let mut parts: Vec<String> = self.path.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        parts
    }

    /// Whether the whole file is test code.
    pub fn is_test_file(&self) -> bool {
        self.path.split('/').any(|part| part == "tests.rs" || part == "tests")
    }

    /// Byte ranges of code compiled only for tests: the item after each `#[cfg(test)]`.
    pub fn test_ranges(&self) -> Vec<std::ops::Range<usize>> {
        let bytes = self.code.as_bytes();
        let mut ranges = Vec::new();
        for (at, _) in self.code.match_indices("#[cfg(test)]") {
            let mut i = at;
            let mut depth = 0usize;
            while i < bytes.len() {
                match bytes[i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    b';' if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
            ranges.push(at..i + 1);
        }
        ranges
    }

    pub fn line_of(&self, offset: usize) -> usize {
        self.code[..offset].matches('\n').count() + 1
    }
}

/// Blanks comments and the insides of string and character literals, and collects the string
/// literals: raw strings (`r#"…"#`) and byte strings included.
pub fn scan(text: &str) -> (String, Vec<(usize, String)>) {
    let bytes = text.as_bytes();
    let mut code = bytes.to_vec();
    let mut literals = Vec::new();
    let blank = |code: &mut Vec<u8>, range: std::ops::Range<usize>| {
        for b in &mut code[range] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                blank(&mut code, i..end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < bytes.len() && depth > 0 {
                    if bytes[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if bytes[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut code, i..j);
                i = j;
            }
            b'r' | b'b' if i == 0 || !is_ident(bytes[i - 1]) => {
                // `r"…"`, `r#"…"#`, `b"…"`, `br#"…"#`.
                let mut j = i + 1;
                if bytes[i] == b'b' && bytes.get(j) == Some(&b'r') {
                    j += 1;
                }
                let raw = bytes[i] == b'r' || j == i + 2;
                let hashes = bytes[j..].iter().take_while(|b| **b == b'#').count();
                if bytes.get(j + hashes) == Some(&b'"') && (raw || hashes == 0) {
                    let start = j + hashes + 1;
                    let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                    let end = if raw {
                        start + text[start..].find(std::str::from_utf8(&close).unwrap()).unwrap()
                    } else {
                        string_end(bytes, start)
                    };
                    literals.push((i, text[start..end].to_owned()));
                    blank(&mut code, start..end);
                    i = end + close.len();
                } else {
                    i += 1;
                }
            }
            b'"' => {
                let end = string_end(bytes, i + 1);
                literals.push((i, text[i + 1..end].to_owned()));
                blank(&mut code, i + 1..end);
                i = end + 1;
            }
            // A character literal, not a lifetime: `'x'`, `'\n'`, `'\u{1F600}'`, `'"'`.
            b'\'' => {
                let rest = &text[i + 1..];
                let length = if rest.starts_with('\\') {
                    rest.get(2..).and_then(|after| after.find('\'')).map(|n| n + 2)
                } else {
                    let c = rest.chars().next();
                    c.filter(|c| rest[c.len_utf8()..].starts_with('\'')).map(char::len_utf8)
                };
                match length {
                    Some(length) => {
                        blank(&mut code, i + 1..i + 1 + length);
                        i += length + 2;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    (String::from_utf8(code).unwrap(), literals)
}

/// Where the string that starts at `start` ends (the offset of its closing quote).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut j = start;
    while bytes[j] != b'"' {
        j += if bytes[j] == b'\\' { 2 } else { 1 };
    }
    j
}

pub fn sources() -> Vec<Source> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files.sort();
    files.iter().map(|file| Source::read(&src, file)).collect()
}

/// The identifiers of some code, in order, with their offsets.
pub fn identifiers(code: &str) -> Vec<(usize, &str)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        if !bytes[start].is_ascii_digit() {
            found.push((start, &code[start..i]));
        }
    }
    found
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every path written in some code that starts with `crate::`, `super::` or `self::`, `use`
/// groups expanded: `use crate::{a, b::{c, d}}` → `crate::a`, `crate::b::c`, `crate::b::d`.
pub fn paths(code: &str) -> Vec<Vec<String>> {
    fn expand(tree: &str) -> Vec<String> {
        let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(open) = tree.find('{') else { return vec![tree] };
        let (prefix, inner) = (&tree[..open], &tree[open + 1..tree.len() - 1]);
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        parts
            .into_iter()
            .filter(|p| !p.is_empty())
            .flat_map(|p| expand(p).into_iter().map(|q| format!("{prefix}{q}")))
            .collect()
    }
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before_ok = at == 0 || !is_ident(rest.as_bytes()[at - 1]);
        let after = &rest[at + 4..];
        if before_ok && let Some(end) = after.find(';') {
            found.extend(expand(&after[..end]));
        }
        rest = &rest[at + 4..];
    }
    for (at, word) in identifiers(code) {
        if matches!(word, "crate" | "super" | "self") && code[at + word.len()..].starts_with("::") {
            let end = code[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |n| at + n);
            found.push(code[at..end].to_owned());
        }
    }
    found
        .into_iter()
        .map(|path| path.split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect::<Vec<_>>())
        .filter(|segments| segments.len() > 1)
        .filter(|segments| matches!(segments.first().map(String::as_str), Some("crate" | "super" | "self")))
        .collect()
}
