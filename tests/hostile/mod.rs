//! Running one hostile input in a child process: this test binary run
//! again for the one test, under `ulimit -v` and a timeout, because a
//! loader that fails such an input hangs or runs out of memory rather than
//! returning. The child prints its result and its peak RSS (`VmHWM`, as
//! `examples/gltf_rss.rs` measures it); the test checks both. Used by
//! `tests/gltf_hostile.rs` and `tests/environment_files.rs`.
//!
//! Linux only: `ulimit` and `/proc/self/status`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in a child: the input file.
const FILE_ENV: &str = "UNBOUND_HOSTILE_FILE";
/// Set in a child: how to load it (the test's own word; empty by default).
const MODE_ENV: &str = "UNBOUND_HOSTILE_MODE";
/// A child's address-space limit (`ulimit -v`, KiB): 4 GiB. Generous,
/// since a smaller one breaks the software Vulkan driver; the peak RSS is
/// the measure.
const CHILD_ADDRESS_SPACE_KIB: u64 = 4 << 20;
/// How long a child may run.
const CHILD_TIMEOUT: Duration = Duration::from_secs(60);
/// The bound on a load's peak memory, KiB.
pub const MAX_PEAK_RSS_KIB: u64 = 2 << 20;

/// The process's peak resident set size (`VmHWM`), KiB.
pub fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// In a child: loads the file with `load(file, mode)`, prints the result
/// and the peak RSS, and returns true. In the test itself: false.
pub fn run_as_child(load: impl FnOnce(&Path, &str) -> String) -> bool {
    let Some(file) = std::env::var_os(FILE_ENV) else {
        return false;
    };
    let mode = std::env::var(MODE_ENV).unwrap_or_default();
    let result = load(Path::new(&file), &mode);
    println!("hostile-result: {result}");
    println!("hostile-peak-rss-kib: {}", peak_rss_kib());
    true
}

/// What a child printed.
#[derive(Debug)]
pub struct Outcome {
    /// The load's result, as the test's `load` wrote it.
    pub result: String,
    /// The child's peak RSS, KiB.
    pub peak_rss_kib: u64,
}

/// Loads `file` in a child running only `test` (the calling test's name)
/// with `mode`, under the address-space limit and the timeout. Panics if
/// the child does not finish cleanly or exceeds [`MAX_PEAK_RSS_KIB`].
pub fn load_in_child(test: &str, file: &Path, mode: &str) -> Outcome {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {CHILD_ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(FILE_ENV, file)
        .env(MODE_ENV, mode)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = |mut reader: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            reader.read_to_string(&mut text).ok();
            text
        })
    };
    let stdout = pipe(Box::new(child.stdout.take().unwrap()));
    let stderr = pipe(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > CHILD_TIMEOUT {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let tail = |text: &str| text[text.len().saturating_sub(2000)..].to_owned();
    let context = format!(
        "{}: status {status:?}\nstdout:\n{}\nstderr:\n{}",
        file.display(),
        tail(&stdout),
        tail(&stderr)
    );
    let status = status.unwrap_or_else(|| panic!("timed out after {CHILD_TIMEOUT:?}: {context}"));
    assert!(status.success(), "the child failed: {context}");
    let line = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.split_once(key).map(|(_, value)| value))
            .unwrap_or_else(|| panic!("no {key:?} line: {context}"))
            .to_owned()
    };
    let outcome = Outcome {
        result: line("hostile-result: "),
        peak_rss_kib: line("hostile-peak-rss-kib: ").parse().unwrap(),
    };
    assert!(
        outcome.peak_rss_kib < MAX_PEAK_RSS_KIB,
        "peak RSS {} KiB: {context}",
        outcome.peak_rss_kib
    );
    outcome
}

/// A folder for one case's files, removed afterwards (kept under
/// `UNBOUND_HOSTILE_KEEP=DIR`, as `DIR/<case>/`, if set).
pub struct CaseDir {
    /// The folder.
    pub path: PathBuf,
    keep: bool,
}

impl CaseDir {
    /// A new, empty folder for `case`.
    pub fn new(case: &str) -> Self {
        let (path, keep) = match std::env::var_os("UNBOUND_HOSTILE_KEEP") {
            Some(root) => (PathBuf::from(root).join(case), true),
            None => (
                std::env::temp_dir().join(format!("unbound-hostile-{}-{case}", std::process::id())),
                false,
            ),
        };
        std::fs::remove_dir_all(&path).ok();
        std::fs::create_dir_all(&path).unwrap();
        Self { path, keep }
    }

    /// Writes `bytes` to `name` in the folder (subfolders created).
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Makes a FIFO `name` in the folder.
    pub fn fifo(&self, name: &str) -> PathBuf {
        let fifo = self.path.join(name);
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success(), "mkfifo {}", fifo.display());
        fifo
    }
}

impl Drop for CaseDir {
    fn drop(&mut self) {
        if !self.keep {
            std::fs::remove_dir_all(&self.path).ok();
        }
    }
}
