//! Keeps `ARCHITECTURE.md` true: every top-level module of the runtime is in one layer of its
//! table, no module imports from a layer above its own, and no modules import each other in a
//! cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Module → layer number, from the table of `ARCHITECTURE.md`.
fn layers() -> BTreeMap<String, usize> {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let mut layers = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, layer, modules, _] = cells[..] else { continue };
        let Some(Ok(number)) = layer.split_whitespace().next().map(str::parse::<usize>) else { continue };
        for module in modules.split(',') {
            let module = module.trim().trim_matches('`');
            assert!(layers.insert(module.to_owned(), number).is_none(), "{module} is in two layers");
        }
    }
    assert!(!layers.is_empty(), "ARCHITECTURE.md has no table of layers");
    layers
}

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The top-level module a file belongs to (`src/tool/params.rs` → `tool`).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap();
    let first = relative.components().next().unwrap().as_os_str().to_str().unwrap();
    first.trim_end_matches(".rs").to_owned()
}

/// The code of a file without comments and string literals, where `crate::` cannot mean a path.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            // A char literal: skip it, so that '"' does not start a string.
            '\'' if chars.clone().nth(1) == Some('\'') => {
                chars.next();
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every `crate::name` the code refers to, `use crate::{a, b::c}` groups included.
fn referenced(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit()).collect()
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name = ident(item.trim());
                if !name.is_empty() {
                    found.insert(name);
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        let targets: Vec<String> = referenced(&code(&text))
            .into_iter()
            .filter(|t| modules.contains(t) && *t != module && t != "lib")
            .collect();
        graph.entry(module).or_default().extend(targets);
    }
    graph
}

#[test]
fn every_module_is_in_a_layer_and_imports_only_from_below() {
    let layers = layers();
    let graph = graph();
    let mut problems = Vec::new();
    for (module, targets) in &graph {
        if module == "lib" {
            continue;
        }
        let Some(&own) = layers.get(module) else {
            problems.push(format!("`{module}` is in no layer of ARCHITECTURE.md"));
            continue;
        };
        for target in targets {
            if layers.get(target).is_some_and(|&layer| layer > own) {
                problems.push(format!("`{module}` (layer {own}) imports `{target}` (layer {})", layers[target]));
            }
        }
    }
    for module in layers.keys() {
        if !graph.contains_key(module) {
            problems.push(format!("ARCHITECTURE.md lists `{module}`, which is no module of src/"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_modules_import_each_other_in_a_cycle() {
    let graph = graph();
    // Depth-first search for a back edge; the path to it is the cycle.
    fn visit<'a>(
        module: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| *m == module) {
            return Some(path[start..].iter().map(|m| m.to_string()).chain([module.to_owned()]).collect());
        }
        if !done.insert(module) {
            return None;
        }
        path.push(module);
        for target in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(target, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        if let Some(cycle) = visit(module, &graph, &mut Vec::new(), &mut done) {
            panic!("modules import each other: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_scanner_sees_paths_and_not_comments_or_strings() {
    let seen = referenced(&code(
        "use crate::error::Error;\nuse crate::{model, tool::ToolRoute};\n// crate::nope\nlet s = \"crate::no\";\nlet c = '\"'; crate::yes::X;",
    ));
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), ["error", "model", "tool", "yes"]);
}
