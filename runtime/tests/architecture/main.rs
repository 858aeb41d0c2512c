//! Keeps `ARCHITECTURE.md` true: every top-level module of the runtime is in one layer of its
//! table, no module imports from a layer above its own, neither modules nor files import each
//! other in a cycle, no two types share a name, only the method table spells a method's name,
//! only the observation layer observes, and a layer never names what the document says it
//! does not know.

mod scan;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use mcp_rounds::method::Method;
use scan::{Source, identifiers, paths, scan, sources};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn document() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap()
}

/// The rows of the document's tables: each row's cells, trimmed.
fn rows(doc: &str) -> impl Iterator<Item = Vec<&str>> {
    doc.lines().filter(|line| line.starts_with('|')).map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        cells[1..cells.len() - 1].to_vec()
    })
}

/// Backquoted names in a cell: "`a`, `b`" → [a, b].
fn names(cell: &str) -> impl Iterator<Item = &str> {
    cell.split(',').map(|name| name.trim().trim_matches('`')).filter(|name| !name.is_empty())
}

/// Module → (layer number, layer name), from the table of layers.
fn layers() -> BTreeMap<String, (usize, String)> {
    let doc = document();
    let mut layers = BTreeMap::new();
    for cells in rows(&doc) {
        let [layer, modules] = cells[..] else { continue };
        let mut words = layer.split_whitespace();
        let Some(Ok(number)) = words.next().map(str::parse::<usize>) else { continue };
        let name = words.next().unwrap_or_default().to_owned();
        for module in names(modules) {
            assert!(layers.insert(module.to_owned(), (number, name.clone())).is_none(), "{module} is in two layers");
        }
    }
    assert!(!layers.is_empty(), "ARCHITECTURE.md has no table of layers");
    layers
}

/// Module → the modules its files refer to.
fn module_graph(sources: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<&str> = sources.iter().map(Source::module).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for source in sources {
        let module = source.module();
        let targets = paths(&source.code)
            .into_iter()
            .filter(|path| path[0] == "crate" && path.len() > 1)
            .map(|path| path[1].clone())
            .filter(|target| modules.contains(target.as_str()) && target != module && target != "lib");
        graph.entry(module.to_owned()).or_default().extend(targets);
    }
    graph
}

/// A cycle in `graph`, if it has one: the nodes along it, the first one again at the end.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|n| *n == node) {
            return Some(path[start..].iter().map(|n| n.to_string()).chain([node.to_owned()]).collect());
        }
        if !done.insert(node) {
            return None;
        }
        path.push(node);
        for target in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(target, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn every_module_is_in_a_layer_and_imports_only_from_below() {
    let layers = layers();
    let graph = module_graph(&sources());
    let mut problems = Vec::new();
    for (module, targets) in &graph {
        if module == "lib" {
            continue;
        }
        let Some((own, _)) = layers.get(module) else {
            problems.push(format!("`{module}` is in no layer of ARCHITECTURE.md"));
            continue;
        };
        for target in targets {
            if let Some((layer, _)) = layers.get(target).filter(|(layer, _)| layer > own) {
                problems.push(format!("`{module}` (layer {own}) imports `{target}` (layer {layer})"));
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
fn the_two_sides_never_import_each_other() {
    let doc = document();
    let layers = layers();
    let graph = module_graph(&sources());
    let of = |cell: &str| -> BTreeSet<String> {
        let named: BTreeSet<&str> = cell.split(',').map(str::trim).collect();
        layers.iter().filter(|(_, (_, name))| named.contains(name.as_str())).map(|(m, _)| m.clone()).collect()
    };
    let mut rules = 0;
    let mut problems = Vec::new();
    for cells in rows(&doc) {
        let [from, "never imports", to] = cells[..] else { continue };
        let (from, to) = (of(from), of(to));
        assert!(!from.is_empty() && !to.is_empty(), "a rule names no layer of the table: {cells:?}");
        rules += 1;
        for module in &from {
            for target in graph.get(module).into_iter().flatten().filter(|t| to.contains(*t)) {
                problems.push(format!("`{module}` imports `{target}`"));
            }
        }
    }
    assert!(rules >= 2, "ARCHITECTURE.md says nothing of the two sides");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_modules_import_each_other_in_a_cycle() {
    if let Some(cycle) = cycle(&module_graph(&sources())) {
        panic!("modules import each other: {}", cycle.join(" -> "));
    }
}

#[test]
fn no_files_import_each_other_in_a_cycle() {
    let sources: Vec<Source> = sources().into_iter().filter(|s| !s.is_test_file() && s.path != "lib.rs").collect();
    let by_module: BTreeMap<Vec<String>, &str> = sources.iter().map(|s| (s.module_path(), s.path.as_str())).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for source in &sources {
        let here = source.module_path();
        let edges = graph.entry(source.path.clone()).or_default();
        for path in paths(&source.code) {
            let (mut base, mut rest) = (Vec::new(), &path[..]);
            if rest[0] == "crate" {
                rest = &rest[1..];
            } else {
                base = here.clone();
                while let Some(first) = rest.first().filter(|s| *s == "super" || *s == "self") {
                    if first == "super" {
                        base.pop();
                    }
                    rest = &rest[1..];
                }
            }
            // The file of the longest module prefix the path names.
            let target = (0..=rest.len()).rev().find_map(|n| {
                let module: Vec<String> = base.iter().chain(&rest[..n]).cloned().collect();
                by_module.get(&module).map(|file| (module, *file))
            });
            let Some((module, file)) = target else { continue };
            // A file and a `mod.rs` above it are parts of one module, not a cycle.
            if file == source.path || here.starts_with(&module) || module.starts_with(&here) {
                continue;
            }
            edges.insert(file.to_owned());
        }
    }
    if let Some(cycle) = cycle(&graph) {
        panic!("files import each other: {}", cycle.join(" -> "));
    }
}

#[test]
fn no_two_types_share_a_name() {
    // Name → where it is defined, and whether a `cfg` chooses that definition.
    let mut defined: BTreeMap<String, Vec<(String, usize, bool)>> = BTreeMap::new();
    for source in sources() {
        let words = identifiers(&source.code);
        for pair in words.windows(2) {
            let [(at, keyword), (_, name)] = pair else { continue };
            if !matches!(*keyword, "struct" | "enum" | "trait" | "union" | "type") {
                continue;
            }
            let line_start = source.code[..*at].rfind('\n').map_or(0, |n| n + 1);
            // An associated type (`type Output = …;` in an impl) is no type of the crate's own.
            if *keyword == "type" && source.code[line_start..*at].starts_with(char::is_whitespace) {
                continue;
            }
            // The attributes right above it.
            let above: Vec<&str> = source.code[..line_start]
                .lines()
                .rev()
                .map(str::trim)
                .take_while(|line| line.is_empty() || line.starts_with("#["))
                .collect();
            let chosen = above.iter().any(|line| line.starts_with("#[cfg("));
            defined.entry((*name).to_owned()).or_default().push((source.path.clone(), source.line_of(*at), chosen));
        }
    }
    let mut problems = Vec::new();
    for (name, places) in defined {
        let files: BTreeSet<&str> = places.iter().map(|(file, ..)| file.as_str()).collect();
        // Alternatives of one type in one file, each chosen by `cfg`, are one type.
        let alternatives = files.len() == 1 && places.iter().all(|(.., chosen)| *chosen);
        if places.len() > 1 && !alternatives {
            let at: Vec<String> = places.iter().map(|(file, line, _)| format!("{file}:{line}")).collect();
            problems.push(format!("`{name}` names {} types: {}", places.len(), at.join(", ")));
        }
    }
    assert!(problems.is_empty(), "one name, one type:\n{}", problems.join("\n"));
}

#[test]
fn only_the_method_table_spells_a_methods_name() {
    let methods: BTreeSet<&str> = Method::ALL.iter().map(|method| method.name()).collect();
    let mut problems = Vec::new();
    for source in sources().iter().filter(|s| !s.is_test_file() && s.path != "method/table.rs") {
        let tests = source.test_ranges();
        for (at, value) in &source.literals {
            if methods.contains(value.as_str()) && !tests.iter().any(|range| range.contains(at)) {
                problems.push(format!("{}:{}: \"{value}\"", source.path, source.line_of(*at)));
            }
        }
    }
    assert!(problems.is_empty(), "method names spelled outside the method table:\n{}", problems.join("\n"));
}

#[test]
fn only_the_observation_layer_observes() {
    let mut problems = Vec::new();
    for source in sources().iter().filter(|s| !s.is_test_file()) {
        let tests = source.test_ranges();
        let outside_tests = |pattern: &str| {
            source.code.match_indices(pattern).any(|(at, _)| !tests.iter().any(|range| range.contains(&at)))
        };
        if outside_tests("Observed::start") && source.path != "middleware/telemetry.rs" {
            problems.push(format!("{} starts an observation", source.path));
        }
        let observes = outside_tests("telemetry::observe") || outside_tests("telemetry::within");
        if observes && source.path != "server/mod.rs" {
            problems.push(format!("{} calls the observation layer", source.path));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_layer_never_names_what_the_document_says_it_does_not_know() {
    let doc = document();
    let layers = layers();
    let mut rules = 0;
    let mut problems = Vec::new();
    let sources = sources();
    for cells in rows(&doc) {
        let [layer, identifiers_cell] = cells[..] else { continue };
        let modules: BTreeSet<&str> =
            layers.iter().filter(|(_, (_, name))| name == layer).map(|(module, _)| module.as_str()).collect();
        if modules.is_empty() {
            continue;
        }
        rules += 1;
        let banned: BTreeSet<&str> = names(identifiers_cell).collect();
        for source in sources.iter().filter(|s| modules.contains(s.module()) && !s.is_test_file()) {
            let tests = source.test_ranges();
            for (at, word) in identifiers(&source.code) {
                if banned.contains(word) && !tests.iter().any(|range| range.contains(&at)) {
                    problems.push(format!("{}:{}: the {layer} layer names `{word}`", source.path, source.line_of(at)));
                }
            }
        }
    }
    assert!(rules > 0, "ARCHITECTURE.md says no layer never names anything");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scanner_sees_paths_literals_and_types_and_not_comments_or_strings() {
    let text = "use crate::error::Error;\nuse crate::{model, tool::{ToolRoute, x}};\n// crate::nope \"tools/call\"\n\
                let s = \"crate::no\"; let r = r#\"a \"quoted\" crate::no\"#;\nlet c = '\"'; crate::yes::X; super::sib::Y;\n\
                /* struct Hidden */ fn f<'a>(x: &'a str) {}";
    let (code, literals) = scan(text);
    let seen: BTreeSet<String> = paths(&code).into_iter().map(|p| p.join("::")).collect();
    let expected = [
        "crate::error::Error",
        "crate::model",
        "crate::tool::ToolRoute",
        "crate::tool::x",
        "crate::yes::X",
        "super::sib::Y",
    ];
    assert_eq!(seen, expected.iter().map(|s| s.to_string()).collect());
    let values: Vec<&str> = literals.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(values, ["crate::no", "a \"quoted\" crate::no"]);
    assert!(!code.contains("Hidden") && code.contains("fn f<'a>"));
    assert_eq!(code.len(), text.len());
}
