//! Peak memory and load time of the glTF loader's CPU stage on one file:
//! parses it with the default options (as `parse_gltf` does) and prints one
//! line, `<peak RSS KiB> <ok|error> <file>[: <error>]`, where the peak is
//! the process's `VmHWM` from `/proc/self/status` (Linux only).
//! `scripts/gltf_rss.sh` runs it over a corpus.
//!
//! With `--repeat N` it parses the file N times (N >= 1) and adds the wall
//! time of each parse: the first one separately (cold: the first in the
//! process, with a fresh heap; the files may still be in the OS page
//! cache), then the minimum and median (the upper middle one for an even
//! N) over all N, as `<peak RSS KiB> <ok|error> <file> cold_ms=<ms> min_ms=<ms>
//! median_ms=<ms>`. The peak is then the largest of the N parses (each
//! document is dropped before the next parse). `scripts/load-cost.sh` runs it
//! over compressed files and their originals.
//!
//! Usage: `cargo run --release --example gltf_rss -- [--repeat N] FILE.gltf|FILE.glb`

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// The process's peak resident set size in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

const USAGE: &str = "usage: gltf_rss [--repeat N] FILE.gltf|FILE.glb";

/// The command line: the file and, with `--repeat`, how many parses.
fn arguments() -> Option<(PathBuf, Option<usize>)> {
    let mut args = std::env::args_os().skip(1);
    let first = args.next()?;
    let (repeat, path) = if first == "--repeat" {
        let n = args.next()?.to_str()?.parse().ok().filter(|&n| n >= 1)?;
        (Some(n), args.next()?)
    } else {
        (None, first)
    };
    args.next().is_none().then(|| (PathBuf::from(path), repeat))
}

fn main() -> ExitCode {
    let Some((path, repeat)) = arguments() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let mut times_ms = Vec::new();
    let mut result = Ok(());
    for _ in 0..repeat.unwrap_or(1) {
        let start = Instant::now();
        let parsed = unbound::loaders::gltf::parse_gltf(&path);
        times_ms.push(start.elapsed().as_secs_f64() * 1e3);
        // Dropped here, before the next parse.
        result = parsed.map(drop);
        if result.is_err() {
            break;
        }
    }
    let Some(peak) = peak_rss_kib() else {
        eprintln!("no VmHWM in /proc/self/status (Linux only)");
        return ExitCode::from(2);
    };
    let timing = match repeat {
        Some(_) => {
            let cold = times_ms[0];
            times_ms.sort_by(f64::total_cmp);
            let median = times_ms[times_ms.len() / 2];
            format!(
                " cold_ms={cold:.1} min_ms={:.1} median_ms={median:.1}",
                times_ms[0]
            )
        }
        None => String::new(),
    };
    match result {
        Ok(()) => println!("{peak} ok {}{timing}", path.display()),
        Err(error) => println!("{peak} error {}: {error}{timing}", path.display()),
    }
    ExitCode::SUCCESS
}
