//! Peak memory of the glTF loader's CPU stage on one file: parses it with
//! the default options (as `parse_gltf` does) and prints one line,
//! `<peak RSS KiB> <ok|error> <file>[: <error>]`, where the peak is the
//! process's `VmHWM` from `/proc/self/status` (Linux only).
//! `scripts/gltf_rss.sh` runs it over a corpus.
//!
//! Usage: `cargo run --release --example gltf_rss -- FILE.gltf|FILE.glb`

use std::path::PathBuf;
use std::process::ExitCode;

/// The process's peak resident set size in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: gltf_rss FILE.gltf|FILE.glb");
        return ExitCode::from(2);
    };
    let result = unbound::loaders::gltf::parse_gltf(&path);
    let Some(peak) = peak_rss_kib() else {
        eprintln!("no VmHWM in /proc/self/status (Linux only)");
        return ExitCode::from(2);
    };
    match result {
        Ok(_) => println!("{peak} ok {}", path.display()),
        Err(error) => println!("{peak} error {}: {error}", path.display()),
    }
    ExitCode::SUCCESS
}
