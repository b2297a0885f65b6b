//! The windowed demo under Xvfb on lavapipe: it opens a window, renders N
//! frames, saves the last frame's render target and exits; the image equals
//! the headless render of the same scene and camera in every debug view, and
//! after replaying a camera path; with the overlay, the window's own image
//! differs (the overlay is drawn) and the run still exits cleanly.

use std::path::Path;
use std::process::Command;

use unbound_harness::Xvfb;

fn demo(display: Option<&str>, args: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_unbound-demo"));
    command
        .args(args)
        .env(
            "UNBOUND_ADAPTER",
            std::env::var("UNBOUND_ADAPTER").unwrap_or_else(|_| "llvmpipe".into()),
        )
        .env("UNBOUND_BACKEND", "vulkan")
        .env_remove("WAYLAND_DISPLAY");
    match display {
        Some(display) => command.env("DISPLAY", display),
        None => command.env_remove("DISPLAY"),
    };
    let output = command.output().expect("run unbound-demo");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "unbound-demo {args:?} failed:\n{text}"
    );
    assert!(!text.contains("panicked"), "{text}");
    assert!(!text.contains("wgpu error"), "{text}");
    text
}

fn load(path: &Path) -> image::RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
}

/// Pixels whose channels differ by more than `tolerance`.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage, tolerance: u8) -> usize {
    assert_eq!(a.dimensions(), b.dimensions());
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| (0..4).any(|c| p[c].abs_diff(q[c]) > tolerance))
        .count()
}

#[test]
fn windowed_demo_matches_headless_and_draws_its_overlay() {
    let x = Xvfb::start(90, "640x480x24");
    let dir = std::env::temp_dir().join(format!("unbound-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let scene = ["--width", "160", "--height", "120", "--instances", "3000"];
    let camera = ["--camera", "eye=14,6,18", "target=-2,0,-3", "fovy=55"];
    // A camera path of 5 poses flying in; the window shows one per frame and
    // ends on the last, which the headless run renders.
    let path = dir.join("path.txt");
    let poses: String = (0..5)
        .map(|i| {
            format!(
                "eye={},6,{} target=-2,0,-3 fovy=55\n",
                30 - 4 * i,
                30 - 3 * i
            )
        })
        .collect();
    std::fs::write(&path, format!("# test path\n{poses}")).unwrap();
    let path = path.to_string_lossy().into_owned();
    let views = [
        "lit",
        "unlit",
        "normals",
        "uvs",
        "material",
        "object",
        "draw",
        "texture-slot",
    ];
    let cases = views
        .iter()
        .map(|v| (*v, [&camera[..], &["--view", v]].concat()))
        .chain([("path", vec!["--camera-path", path.as_str()])])
        .chain([(
            "frozen",
            [
                &camera[..],
                &["--freeze-cull", "--bounds", "--highlight-missing"],
            ]
            .concat(),
        )]);
    for (view, extra) in cases {
        let windowed = file(&format!("window-{view}.png"));
        let headless = file(&format!("headless-{view}.png"));
        let text = demo(
            Some(&x.display),
            &[
                &scene[..],
                &extra,
                &["--no-ui", "--frames", "5", "--screenshot", &windowed],
            ]
            .concat(),
        );
        assert!(text.contains("frames: 5"), "{text}");
        demo(
            None,
            &[&scene[..], &extra, &["--headless", "--out", &headless]].concat(),
        );
        let (a, b) = (load(Path::new(&windowed)), load(Path::new(&headless)));
        assert_eq!(
            a.dimensions(),
            (160, 120),
            "the render target has the window's size"
        );
        // Same device type, same pipelines, same camera: exact but for
        // rasteriser rounding (tolerance 2 per channel on 0.5% of pixels;
        // none for ids).
        let ids = ["material", "object", "draw", "texture-slot"].contains(&view);
        let (tolerance, allowed) = if !ids { (2, 160 * 120 / 200) } else { (0, 0) };
        let bad = differing(&a, &b, tolerance);
        assert!(
            bad <= allowed,
            "{view}: {bad} pixels differ (allowed {allowed})"
        );
        // Something was drawn: at least a tenth of the pixels differ from
        // the most common colour (the background; with bounds shown, 3,000
        // boxes' green lines).
        let mut counts = std::collections::HashMap::new();
        for p in a.pixels() {
            *counts.entry(p.0).or_insert(0usize) += 1;
        }
        let background = counts.values().copied().max().unwrap();
        assert!(
            160 * 120 - background > 160 * 120 / 20,
            "{view}: only {} pixels drawn",
            160 * 120 - background
        );
    }
    // With the overlay, captured from the window (overlay included): it
    // differs from the bare render target where the overlay is.
    let with_ui = file("window-ui.png");
    demo(
        Some(&x.display),
        &[
            &scene[..],
            &camera[..],
            &["--frames", "3", "--screenshot", &with_ui, "--screenshot-ui"],
        ]
        .concat(),
    );
    let bare = load(&dir.join("window-lit.png"));
    let ui = load(Path::new(&with_ui));
    assert_eq!(ui.dimensions(), bare.dimensions());
    assert!(
        differing(&ui, &bare, 8) > 160 * 120 / 10,
        "the overlay is drawn"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// The window plays a file's first clip by default: the Fox after 20 frames
/// of "Survey" is another image than its pose at 0 s (`--time 0`, paused),
/// which the window shows as the headless run renders it.
#[test]
fn windowed_demo_plays_the_first_clip() {
    let x = Xvfb::start(93, "640x480x24");
    let dir = std::env::temp_dir().join(format!("unbound-window-fox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let fox = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/gltfpack/Fox.glb");
    let scene = [
        "--width", "160", "--height", "120", "--scene", fox, "--no-ui",
    ];
    let (played, paused, headless) = (file("played.png"), file("paused.png"), file("headless.png"));
    let text = demo(
        Some(&x.display),
        &[&scene[..], &["--frames", "20", "--screenshot", &played]].concat(),
    );
    assert!(
        text.contains("playing on the GPU: clip 0 \"Survey\""),
        "{text}"
    );
    demo(
        Some(&x.display),
        &[
            &scene[..],
            &["--time", "0", "--frames", "20", "--screenshot", &paused],
        ]
        .concat(),
    );
    demo(
        None,
        &[
            &scene[..],
            &["--time", "0", "--headless", "--out", &headless],
        ]
        .concat(),
    );
    let (played, paused, headless) = (
        load(Path::new(&played)),
        load(Path::new(&paused)),
        load(Path::new(&headless)),
    );
    let still = differing(&paused, &headless, 2);
    assert!(
        still <= 160 * 120 / 200,
        "{still} pixels differ when paused"
    );
    let moved = differing(&played, &paused, 8);
    assert!(moved > 20, "{moved} pixels moved while playing");
    std::fs::remove_dir_all(&dir).ok();
}
