//! The demo binary renders the built-in scene headless, writes a PNG and
//! reports a visible count that matches its CPU reference (it exits with an
//! error otherwise).

use std::process::Command;

#[test]
fn demo_renders_headless_png() {
    let out = std::env::temp_dir().join(format!("unbound-demo-{}.png", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_unbound-demo"))
        .args([
            "--headless",
            "--width",
            "160",
            "--height",
            "90",
            "--instances",
            "3000",
            "--out",
        ])
        .arg(&out)
        .env(
            "UNBOUND_ADAPTER",
            std::env::var("UNBOUND_ADAPTER").unwrap_or_else(|_| "llvmpipe".into()),
        )
        .output()
        .expect("run unbound-demo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "demo failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for line in [
        "adapter:",
        "tier: A",
        "visible instances:",
        "draws:",
        "triangles:",
        "GPU time:",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
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

    // Tier C on GL, the same scene.
    let out_c = std::env::temp_dir().join(format!("unbound-demo-c-{}.png", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_unbound-demo"))
        .args([
            "--headless",
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
            "--out",
        ])
        .arg(&out_c)
        .env_remove("UNBOUND_ADAPTER")
        .output()
        .expect("run unbound-demo on GL");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "GL demo failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("tier: C"), "{stdout}");
    assert!(
        stdout.contains("better tier not available"),
        "the reasons are printed: {stdout}"
    );
    std::fs::remove_file(out_c).ok();

    // A glTF scene through the same path.
    let out_gltf =
        std::env::temp_dir().join(format!("unbound-demo-gltf-{}.png", std::process::id()));
    let helmet = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/FlightHelmet/FlightHelmet.gltf"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_unbound-demo"))
        .args([
            "--headless",
            "--width",
            "96",
            "--height",
            "96",
            "--scene",
            helmet,
            "--out",
        ])
        .arg(&out_gltf)
        .env(
            "UNBOUND_ADAPTER",
            std::env::var("UNBOUND_ADAPTER").unwrap_or_else(|_| "llvmpipe".into()),
        )
        .output()
        .expect("run unbound-demo --scene");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "glTF demo failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("6 objects, 6 meshes, 6 materials, 15 textures"),
        "{stdout}"
    );
    assert!(stdout.contains("visible instances: 6"), "{stdout}");
    std::fs::remove_file(out_gltf).ok();

    let bad = Command::new(env!("CARGO_BIN_EXE_unbound-demo"))
        .args(["--headless", "--instances", "zero"])
        .output()
        .unwrap();
    assert!(!bad.status.success(), "bad arguments must fail");
}
