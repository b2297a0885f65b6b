//! The library's modules import each other one way: no import cycle among
//! more than [`MAX_CYCLE_FILES`] files of `src/`, and no pass imports the
//! renderer that runs it.
//!
//! The graph is read from the source text: `use` trees rooted at `crate`,
//! `super`, `self` or a child module, and paths such as `crate::a::B`
//! written inline. Each path goes to the file that defines the name it
//! ends in: the deepest module file on the path, followed through that
//! file's re-exports (`pub use`), so `crate::Renderer` is an arrow to
//! `src/renderer/mod.rs` and `crate::passes::cull::CullPass` one to
//! `src/passes/cull.rs`. A re-export alone is no arrow: a parent module that
//! only hands its children's names on depends on nothing. Unit tests
//! inside a file (`#[cfg(test)] mod tests`) are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The largest import cycle allowed: a parent module and a child or two that
/// share its private items.
const MAX_CYCLE_FILES: usize = 3;

/// A module path (`["passes", "cull"]`) for every `.rs` file under `dir`.
fn modules(dir: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<Vec<String>, PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap().with_extension("");
                let mut segments: Vec<String> = relative
                    .iter()
                    .map(|s| s.to_string_lossy().into_owned())
                    .collect();
                if matches!(segments.last().map(String::as_str), Some("mod" | "lib")) {
                    segments.pop();
                }
                out.insert(segments, path);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `source` without comments, string literals and unit-test modules.
fn code_of(source: &str) -> String {
    let source = match source.find("#[cfg(test)]\nmod tests") {
        Some(at) => &source[..at],
        None => source,
    };
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |end| end + 2);
        } else if rest.starts_with("'\"'") {
            out.push_str("' '");
            i += 3;
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += (j + 1).min(rest.len());
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The paths a `use` tree names: `a::{b::C, d}` gives `a::b::C` and `a::d`.
fn expand_use_tree(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(&tree);
        return vec![path.split("as").next().unwrap_or(path).to_owned()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand_use_tree(p))
        .map(|p| format!("{prefix}{p}"))
        .collect()
}

/// One `use` statement's paths, made absolute, and whether it re-exports
/// (`pub use`, `pub(crate) use`).
struct UseStatement {
    paths: Vec<Vec<String>>,
    reexport: bool,
}

/// `path` (`crate::a::B`, `super::c`, `child::D`) as an absolute module
/// path from module `module`; `None` for an external crate or a bare
/// `crate`/`super`.
fn absolute(path: &str, module: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (first, mut tail) = segments.split_first()?;
    let mut absolute: Vec<String> = match *first {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().saturating_sub(1)].to_vec(),
        child if children.contains(child) => {
            let mut here = module.to_vec();
            here.push(child.to_owned());
            here
        }
        _ => return None,
    };
    while let Some((&"super", more)) = tail.split_first() {
        absolute.pop();
        tail = more;
    }
    if tail.is_empty() {
        return None;
    }
    absolute.extend(tail.iter().map(|s| (*s).to_owned()));
    Some(absolute)
}

/// The `use` statements of `code` (of module `module`).
fn use_statements(code: &str, module: &[String], children: &BTreeSet<String>) -> Vec<UseStatement> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let after = &rest[at + 4..];
        rest = after;
        if before
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let Some(end) = after.find(';') else { continue };
        let reexport = before.trim_end().ends_with("pub") || before.trim_end().ends_with(')');
        let paths = expand_use_tree(&after[..end])
            .iter()
            .filter_map(|p| absolute(p, module, children))
            .collect();
        out.push(UseStatement { paths, reexport });
    }
    out
}

/// Paths written inline in `code`: `crate::a::b()`, `super::C`.
fn inline_paths(code: &str, module: &[String], children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for root in ["crate::", "super::"] {
        let mut rest = code;
        while let Some(at) = rest.find(root) {
            let before = rest[..at].chars().last();
            let path: String = rest[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            rest = &rest[at + root.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '{') {
                continue;
            }
            out.extend(absolute(&path, module, children));
        }
    }
    out
}

/// The names `code` defines at any depth (`fn`, `struct`, `const`, …):
/// enough to tell a file's own items from those it re-exports.
fn defined_names(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let code = code.replace("'static", "'lifetime");
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if matches!(
            pair[0],
            "fn" | "struct"
                | "enum"
                | "const"
                | "static"
                | "type"
                | "trait"
                | "mod"
                | "union"
                | "macro_rules!"
        ) {
            names.insert(pair[1].to_owned());
        }
    }
    names
}

/// What the graph reader knows of one file.
struct FileFacts {
    file: PathBuf,
    defines: BTreeSet<String>,
    /// Name -> the absolute path it re-exports.
    reexports: BTreeMap<String, Vec<String>>,
    /// Modules re-exported whole (`pub use a::*`).
    globs: Vec<Vec<String>>,
    /// What the file's own code imports or names.
    imports: Vec<Vec<String>>,
}

fn file_facts(
    code: &str,
    file: &Path,
    module: &[String],
    children: &BTreeSet<String>,
) -> FileFacts {
    let mut facts = FileFacts {
        file: file.to_owned(),
        defines: defined_names(code),
        reexports: BTreeMap::new(),
        globs: Vec::new(),
        imports: Vec::new(),
    };
    for statement in use_statements(code, module, children) {
        if statement.reexport {
            for path in statement.paths {
                match path.last().map(String::as_str) {
                    Some("*") => facts.globs.push(path[..path.len() - 1].to_vec()),
                    Some(name) => {
                        facts.reexports.insert(name.to_owned(), path);
                    }
                    None => {}
                }
            }
        } else {
            facts.imports.extend(
                statement
                    .paths
                    .into_iter()
                    .filter(|p| p.last().is_some_and(|n| n != "*")),
            );
        }
    }
    facts.imports.extend(inline_paths(code, module, children));
    facts
}

/// The file that defines what `path` names: the deepest module file on the
/// path, followed through its re-exports (`pub use`) to where the name is
/// defined.
fn resolve<'f>(
    path: &[String],
    files: &'f BTreeMap<Vec<String>, FileFacts>,
    depth: u32,
) -> &'f FileFacts {
    let n = (0..=path.len())
        .rev()
        .find(|n| files.contains_key(&path[..*n]))
        .expect("the crate root is a module");
    let facts = &files[&path[..n]];
    let Some(name) = path.get(n) else {
        return facts;
    };
    if depth > 16 || facts.defines.contains(name) {
        return facts;
    }
    if let Some(source) = facts.reexports.get(name) {
        let mut next = source.clone();
        next.extend_from_slice(&path[n + 1..]);
        return resolve(&next, files, depth + 1);
    }
    for glob in &facts.globs {
        let mut next = glob.clone();
        next.extend_from_slice(&path[n..]);
        let found = resolve(&next, files, depth + 1);
        if found.defines.contains(name) {
            return found;
        }
    }
    facts
}

/// The import graph of `src/`: file -> files whose items it uses -> the
/// paths that name them.
/// Re-exports are followed, not counted: a file that imports a name
/// through a parent module's re-export depends on the file that defines it.
fn import_graph() -> BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    let mut files = BTreeMap::new();
    for (module, file) in &modules {
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m.last().unwrap().clone())
            .collect();
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        files.insert(module.clone(), file_facts(&code, file, module, &children));
    }
    let mut graph = BTreeMap::new();
    for facts in files.values() {
        let mut targets: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
        for path in &facts.imports {
            let target = &resolve(path, &files, 0).file;
            if *target != facts.file && !target.ends_with("lib.rs") {
                let name = path.join("::");
                targets.entry(target.clone()).or_default().insert(name);
            }
        }
        graph.insert(facts.file.clone(), targets);
    }
    graph
}

/// The strongly connected components of `graph` with more than one file
/// (Tarjan's algorithm).
fn cycles<T>(graph: &BTreeMap<PathBuf, BTreeMap<PathBuf, T>>) -> Vec<Vec<PathBuf>> {
    struct State<'g, T> {
        graph: &'g BTreeMap<PathBuf, BTreeMap<PathBuf, T>>,
        index: BTreeMap<&'g PathBuf, usize>,
        low: BTreeMap<&'g PathBuf, usize>,
        stack: Vec<&'g PathBuf>,
        on_stack: BTreeSet<&'g PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'g, T>(s: &mut State<'g, T>, v: &'g PathBuf) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph[v].keys() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.out
}

fn relative(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn no_import_cycle_spans_more_than_three_files() {
    let graph = import_graph();
    let mut report = String::new();
    for cycle in cycles(&graph) {
        if cycle.len() <= MAX_CYCLE_FILES {
            continue;
        }
        report += &format!("a cycle of {} files:\n", cycle.len());
        for from in &cycle {
            for (to, names) in graph[from].iter().filter(|(to, _)| cycle.contains(to)) {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let (from, to) = (relative(from), relative(to));
                report += &format!("  {from} -> {to}: {}\n", names.join(", "));
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn no_pass_imports_the_renderer() {
    let graph = import_graph();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (passes, renderer) = (src.join("passes"), src.join("renderer"));
    let upward: Vec<String> = graph
        .iter()
        .filter(|(from, _)| from.starts_with(&passes))
        .flat_map(|(from, to)| {
            to.keys()
                .filter(|to| to.starts_with(&renderer))
                .map(move |to| format!("{} -> {}", relative(from), relative(to)))
        })
        .collect();
    assert!(upward.is_empty(), "{upward:#?}");
}

/// The reader and the cycle finder on a made-up crate: paths from a `use`
/// tree, a `super` path, an inline `crate::` path and a child module;
/// comments, strings and unit tests skipped; a re-export followed to the
/// file that defines the name; a cycle of three found.
#[test]
fn the_graph_reader_finds_a_made_up_cycle() {
    let module = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
    let children = BTreeSet::from(["child".to_owned()]);
    let code = code_of(
        "use crate::{a::B, c::{d::E, F}};\n// use crate::commented::Out;\nfn f() { crate::g::h(); let s = \"crate::in_string\"; super::x::Y; }\npub use child::Z;\nuse child::W;\n#[cfg(test)]\nmod tests { use crate::tested::T; }",
    );
    let facts = file_facts(&code, Path::new("p/q.rs"), &module("p::q"), &children);
    let imports: BTreeSet<String> = facts.imports.iter().map(|p| p.join("::")).collect();
    let expected = [
        "a::B",
        "c::d::E",
        "c::F",
        "g::h",
        "p::x::Y",
        "p::q::child::W",
    ];
    assert_eq!(imports, expected.iter().map(|s| (*s).to_owned()).collect());
    assert_eq!(facts.reexports["Z"], module("p::q::child::Z"));
    assert!(facts.defines.contains("f"));

    // `face` re-exports `Item` from `inner`: an import of `face::Item`
    // depends on `inner`.
    let mut files = BTreeMap::new();
    for (name, code) in [
        ("", ""),
        ("face", "pub use inner::Item;\nmod inner;"),
        ("face::inner", "pub struct Item;"),
    ] {
        let m: Vec<String> = if name.is_empty() {
            Vec::new()
        } else {
            module(name)
        };
        let children = BTreeSet::from(["inner".to_owned()]);
        let file = PathBuf::from(format!("{name}.rs"));
        files.insert(m.clone(), file_facts(code, &file, &m, &children));
    }
    let found = resolve(&module("face::Item"), &files, 0);
    assert_eq!(found.file, PathBuf::from("face::inner.rs"));

    let file = |name: &str| PathBuf::from(name);
    let mut graph: BTreeMap<PathBuf, BTreeMap<PathBuf, ()>> = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")] {
        graph.entry(file(from)).or_default().insert(file(to), ());
        graph.entry(file(to)).or_default();
    }
    assert_eq!(cycles(&graph), vec![vec![file("a"), file("b"), file("c")]]);
}
