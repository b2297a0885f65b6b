//! An Xvfb server for a test that opens windows: a display of its own,
//! stopped when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// An Xvfb server started by [`Xvfb::start`]; SIGTERM on drop, so that it
/// removes its lock file and socket.
#[derive(Debug)]
pub struct Xvfb {
    child: Child,
    /// The display to set as `DISPLAY` (`":N"`).
    pub display: String,
}

impl Xvfb {
    /// Starts Xvfb on the first free display from `first + pid % 100`, with
    /// one screen of `screen` (`"WxHxDEPTH"`), and waits up to 20 s for its
    /// socket. Panics, saying what to install, when Xvfb is missing.
    pub fn start(first: u32, screen: &str) -> Self {
        let binary = ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .expect("Xvfb is missing: windowed tests need an X server (apt-get install xvfb; .ci/run does)");
        let base = first + std::process::id() % 100;
        let number = (base..base + 100)
            .find(|n| {
                !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                    && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
            })
            .expect("a free X display number");
        let display = format!(":{number}");
        let child = Command::new(binary)
            .args([&display, "-screen", "0", screen, "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Xvfb");
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
        let started = Instant::now();
        while !socket.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "Xvfb {display} did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { child, display }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let pid = self.child.id().to_string();
        let terminated = Command::new("kill").arg(&pid).status();
        if !terminated.is_ok_and(|status| status.success()) {
            self.child.kill().ok();
        }
        self.child.wait().ok();
    }
}
