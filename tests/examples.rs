//! The examples in `examples/` run as a user runs them, on the test adapter
//! (`UNBOUND_ADAPTER`, else lavapipe) with validation on: `headless` and
//! `gltf_viewer --png` write PNGs that show their scenes, and under Xvfb
//! `winit` and `gltf_viewer` open a window, draw 3 frames and exit cleanly.
//!
//! The binaries are those `cargo test` builds beside this test
//! (`target/<profile>/examples/`). `cargo test --test examples` alone does
//! not build them: run `cargo build --workspace --examples` first. A
//! missing binary, or one older than a file it is built from, fails the
//! test.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use unbound_harness::Xvfb;

/// How long an example may run before it counts as hung.
const TIMEOUT: Duration = Duration::from_secs(180);

/// The built example `name`, checked to be newer than every file it was
/// built from (as listed in cargo's dep-info file beside it).
fn example(name: &str) -> PathBuf {
    let test = std::env::current_exe().unwrap();
    let examples = test
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("examples");
    let binary = examples.join(name);
    let build = "run `cargo build --workspace --examples` (`cargo test` builds them)";
    let built = std::fs::metadata(&binary)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| panic!("{} is missing: {build}", binary.display()));
    let dep_info = std::fs::read_to_string(examples.join(format!("{name}.d"))).unwrap();
    let (_, sources) = dep_info.split_once(": ").expect("a dep-info line");
    // Spaces in paths are escaped as "\ ".
    let sources = sources.replace("\\ ", "\0");
    for source in sources.split_whitespace().map(|s| s.replace('\0', " ")) {
        let modified = std::fs::metadata(&source).and_then(|m| m.modified());
        let modified = modified.unwrap_or_else(|e| panic!("{source}: {e}: {build}"));
        assert!(
            modified <= built,
            "{} is older than {source}: {build}",
            binary.display()
        );
    }
    binary
}

/// Runs `binary` with `args` on the test adapter (and `display`, if any,
/// as the X display); fails unless it exits 0 within [`TIMEOUT`] without
/// a panic or a wgpu error. Returns its output.
fn run(binary: &Path, args: &[&str], display: Option<&str>) -> String {
    let adapter = std::env::var("UNBOUND_ADAPTER").unwrap_or_else(|_| "llvmpipe".into());
    let mut command = Command::new(binary);
    command
        .args(args)
        .env("WGPU_ADAPTER_NAME", adapter)
        .env("WGPU_BACKEND", "vulkan")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match display {
        Some(display) => command.env("DISPLAY", display),
        None => command.env_remove("DISPLAY"),
    };
    let output = wait(command.spawn().expect("start the example"), binary);
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let name = binary.display();
    assert!(output.status.success(), "{name} {args:?} failed:\n{text}");
    assert!(
        !text.contains("panicked") && !text.contains("wgpu error"),
        "{name} {args:?}:\n{text}"
    );
    text
}

/// Waits for `child`, killing it after [`TIMEOUT`].
fn wait(mut child: Child, binary: &Path) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > TIMEOUT {
            child.kill().ok();
            panic!("{} ran over {TIMEOUT:?}", binary.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// A file in a directory of this test process's own.
fn output_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("unbound-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Pixels whose colour differs from the top-left pixel's (the background).
fn off_background(image: &image::RgbaImage) -> usize {
    let background = *image.get_pixel(0, 0);
    image.pixels().filter(|&&p| p != background).count()
}

#[test]
fn headless_writes_a_png_of_its_scene() {
    let png = output_path("headless.png");
    run(&example("headless"), &[png.to_str().unwrap()], None);
    let image = image::open(&png).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (480, 270));
    // The floor and the objects cover most of the image; the red sphere
    // is in the middle.
    let drawn = off_background(&image);
    assert!(drawn > 480 * 270 / 3, "{drawn} pixels drawn");
    let red = image
        .pixels()
        .filter(|p| u32::from(p[0]) > 2 * u32::from(p[1].max(p[2])) && p[0] > 100)
        .count();
    assert!(red > 500, "{red} red pixels");
}

#[test]
fn gltf_viewer_writes_a_png_of_the_flight_helmet() {
    let png = output_path("viewer.png");
    run(
        &example("gltf_viewer"),
        &["--png", png.to_str().unwrap()],
        None,
    );
    let image = image::open(&png).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (512, 512));
    // The helmet is framed: it covers a good part of the image and
    // reaches its middle.
    let drawn = off_background(&image);
    assert!(drawn > 512 * 512 / 5, "{drawn} pixels drawn");
    assert_ne!(image.get_pixel(256, 256), image.get_pixel(0, 0));
    // A file that does not exist is an error, not a crash.
    let binary = example("gltf_viewer");
    let output = Command::new(&binary)
        .args(["/no/such/file.gltf", "--png", png.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
}

#[test]
fn windowed_examples_draw_three_frames_and_exit() {
    let x = Xvfb::start(200, "1024x768x24");
    run(&example("winit"), &["--frames", "3"], Some(&x.display));
    run(
        &example("gltf_viewer"),
        &["--frames", "3"],
        Some(&x.display),
    );
}
