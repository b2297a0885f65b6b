//! The demo binary renders the built-in scene headless, writes a PNG and
//! reports a visible count that matches its CPU reference (it exits with an
//! error otherwise).

use std::path::PathBuf;
use std::process::Command;

/// Runs the demo headless with `args`, writing to a temporary PNG; returns
/// (success, stdout and stderr, the PNG's path). `adapter` pins the adapter
/// name (the software one unless UNBOUND_ADAPTER says otherwise), `None`
/// lets `--backend` choose.
fn run_demo(name: &str, args: &[&str], adapter: Option<&str>) -> (bool, String, PathBuf) {
    // One demo process at a time: Mesa's GL (llvmpipe) and Vulkan (lavapipe)
    // drivers running side by side on two cores were seen to slow a run from
    // a second to minutes.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let out = std::env::temp_dir().join(format!("unbound-demo-{name}-{}.png", std::process::id()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_unbound-demo"));
    command.arg("--headless").args(args).arg("--out").arg(&out);
    match adapter {
        Some(default) => {
            command.env(
                "UNBOUND_ADAPTER",
                std::env::var("UNBOUND_ADAPTER").unwrap_or_else(|_| default.into()),
            );
        }
        None => {
            command.env_remove("UNBOUND_ADAPTER");
        }
    }
    let output = command.output().expect("run unbound-demo");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text, out)
}

#[test]
fn demo_renders_headless_png() {
    let (ok, text, out) = run_demo(
        "procedural",
        &["--width", "160", "--height", "90", "--instances", "3000"],
        Some("llvmpipe"),
    );
    assert!(ok, "demo failed:\n{text}");
    for line in [
        "adapter:",
        "tier: A",
        "visible instances:",
        "draws:",
        "triangles:",
        "GPU time:",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    let image = image::open(&out).expect("demo wrote a PNG").to_rgba8();
    assert_eq!(image.dimensions(), (160, 90));
    let distinct: std::collections::HashSet<_> = image.pixels().map(|p| p.0).collect();
    assert!(
        distinct.len() > 100,
        "image looks empty ({} colours)",
        distinct.len()
    );
    std::fs::remove_file(out).ok();
}

#[test]
fn demo_runs_tier_c_on_gl_and_says_why() {
    let (ok, text, out) = run_demo(
        "gl",
        &[
            "--width",
            "160",
            "--height",
            "90",
            "--instances",
            "2000",
            "--backend",
            "gl",
            "--tier",
            "c",
        ],
        None,
    );
    assert!(ok, "GL demo failed:\n{text}");
    assert!(text.contains("tier: C"), "{text}");
    assert!(
        text.contains("better tier not available"),
        "the reasons are printed: {text}"
    );
    std::fs::remove_file(out).ok();
}

#[test]
fn demo_renders_a_gltf_scene() {
    let helmet = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/FlightHelmet/FlightHelmet.gltf"
    );
    let (ok, text, out) = run_demo(
        "gltf",
        &["--width", "96", "--height", "96", "--scene", helmet],
        Some("llvmpipe"),
    );
    assert!(ok, "glTF demo failed:\n{text}");
    assert!(
        text.contains("6 objects, 6 meshes, 6 materials, 15 textures"),
        "{text}"
    );
    assert!(text.contains("visible instances: 6"), "{text}");
    std::fs::remove_file(out).ok();
}

#[test]
fn bad_arguments_fail() {
    let (ok, text, _) = run_demo("bad", &["--instances", "zero"], Some("llvmpipe"));
    assert!(!ok, "bad arguments must fail:\n{text}");
    assert!(text.contains("--instances"), "{text}");
}
