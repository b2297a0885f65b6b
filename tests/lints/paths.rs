//! Which words of prose name a file of the repository, and whether it
//! exists.
//!
//! A word is a path when it
//! - starts with a top-level folder of the repository and a `/`
//!   (`src/heap/mod.rs`, `wgsl/`, `.ci/run`): it must exist from the
//!   repository's root, or from the folder of the file that names it or one
//!   above (a crate's file naming the crate's own `src/lib.rs`);
//! - has a `/` and ends in a file extension of the repository
//!   (`loaders/gltf/parse.rs`): it must exist from the naming file's
//!   folder, or be the end of some path of the repository;
//! - is a bare file name of a source or document (`lints.rs`,
//!   `types.wgsl`, `Cargo.toml`): it must be in the naming file's folder or
//!   one above, in such a folder's `src/` or `wgsl/`, or among the
//!   submodules of the naming `.rs` file; Markdown, whose prose names the
//!   folder around a bare name, may name any file of the repository. Bare
//!   names of data (`scene.gltf`, `out.json`) are the files a test or a
//!   command writes as often as files of the repository: not checked.
//!
//! Not paths: words with a glob, a placeholder, an ellipsis, a URL or Rust
//! path syntax (`*`, `NAME`, `…`, `://`, `::`, `{`, `<`, `$`), words from
//! `../` (outside the repository, such as `../shared`), and paths under a
//! folder that a `.gitignore` names (`target/`, `fuzz/corpus/`), which a
//! fresh checkout does not have.

use std::collections::BTreeSet;
use std::path::Path;

/// Extensions of the files a word may name (a word such as `e.g.` or
/// `1.5` is no path).
const EXTENSIONS: &[&str] = &[
    "rs", "wgsl", "md", "toml", "lock", "json", "sh", "py", "png", "hdr", "glb", "gltf", "bin",
    "ktx2", "jpeg", "jpg", "yml", "yaml", "txt", "csv", "svg", "ttf",
];

/// Extensions of the sources and documents a bare file name is checked
/// for.
const SOURCE_EXTENSIONS: &[&str] = &["rs", "wgsl", "md", "toml"];

/// Words that stand for a name in a pattern (`tests/NAME.rs`,
/// `unbound-NNN.png`, `file.rs:12`).
const PLACEHOLDERS: &[&str] = &[
    "NAME", "N", "NNN", "X", "ID", "DATE", "FILE", "PATH", "DIR", "TIER", "KIND", "LABEL", "SCENE",
    "STEM", "COMMIT", "HASH", "TARGET", "file", "name", "foo", "bar", "example",
];

/// Characters that make a word a pattern, code or a URL rather than a path.
const NOT_IN_PATHS: &[&str] = &[
    "*", "…", "...", "://", "::", "{", "}", "<", ">", "[", "]", "$", "=", "(", ")", "@", "\\", "|",
    "?", "%",
];

/// The repository's files and folders, as `/`-separated paths from its
/// root (folders without a trailing `/`).
pub struct Repo {
    paths: BTreeSet<String>,
    names: BTreeSet<String>,
    top_level: BTreeSet<String>,
    /// Folders git ignores (`target/`).
    ignored: Vec<String>,
}

impl Repo {
    /// A repository of these paths (files; their folders are added), and
    /// the folders git ignores, each with a trailing `/`.
    pub fn new<'a>(files: impl IntoIterator<Item = &'a str>, ignored: Vec<String>) -> Self {
        let mut paths = BTreeSet::new();
        let mut names = BTreeSet::new();
        let mut top_level = BTreeSet::new();
        for file in files {
            let mut parts: Vec<&str> = file.split('/').collect();
            names.insert(parts.last().expect("a path").to_string());
            if parts.len() > 1 {
                top_level.insert(parts[0].to_owned());
            }
            while !parts.is_empty() {
                paths.insert(parts.join("/"));
                parts.pop();
            }
        }
        Self {
            paths,
            names,
            top_level,
            ignored,
        }
    }

    fn exists(&self, path: &str) -> bool {
        self.paths.contains(path)
    }

    /// Whether `word` is a path (see the module docs) that does not exist,
    /// named by the file at `naming` (a path from the root).
    pub fn is_missing(&self, word: &str, naming: &str) -> bool {
        let Some(path) = as_path(word) else {
            return false;
        };
        let rooted = path
            .split_once('/')
            .is_some_and(|(top, _)| self.top_level.contains(top));
        let extension = extension(&path);
        let checked = if path.contains('/') {
            rooted || extension.is_some_and(|e| EXTENSIONS.contains(&e))
        } else {
            extension.is_some_and(|e| SOURCE_EXTENSIONS.contains(&e))
        };
        if !checked || self.ignored.iter().any(|i| path.starts_with(i.as_str())) {
            return false;
        }
        let path = path.trim_end_matches('/');
        if self.found_from(path, naming) {
            return false;
        }
        if rooted {
            return true;
        }
        if path.contains('/') {
            let suffix = format!("/{path}");
            return !self.paths.iter().any(|p| p.ends_with(&suffix));
        }
        // Prose in Markdown names the folder around a bare name.
        !(naming.ends_with(".md") && self.names.contains(path))
    }

    /// Whether `path` exists from the naming file's folder or one above, in
    /// such a folder's `src/` or `wgsl/` (where a crate keeps its modules
    /// and shaders), or among the submodules of a naming `.rs` file.
    fn found_from(&self, path: &str, naming: &str) -> bool {
        let submodules = naming.strip_suffix(".rs").map(|stem| join(stem, path));
        if submodules.is_some_and(|p| self.exists(&p)) {
            return true;
        }
        let mut folder = naming;
        while !folder.is_empty() {
            folder = folder.rsplit_once('/').map_or("", |(above, _)| above);
            let candidates = [
                join(folder, path),
                join(&join(folder, "src"), path),
                join(&join(folder, "wgsl"), path),
            ];
            if candidates.iter().any(|p| self.exists(p)) {
                return true;
            }
        }
        false
    }
}

/// `path` from folder `from`.
fn join(from: &str, path: &str) -> String {
    if from.is_empty() {
        path.to_owned()
    } else {
        format!("{from}/{path}")
    }
}

/// The extension of the path's last name, if it has a stem and one.
fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, extension) = name.rsplit_once('.')?;
    (!stem.is_empty()).then_some(extension)
}

/// `word` cleaned of surrounding punctuation and a line or anchor suffix
/// (`src/lib.rs:12`, `README.md#layout`), if it can be a path at all.
pub fn as_path(word: &str) -> Option<String> {
    let word = word.strip_suffix("'s").unwrap_or(word);
    let word = word
        .trim_start_matches(['(', '[', '"', '\'', '`'])
        .trim_end_matches(['.', ',', ';', ':', ')', ']', '"', '\'', '`', '!', '?']);
    let word = word.split('#').next().unwrap_or(word);
    // A line number or range: `file.rs:12`, `file.rs:12-40`.
    let word = match word.split_once(':') {
        Some((path, line)) if line.chars().all(|c| c.is_ascii_digit() || c == '-') => path,
        _ => word,
    };
    let pattern = word.is_empty()
        || word.chars().any(char::is_whitespace)
        || NOT_IN_PATHS.iter().any(|p| word.contains(p))
        || word.starts_with('-')
        || word.starts_with('/')
        || word.starts_with("../")
        || word.starts_with("./");
    let placeholder = word
        .split(['/', '.', '-', '_'])
        .any(|part| PLACEHOLDERS.contains(&part));
    (!pattern && !placeholder).then(|| word.to_owned())
}

/// The words of a comment or of prose: split at white space and at
/// backticks.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || c == '`')
        .filter(|w| !w.is_empty())
}

/// What a Markdown file names: each inline code span outside fenced blocks,
/// and each relative link target, with its line (1-based).
pub fn markdown_names(text: &str) -> Vec<(usize, String)> {
    let mut names = Vec::new();
    let mut fenced = false;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Odd pieces between backticks are code spans.
        for span in line.split('`').skip(1).step_by(2) {
            names.push((number + 1, span.trim().to_owned()));
        }
        // Link targets: `](target)`, outside code spans.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        for piece in prose.split("](").skip(1) {
            let target = piece.split(')').next().unwrap_or("");
            if !target.contains("://") && !target.starts_with('#') && !target.starts_with("mailto:")
            {
                names.push((number + 1, target.to_owned()));
            }
        }
    }
    names
}

/// Every file of the repository at `root`, as paths from it: build output
/// (`target`) and hidden folders other than `.ci` skipped.
pub fn repository_files(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let hidden = name.starts_with('.') && name != ".ci";
            if path.is_dir() {
                if name != "target" && !hidden {
                    folders.push(path);
                }
            } else {
                let relative = path.strip_prefix(root).unwrap();
                files.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    files
}

/// The folders the `.gitignore` files among `files` name (lines such as
/// `/target` or `corpus`, relative to the file's folder), each with a
/// trailing `/`.
pub fn ignored_folders(root: &Path, files: &[String]) -> Vec<String> {
    let mut ignored = Vec::new();
    for file in files.iter().filter(|f| f.ends_with(".gitignore")) {
        let folder = file.strip_suffix(".gitignore").unwrap_or("");
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            let line = line.trim_start_matches('/').trim_end_matches('/');
            ignored.push(format!("{folder}{line}/"));
        }
    }
    ignored
}
