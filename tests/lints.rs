//! The workspace's rules hold where they are written (`docs/CODE_STYLE.md`):
//! - the harness's own lint table (it differs in `unsafe_code` alone, `deny`
//!   instead of `forbid`, for wgpu's experimental-features token) stays in
//!   step with the workspace's, and the workspace has exactly one `unsafe`
//!   block, in the harness;
//! - no `.rs` or `.wgsl` file outside tests and `fuzz/` is over 600 lines,
//!   and no function in them over 120, from its `fn` line to its closing
//!   brace, comments included (`lints/source.rs` finds them);
//! - every path a Markdown file names in backticks or a link, and every path
//!   a comment names, exists (`lints/paths.rs` says what a path is).
//!
//! Each failure lists every offender as `path:line`.

#[path = "lints/paths.rs"]
mod paths;
#[path = "lints/source.rs"]
mod source;

use std::path::Path;

use paths::{Repo, repository_files};

/// The lines of `[workspace.lints.*]` or `[lints.*]` sections of a
/// Cargo.toml, keyed by the section's last name (`rust`, `clippy`), with
/// comments and blank lines dropped.
fn lint_lines(toml: &str, prefix: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut section = None;
    for line in toml.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.strip_prefix(prefix).map(str::to_owned);
            continue;
        }
        if let Some(section) = &section
            && !line.is_empty()
            && !line.starts_with('#')
        {
            lines.push(format!("{section}: {line}"));
        }
    }
    lines
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn harness_lints_are_the_workspace_lints_with_unsafe_code_denied() {
    let workspace = lint_lines(&read("Cargo.toml"), "workspace.lints.");
    let harness = lint_lines(&read("crates/harness/Cargo.toml"), "lints.");
    assert!(workspace.contains(&"rust: unsafe_code = \"forbid\"".to_owned()));
    let expected: Vec<String> = workspace
        .iter()
        .map(|l| l.replace("unsafe_code = \"forbid\"", "unsafe_code = \"deny\""))
        .collect();
    assert_eq!(harness, expected);
    // Every other crate inherits the workspace table.
    for manifest in [
        "crates/scenes/Cargo.toml",
        "crates/baseline/Cargo.toml",
        "crates/demo/Cargo.toml",
        "crates/bench/Cargo.toml",
    ] {
        let text = read(manifest);
        assert!(text.contains("[lints]\nworkspace = true"), "{manifest}");
    }
}

/// The workspace's crates have one `unsafe` block, in the harness. Outside
/// the workspace: `fuzz/` (libFuzzer's entry points) and the fixture
/// generator `assets/basisu/generator/` (its own cargo workspace, run by
/// hand to make committed files; the basis-universal encoder's API is
/// `unsafe`), which no workspace crate builds or links.
#[test]
fn the_workspace_has_one_unsafe_block_in_the_harness() {
    let needle = ["unsafe", " {"].concat();
    let mut found = Vec::new();
    let rust = repository_files(root()).into_iter().filter(|file| {
        file.ends_with(".rs") && !file.starts_with("fuzz/") && !file.starts_with("assets/")
    });
    for file in rust {
        for (number, line) in read(&file).lines().enumerate() {
            let code = line.split("//").next().unwrap();
            if code.contains(&needle) || code.contains(&["unsafe", " fn"].concat()) {
                found.push(format!("{file}:{}", number + 1));
            }
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("crates/harness/src/device.rs:"),
        "{found:?}"
    );
}

/// Most lines in a source file.
const MAX_FILE_LINES: usize = 600;
/// Most lines in a function.
const MAX_FUNCTION_LINES: usize = 120;

/// The `.rs` and `.wgsl` files the size rules cover: all but tests (any
/// `tests/` folder) and `fuzz/`.
fn sized_sources() -> Vec<String> {
    repository_files(root())
        .into_iter()
        .filter(|file| file.ends_with(".rs") || file.ends_with(".wgsl"))
        .filter(|file| !file.starts_with("fuzz/") && !file.split('/').any(|part| part == "tests"))
        .collect()
}

/// `path:1: N lines` for a text over [`MAX_FILE_LINES`].
fn long_file(path: &str, text: &str) -> Option<String> {
    let lines = text.lines().count();
    (lines > MAX_FILE_LINES).then(|| format!("{path}:1: {lines} lines"))
}

/// `path:line: fn name: N lines` for each function over
/// [`MAX_FUNCTION_LINES`].
fn long_functions(path: &str, text: &str) -> Vec<String> {
    source::functions(&source::lex(text).code)
        .into_iter()
        .filter(|f| f.lines() > MAX_FUNCTION_LINES)
        .map(|f| {
            format!(
                "{path}:{}: fn {}: {} lines",
                f.first_line,
                f.name,
                f.lines()
            )
        })
        .collect()
}

#[test]
fn no_source_file_is_over_600_lines() {
    let offenders: Vec<String> = sized_sources()
        .iter()
        .filter_map(|file| long_file(file, &read(file)))
        .collect();
    assert!(
        offenders.is_empty(),
        "over {MAX_FILE_LINES} lines (split by concern, docs/CODE_STYLE.md):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn no_function_is_over_120_lines() {
    let offenders: Vec<String> = sized_sources()
        .iter()
        .flat_map(|file| long_functions(file, &read(file)))
        .collect();
    assert!(
        offenders.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines, signature to closing brace:\n{}",
        offenders.join("\n")
    );
}

/// `path:line: word` for each path `file` names that does not exist.
fn missing_paths(repo: &Repo, file: &str, text: &str) -> Vec<String> {
    let named: Vec<(usize, String)> = if file.ends_with(".md") {
        paths::markdown_names(text)
    } else {
        let comments = source::lex(text).comments;
        comments
            .iter()
            .flat_map(|(line, comment)| paths::words(comment).map(|w| (*line, w.to_owned())))
            .collect()
    };
    named
        .into_iter()
        .filter(|(_, word)| repo.is_missing(word, file))
        .map(|(line, word)| format!("{file}:{line}: {word}"))
        .collect()
}

#[test]
fn every_path_named_in_docs_and_comments_exists() {
    let files = repository_files(root());
    let ignored = paths::ignored_folders(root(), &files);
    let repo = Repo::new(files.iter().map(String::as_str), ignored);
    let offenders: Vec<String> = files
        .iter()
        .filter(|file| {
            [".md", ".rs", ".wgsl"]
                .iter()
                .any(|ext| file.ends_with(ext))
        })
        .flat_map(|file| missing_paths(&repo, file, &read(file)))
        .collect();
    assert!(
        offenders.is_empty(),
        "paths that do not exist (in backticks or links of Markdown, in comments of code):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn a_file_over_600_lines_is_found() {
    let text = "x\n".repeat(MAX_FILE_LINES);
    assert_eq!(long_file("a.rs", &text), None);
    let text = text + "x\n";
    assert_eq!(
        long_file("a.rs", &text).as_deref(),
        Some("a.rs:1: 601 lines")
    );
}

#[test]
fn function_lines_run_from_the_signature_to_the_closing_brace() {
    let text = r##"
/// Doc lines are not the function's.
#[inline]
pub fn first(
    a: [u8; 4], // a `}` in a comment
) -> u8 {
    let s = "} {"; /* } */ let c = '}';
    let r = r#"}"#; let b = b'{';
    fn inner<'a>(x: &'a str) -> &'a str { x }
    a[0]
}
trait T { fn declared(&self); }
type F = fn(u32) -> u32;
fn second() {}
"##;
    let found = source::functions(&source::lex(text).code);
    let summary: Vec<(&str, usize, usize)> = found
        .iter()
        .map(|f| (f.name.as_str(), f.first_line, f.lines()))
        .collect();
    assert_eq!(
        summary,
        [("first", 4, 8), ("inner", 9, 1), ("second", 14, 1)]
    );
    // One line more than the limit is reported, with its line.
    let body = "    x();\n".repeat(MAX_FUNCTION_LINES - 2);
    let wgsl = format!("// fn not_code() {{\nfn long() {{\n{body}}}\n");
    assert!(long_functions("a.wgsl", &wgsl).is_empty());
    let wgsl = format!("fn long() {{\n    x();\n{body}}}\n");
    assert_eq!(
        long_functions("a.wgsl", &wgsl),
        ["a.wgsl:1: fn long: 121 lines"]
    );
}

#[test]
fn comments_are_found_with_their_lines() {
    let lexed = source::lex("let s = \"// no\";\n//! head\nx; /* one\ntwo */ y\n");
    assert_eq!(
        lexed.comments,
        [
            (2, " head".to_owned()),
            (3, " one".to_owned()),
            (4, "two ".to_owned())
        ]
    );
    assert_eq!(lexed.code.lines().count(), 4);
}

#[test]
fn stale_paths_are_found_and_patterns_are_not_paths() {
    let repo = Repo::new(
        [
            "src/gpu_types/mod.rs",
            "src/heap/desc.rs",
            "src/heap/mod.rs",
            "wgsl/types.wgsl",
            "crates/demo/src/main.rs",
            "crates/demo/src/window.rs",
            "crates/demo/src/window/frame.rs",
        ],
        vec!["target/".to_owned()],
    );
    let missing = |word| repo.is_missing(word, "wgsl/types.wgsl");
    // Named from the root, from the naming file's folder or one above, by
    // its end, or where a crate keeps its modules and shaders.
    for word in [
        "src/gpu_types/mod.rs",
        "(src/heap/desc.rs).",
        "src/heap/",
        "types.wgsl",
        "heap/desc.rs:12",
        "`wgsl/types.wgsl`,",
    ] {
        assert!(!missing(word), "{word}");
    }
    assert!(!repo.is_missing("types.wgsl", "src/heap/mod.rs"));
    assert!(!repo.is_missing("desc.rs", "src/heap/mod.rs"));
    assert!(!repo.is_missing("frame.rs", "crates/demo/src/window.rs"));
    assert!(!repo.is_missing("src/main.rs", "crates/demo/src/window.rs"));
    // Markdown may name any file by its bare name; code names its own.
    assert!(!repo.is_missing("desc.rs", "docs/CODE_STYLE.md"));
    for (word, naming) in [
        ("src/gpu_types.rs", "wgsl/types.wgsl"),
        ("src/texture_arrays.rs", "wgsl/types.wgsl"),
        ("wgsl/type.wgsl", "README.md"),
        ("gpu_types.rs", "docs/CODE_STYLE.md"),
        ("desc.rs", "src/lib.rs"),
        ("passes/desc.rs", "src/lib.rs"),
        ("src/missing/", "src/lib.rs"),
        ("src/main.rs", "wgsl/types.wgsl"),
    ] {
        assert!(repo.is_missing(word, naming), "{word} named by {naming}");
    }
    // Globs, placeholders, code, prose, data and ignored paths are not
    // checked.
    for word in [
        "src/*.rs",
        "tests/NAME.rs",
        "src/…",
        "crate::heap::desc",
        "read/write",
        "e.g.",
        "https://example.com/a.rs",
        "target/debug/x.rs",
        "../shared/STYLE.md",
        "unbound-NNN.png",
        "scene.gltf",
    ] {
        assert!(!missing(word), "{word}");
    }
}

#[test]
fn markdown_names_code_spans_and_links_outside_fences() {
    let text = "See `src/a.rs` and [b](docs/B.md).\n```\n`src/fenced.rs`\n```\n[web](https://x.org) `c.rs`\n";
    assert_eq!(
        paths::markdown_names(text),
        [
            (1, "src/a.rs".to_owned()),
            (1, "docs/B.md".to_owned()),
            (5, "c.rs".to_owned())
        ]
    );
}
