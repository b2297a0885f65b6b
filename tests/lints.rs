//! The workspace's lint rules hold where they are written: the harness's
//! own lint table (it differs in `unsafe_code` alone, `deny` instead of
//! `forbid`, for wgpu's experimental-features token) stays in step with the
//! workspace's, and the workspace has exactly one `unsafe` block, in the
//! harness.

use std::path::Path;

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

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
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

/// Every `.rs` file under `dir`, recursively (build outputs skipped).
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') && name != "fuzz" {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_workspace_has_one_unsafe_block_in_the_harness() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let needle = ["unsafe", " {"].concat();
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap();
            if code.contains(&needle) || code.contains(&["unsafe", " fn"].concat()) {
                let relative = file.strip_prefix(root).unwrap().display().to_string();
                found.push(format!("{relative}:{}", number + 1));
            }
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("crates/harness/src/device.rs:"),
        "{found:?}"
    );
}
